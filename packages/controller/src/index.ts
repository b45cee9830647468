// Public API of @lasso/controller: lasso's controllers, shared controllers and handlers, leader election and
// the helpers an operator author expects.
export { type ApplyClient, type ApplyObjectOptions, applyObject } from './apply.ts';
export { createController } from './controller.ts';
export type {
  Controller,
  ControllerOptions,
  DeletionObserver,
  GiveUp,
  Handler,
  HandOffController,
  KeyPredicate,
  StartCacheFunc,
} from './controller-types.ts';
export {
  type CreateOrUpdateClient,
  type CreateOrUpdateLister,
  type CreateOrUpdateOperation,
  type CreateOrUpdateOptions,
  type CreateOrUpdateResult,
  createOrUpdate,
  type MutateFunc,
} from './create-or-update.ts';
export {
  ErrIgnore,
  HandlerError,
  type HandlerFailure,
  IgnoreError,
  isConflictError,
  isIgnoreError,
  RetryAfterError,
  retryAfter,
  retryAfterDelay,
  someError,
} from './errors.ts';
export {
  createEventRecorder,
  type EventRecorder,
  type EventRecorderOptions,
  type EventType,
} from './event-recorder.ts';
export type { EventRecorderClient, EventRecorderRequestOptions } from './event-writer.ts';
export {
  addFinalizer,
  containsFinalizer,
  type FinalizerCallbacks,
  type FinalizerClient,
  finalizerHandler,
  removeFinalizer,
} from './finalizer.ts';
export {
  createHandlerTransaction,
  type HandlerTransaction,
  isHandlerTransaction,
} from './handler-transaction.ts';
export {
  compileLabelSelector,
  type LabelMatcher,
  type LabelSelectorInput,
} from './label-selector.ts';
export {
  createLeaderElector,
  type LeaderElectionOptions,
  runWithLeaderElection,
} from './leader-election.ts';
export {
  type LeaderCallbacks,
  type LeaderElector,
  LeadershipLostError,
} from './leader-elector-api.ts';
/** @internal The leader elector's fence, also used by @lasso/factory's shard ring; not a supported API. */
export { RenewDeadline } from './leader-elector-fence.ts';
export type { LeaseClient } from './lease-lock.ts';
export type { Lister } from './lister.ts';
export {
  enqueueOwnerHandler,
  isOwnerHandler,
  type OwnerController,
  type OwnerKindOptions,
  ownerKeysOf,
} from './owner-handler.ts';
export {
  AlreadyOwnedError,
  type ControllerReferenceOptions,
  getControllerOf,
  isControlledBy,
  setControllerReference,
} from './owner-references.ts';
export {
  annotationsChangedPredicate,
  generationChangedPredicate,
  labelSelectorPredicate,
  labelsChangedPredicate,
  type Predicate,
  type PredicateEvent,
  predicate,
  resourceVersionChangedPredicate,
} from './predicates.ts';
export {
  type RunUntilShutdownOptions,
  runUntilShutdown,
  type ShutdownCause,
  type ShutdownOutcome,
  shutdownExitCodes,
} from './process-shutdown.ts';
export type { ReconcileContext } from './reconcile-context.ts';
export {
  enqueueRelatedHandler,
  type RelatedKey,
  type RelatedMapFunc,
  type RelatedTarget,
} from './related-handler.ts';
export {
  defaultBackoff,
  defaultRetry,
  type RetryBackoff,
  type RetryOnConflictOptions,
  retryOnConflict,
} from './retry-on-conflict.ts';
export {
  ControllerInitError,
  createSharedController,
  type SharedController,
  type SharedControllerOptions,
} from './shared-controller.ts';
export {
  createSharedHandler,
  type RegisterHandlerOptions,
  recentDeletionMemoryMs,
  recentDeletionRetryMs,
  type SharedControllerHandler,
  type SharedHandler,
  type SharedHandlerOptions,
  type SharedHandlerResult,
} from './shared-handler.ts';
