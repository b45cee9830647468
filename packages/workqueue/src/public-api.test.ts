import { describe, expect, it } from 'vitest';
import * as api from './index.ts';
import * as testing from './testing/index.ts';

describe('public API', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "bucketRateLimiter",
        "createDelayingQueue",
        "createQueue",
        "createRateLimitingQueue",
        "createTokenBucket",
        "defaultControllerRateLimiter",
        "defaultLassoRateLimiter",
        "exponentialFailureRateLimiter",
        "fastSlowRateLimiter",
        "maxOfRateLimiter",
        "parallelizeUntil",
        "withMaxWaitRateLimiter",
        "workqueueMetricNames",
      ]
    `);
    expect(Object.keys(testing).sort()).toMatchInlineSnapshot(`
      [
        "createFakeRateLimiter",
      ]
    `);
  });
});
