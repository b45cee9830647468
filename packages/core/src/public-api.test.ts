import { describe, expect, it } from 'vitest';
import * as api from './index.ts';
import * as pki from './pki/index.ts';
import * as sharding from './sharding/index.ts';
import * as testing from './testing/index.ts';

describe('public API', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "LassoError",
        "SPAN_KIND_CLIENT",
        "SPAN_KIND_INTERNAL",
        "SPAN_STATUS_ERROR",
        "TimeoutError",
        "Tracing",
        "abortReason",
        "anySignal",
        "bindTraceContext",
        "checkTracerProvider",
        "createConsoleLogger",
        "createShutdownSignal",
        "defaultGracefulShutdownTimeoutMs",
        "defaultLogger",
        "describeError",
        "drainWithin",
        "drainedResult",
        "errorMessage",
        "guardLogger",
        "isAbortError",
        "isLassoError",
        "isNoopSpan",
        "noopLogger",
        "noopMetricsProvider",
        "raceSignal",
        "recordSpanError",
        "resolveTracing",
        "sleep",
        "systemClock",
        "timeoutSignal",
        "traceContextOf",
        "trackMetrics",
        "withMetricLabels",
      ]
    `);
    expect(Object.keys(testing).sort()).toMatchInlineSnapshot(`
      [
        "FakeClock",
        "Waiter",
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
    expect(Object.keys(sharding).sort()).toMatchInlineSnapshot(`
      [
        "ShardSelectorError",
        "createShardMatcher",
        "fnv1a64",
        "fnv1a64Hex",
        "formatShardBound",
        "formatShardSelector",
        "parseShardSelector",
        "shardHashSource",
        "shardHashSpaceEnd",
        "shardKeyValue",
        "shardRangesContain",
      ]
    `);
  });
});
