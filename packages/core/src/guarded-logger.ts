// A Logger that never throws, whatever the user's logger does: loops log on their failure paths, and a
// throwing logger there would end the loop it was meant to report on.
import type { LogAttributes, Logger, LogLevel } from './logger.ts';

const guarded = new WeakSet<Logger>();

/** What a guarded logger does with a failure of the logger it wraps (default: one process warning). */
export type LoggerFailureReporter = (failure: unknown) => void;

let warned = false;

function warnOnce(failure: unknown): void {
  if (warned) return;
  warned = true;
  // The logger itself is the broken part, so the only channel left is the process: Node prints this
  // to stderr by default, and `process.on('warning')` can route it elsewhere.
  let detail = 'unknown failure';
  try {
    detail = failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure);
  } catch {
    // A value whose conversion throws still gets the generic text.
  }
  try {
    process.emitWarning(
      `a lasso logger threw and its entry was dropped (${detail}); later failures are not reported`,
      {
        type: 'LassoLoggerWarning',
        code: 'LASSO_LOGGER_THREW',
      },
    );
  } catch {
    // emitWarning throws only for bad arguments; there is nowhere further to report.
  }
}

/**
 * Wrap `logger` so that none of its methods can throw into the caller. Components call this on the
 * `logger` option they are given; `Logger` implementations must not throw, but one that does must not
 * stop a reflector, a workqueue shutdown or a controller worker. The first failure is reported through
 * `onFailure` (default: a single `LassoLoggerWarning` process warning); the entry is dropped.
 * Guarding a guarded logger returns it unchanged.
 */
export function guardLogger(logger: Logger, onFailure: LoggerFailureReporter = warnOnce): Logger {
  if (guarded.has(logger)) return logger;
  const call = (level: LogLevel, message: string, attributes?: LogAttributes): void => {
    try {
      // Forwarded as given: an absent attributes argument stays absent for loggers that count arguments.
      if (attributes === undefined) logger[level](message);
      else logger[level](message, attributes);
    } catch (failure) {
      try {
        onFailure(failure);
      } catch {
        // The reporter is the caller's; its failure has no other place to go.
      }
    }
  };
  const result: Logger = Object.freeze({
    debug: (message: string, attributes?: LogAttributes) => call('debug', message, attributes),
    info: (message: string, attributes?: LogAttributes) => call('info', message, attributes),
    warn: (message: string, attributes?: LogAttributes) => call('warn', message, attributes),
    error: (message: string, attributes?: LogAttributes) => call('error', message, attributes),
    child: (attributes: LogAttributes): Logger => {
      try {
        return guardLogger(logger.child(attributes), onFailure);
      } catch (failure) {
        try {
          onFailure(failure);
        } catch {
          // As above.
        }
        // Without a child, entries keep going to the parent, which is better than losing them.
        return result;
      }
    },
  });
  guarded.add(result);
  return result;
}
