import { describe, expect, it } from 'vitest';
import * as api from './index.ts';

describe('public API', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "loadCrdFiles",
        "parseCrdYaml",
        "startEnvironment",
        "startLocalApiServer",
        "testCrd",
      ]
    `);
  });
});
