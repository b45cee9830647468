import { describe, expect, it } from 'vitest';
import * as api from './index.ts';

describe('public API', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "AlreadyOwnedError",
        "ControllerInitError",
        "ErrIgnore",
        "HandlerError",
        "IgnoreError",
        "LeadershipLostError",
        "RetryAfterError",
        "addFinalizer",
        "containsFinalizer",
        "createController",
        "createEventRecorder",
        "createHandlerTransaction",
        "createLeaderElector",
        "createSharedController",
        "createSharedHandler",
        "defaultBackoff",
        "defaultRetry",
        "enqueueOwnerHandler",
        "finalizerHandler",
        "getControllerOf",
        "isConflictError",
        "isControlledBy",
        "isHandlerTransaction",
        "isIgnoreError",
        "ownerKeysOf",
        "recentDeletionMemoryMs",
        "recentDeletionRetryMs",
        "removeFinalizer",
        "retryAfter",
        "retryAfterDelay",
        "retryOnConflict",
        "runWithLeaderElection",
        "setControllerReference",
        "someError",
      ]
    `);
  });
});
