// Logger: contextual, structured logging without a global; the default does nothing.

/** Structured attributes attached to one log entry. */
export type LogAttributes = Readonly<Record<string, unknown>>;

/**
 * The logging interface every lasso package takes as its `logger` option. Messages are lowercase and
 * event-shaped ("watch restarted"); attribute keys come from a small vocabulary (`gvk`, `namespace`,
 * `name`, `key`, `attempt`, `delayMs`, `error`). Adapters for pino/console live in applications.
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

/** A logger that drops everything; the default of every `logger` option. */
export const noopLogger: Logger = Object.freeze({
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => noopLogger,
});
