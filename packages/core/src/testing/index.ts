// Test kit of @lasso/core: a clock that moves only when told, and recording logger and metrics.
export { FakeClock } from './fake-clock.ts';
export { createTestLogger, type LogEntry, type TestLogger } from './test-logger.ts';
export { createTestMetricsProvider, type TestMetricsProvider } from './test-metrics.ts';
