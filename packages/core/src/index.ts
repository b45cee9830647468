// Public API of @lasso/core: time, logging, metrics, errors and cancellation shared by every layer.
export {
  abortReason,
  anySignal,
  isAbortError,
  raceSignal,
  type SignalOptions,
  sleep,
  timeoutSignal,
} from './abort.ts';
export { type Clock, type ScheduleOptions, systemClock, type TimerHandle } from './clock.ts';
export {
  type ConsoleLoggerOptions,
  createConsoleLogger,
  defaultLogger,
  type LogStream,
} from './console-logger.ts';
export {
  describeError,
  type ErrorDescription,
  errorMessage,
  isLassoError,
  LassoError,
  type LassoErrorCode,
  type LassoErrorCodes,
  type LassoErrorOf,
  TimeoutError,
} from './errors.ts';
export { guardLogger, type LoggerFailureReporter } from './guarded-logger.ts';
export {
  defaultGracefulShutdownTimeoutMs,
  drainedResult,
  drainWithin,
  type Lifecycle,
  type StopResult,
} from './lifecycle.ts';
export { type LogAttributes, type Logger, type LogLevel, noopLogger } from './logger.ts';
export { type TrackedMetrics, trackMetrics, withMetricLabels } from './metric-labels.ts';
export {
  type Counter,
  type Gauge,
  type Histogram,
  type HistogramOptions,
  type MetricLabels,
  type MetricOptions,
  type MetricsProvider,
  noopMetricsProvider,
} from './metrics.ts';
export {
  createShutdownSignal,
  type ShutdownSignal,
  type ShutdownSignalOptions,
  type ShutdownSignalTarget,
} from './shutdown-signal.ts';
export {
  bindTraceContext,
  checkTracerProvider,
  isNoopSpan,
  recordSpanError,
  resolveTracing,
  SPAN_KIND_CLIENT,
  SPAN_KIND_INTERNAL,
  SPAN_STATUS_ERROR,
  type TraceAttributeValue,
  type Tracer,
  type TracerProvider,
  type TraceSpan,
  Tracing,
  traceContextOf,
} from './tracing.ts';
