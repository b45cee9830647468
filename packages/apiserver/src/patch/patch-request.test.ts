import { beforeAll, describe, expect, it } from 'vitest';
import { parseApplyBody, yamlDuplicateKeys } from './patch-request.ts';
import { loadYaml } from './yaml-module.ts';

beforeAll(() => loadYaml());

describe('apply bodies with duplicate keys', () => {
  it('keep the last value, as Go YAML decoding does', () => {
    expect(parseApplyBody(Buffer.from('data:\n  a: "1"\n  a: "2"\n'))).toEqual({
      data: { a: '2' },
    });
  });

  it('are listed as go-yaml words them, for YAML and JSON alike', () => {
    expect(
      yamlDuplicateKeys(Buffer.from('spec:\n  paused: true\n  "paused": false\nx: 1\nx: 2\n')),
    ).toEqual(['line 3: key "paused" already set in map', 'line 5: key "x" already set in map']);
    expect(yamlDuplicateKeys(Buffer.from('{"a": 1,\n "b": {"c": 1, "c": 2}}'))).toEqual([
      'line 2: key "c" already set in map',
    ]);
    expect(yamlDuplicateKeys(Buffer.from('a: 1\nb: 2\n'))).toEqual([]);
  });
});
