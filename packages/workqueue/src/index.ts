// Public API of @lasso/workqueue: client-go's work queues, rate limiters and queue metrics, standalone.
export { createDelayingQueue, type DelayingQueue } from './delaying-queue.ts';
export { workqueueMetricNames } from './metrics.ts';
export { type ParallelizeOptions, parallelizeUntil } from './parallelizer.ts';
export {
  type BucketRateLimiterOptions,
  bucketRateLimiter,
  type DefaultRateLimiterOptions,
  defaultControllerRateLimiter,
  defaultLassoRateLimiter,
  type ExponentialFailureRateLimiterOptions,
  exponentialFailureRateLimiter,
  type FastSlowRateLimiterOptions,
  fastSlowRateLimiter,
  maxOfRateLimiter,
  type RateLimiter,
  withMaxWaitRateLimiter,
} from './rate-limiters.ts';
export { createRateLimitingQueue, type RateLimitingQueue } from './rate-limiting-queue.ts';
export { createTokenBucket, type TokenBucket, type TokenBucketOptions } from './token-bucket.ts';
export {
  createQueue,
  type DrainOptions,
  type GetResult,
  type QueueOptions,
  type WorkQueue,
} from './work-queue.ts';
