// Test kit of @lasso/workqueue: a recording rate limiter (use FakeClock from @lasso/core/testing for time).
export { createFakeRateLimiter, type FakeRateLimiter } from './fake-rate-limiter.ts';
