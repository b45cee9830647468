// The Logger of @lasso/core on pino: JSON lines for machines, pino-pretty's readable lines on a terminal.
import type { LogAttributes, Logger } from '@lasso/core';
import pino from 'pino';
import pretty from 'pino-pretty';

/** Options of {@link createPinoLogger}. */
export interface PinoLoggerOptions {
  level: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Readable, coloured lines (for a terminal) instead of JSON. Default: whether stderr is a terminal. */
  pretty?: boolean;
  /** Where lines go. Default stderr, so stdout stays free for the live view. */
  destination?: NodeJS.WritableStream;
}

function wrap(base: pino.Logger): Logger {
  return {
    debug: (message: string, attributes?: LogAttributes) => base.debug(attributes ?? {}, message),
    info: (message: string, attributes?: LogAttributes) => base.info(attributes ?? {}, message),
    warn: (message: string, attributes?: LogAttributes) => base.warn(attributes ?? {}, message),
    error: (message: string, attributes?: LogAttributes) => base.error(attributes ?? {}, message),
    child: (attributes: LogAttributes) => wrap(base.child(attributes)),
  };
}

/** A {@link Logger} writing through pino. */
export function createPinoLogger(options: PinoLoggerOptions): Logger {
  const destination = options.destination ?? process.stderr;
  const readable = options.pretty ?? (destination as { isTTY?: boolean }).isTTY === true;
  const stream = readable
    ? pretty({ colorize: true, sync: true, ignore: 'pid,hostname', destination })
    : destination;
  // Authorization headers and tokens never reach a log call in lasso; redact them anyway should an
  // attribute ever carry one.
  return wrap(
    pino(
      {
        level: options.level,
        base: null,
        redact: {
          paths: ['authorization', 'token', '*.authorization', '*.token'],
          censor: '[redacted]',
        },
      },
      stream,
    ),
  );
}
