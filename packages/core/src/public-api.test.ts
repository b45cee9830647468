import { describe, expect, it } from 'vitest';
import * as api from './index.ts';
import * as pki from './pki/index.ts';
import * as testing from './testing/index.ts';

describe('public API', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "LassoError",
        "TimeoutError",
        "abortReason",
        "anySignal",
        "createConsoleLogger",
        "createShutdownSignal",
        "defaultLogger",
        "describeError",
        "drainWithin",
        "drainedResult",
        "errorMessage",
        "guardLogger",
        "isAbortError",
        "isLassoError",
        "noopLogger",
        "noopMetricsProvider",
        "raceSignal",
        "sleep",
        "systemClock",
        "timeoutSignal",
      ]
    `);
    expect(Object.keys(testing).sort()).toMatchInlineSnapshot(`
      [
        "FakeClock",
        "createTestLogger",
        "createTestMetricsProvider",
      ]
    `);
    expect(Object.keys(pki).sort()).toMatchInlineSnapshot(`
      [
        "createCertificateAuthority",
        "createSignedCertificate",
      ]
    `);
  });
});
