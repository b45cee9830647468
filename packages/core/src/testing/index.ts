// Test kit of @lasso/core: a clock that moves only when told, recording logger and metrics, and a waiter for
// integration tests.
export { FakeClock } from './fake-clock.ts';
export { createTestLogger, type LogEntry, type TestLogger } from './test-logger.ts';
export { createTestMetricsProvider, type TestMetricsProvider } from './test-metrics.ts';
export { Waiter } from './waiter.ts';
