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
        "RenewDeadline",
        "RetryAfterError",
        "addFinalizer",
        "annotationsChangedPredicate",
        "applyObject",
        "compileLabelSelector",
        "containsFinalizer",
        "createController",
        "createEventRecorder",
        "createHandlerTransaction",
        "createLeaderElector",
        "createOrUpdate",
        "createSharedController",
        "createSharedHandler",
        "defaultBackoff",
        "defaultRetry",
        "enqueueOwnerHandler",
        "finalizerHandler",
        "generationChangedPredicate",
        "getControllerOf",
        "isConflictError",
        "isControlledBy",
        "isHandlerTransaction",
        "isIgnoreError",
        "isOwnerHandler",
        "labelSelectorPredicate",
        "labelsChangedPredicate",
        "ownerKeysOf",
        "predicate",
        "recentDeletionMemoryMs",
        "recentDeletionRetryMs",
        "removeFinalizer",
        "resourceVersionChangedPredicate",
        "retryAfter",
        "retryAfterDelay",
        "retryOnConflict",
        "runUntilShutdown",
        "runWithLeaderElection",
        "setControllerReference",
        "shutdownExitCodes",
        "someError",
      ]
    `);
  });
});
