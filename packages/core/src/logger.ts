// Logger: contextual, structured logging without a global; see console-logger.ts for the default.

/** Structured attributes attached to one log entry. */
export type LogAttributes = Readonly<Record<string, unknown>>;

/** The severity of a log entry, least severe first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * The logging interface every lasso package takes as its `logger` option (default: `defaultLogger`,
 * which prints warnings and errors). Messages are lowercase and event-shaped ("watch restarted");
 * attribute keys come from a small vocabulary (`gvk`, `namespace`, `name`, `key`, `attempt`,
 * `delayMs`, `error`). Implementations must not throw. Adapters for pino and the like live in
 * applications; `createConsoleLogger` covers the simple cases.
 */
export interface Logger {
  debug(message: string, attributes?: LogAttributes): void;
  info(message: string, attributes?: LogAttributes): void;
  warn(message: string, attributes?: LogAttributes): void;
  error(message: string, attributes?: LogAttributes): void;
  /** A logger that adds `attributes` to every entry. */
  child(attributes: LogAttributes): Logger;
}

const noop = (): void => {};

/**
 * A logger that drops everything. Pass it as a component's `logger` to silence that component (the
 * default, `defaultLogger`, prints warnings and errors).
 */
export const noopLogger: Logger = Object.freeze({
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => noopLogger,
});
