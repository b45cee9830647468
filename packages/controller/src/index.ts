// Public API of @lasso/controller: lasso's controllers, shared controllers and handlers, leader election and
// the helpers an operator author expects.
export {
  type Controller,
  type ControllerOptions,
  createController,
  type Handler,
  type StartCacheFunc,
} from './controller.ts';
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
  createHandlerTransaction,
  type HandlerTransaction,
  isHandlerTransaction,
} from './handler-transaction.ts';
export {
  ControllerInitError,
  createSharedController,
  type SharedController,
  type SharedControllerOptions,
} from './shared-controller.ts';
export {
  createSharedHandler,
  recentDeletionMemoryMs,
  recentDeletionRetryMs,
  type SharedControllerHandler,
  type SharedHandler,
  type SharedHandlerOptions,
  type SharedHandlerResult,
} from './shared-handler.ts';
