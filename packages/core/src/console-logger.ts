// Console logger: text lines for terminals, JSON lines otherwise; and the default logger of every lasso
// package, which prints warnings and errors unless LASSO_LOG_LEVEL says otherwise (rancher/lasso's pkg/log).
import { type Clock, systemClock } from './clock.ts';
import { errorMessage } from './errors.ts';
import type { LogAttributes, Logger, LogLevel } from './logger.ts';

/** The stream a console logger writes to: `process.stderr` or anything with a `write(string)`. */
export interface LogStream {
  write(chunk: string): unknown;
  /** True for a terminal; `format: 'auto'` then writes text instead of JSON lines. */
  readonly isTTY?: boolean | undefined;
}

/** Options of {@link createConsoleLogger}. */
export interface ConsoleLoggerOptions {
  /** The least severe level written; `'silent'` writes nothing. Default `'info'`. */
  level?: LogLevel | 'silent' | undefined;
  /**
   * `'text'`: one human-readable line per entry (`<time> WARN  <message> key=value ...`). `'json'`: one JSON
   * object per line (`time`, `level`, `msg`, then the attributes). `'auto'` (default): text when the stream
   * is a terminal (`stream.isTTY`), JSON otherwise, so a container's logs stay machine-readable.
   */
  format?: 'text' | 'json' | 'auto' | undefined;
  /** Where lines go. Default `process.stderr`, looked up when the logger is created. */
  stream?: LogStream | undefined;
  /** Source of the timestamps. Default `systemClock`. */
  clock?: Clock | undefined;
}

const levelRank: Readonly<Record<LogLevel | 'silent', number>> = {
  debug: 10,
  info: 20,
  warn: 30,
  error: 40,
  silent: Number.POSITIVE_INFINITY,
};

const levelNames = Object.keys(levelRank) as (LogLevel | 'silent')[];

function isLevel(value: unknown): value is LogLevel | 'silent' {
  return typeof value === 'string' && Object.hasOwn(levelRank, value);
}

/** What every logger of one tree shares: where and how to write, and from which level on. */
interface Output {
  readonly threshold: number;
  readonly json: boolean;
  readonly stream: LogStream | undefined;
  readonly clock: Clock;
}

/**
 * Create a {@link Logger} that writes each entry as one line to a stream (default `process.stderr`):
 * human-readable text on a terminal, JSON lines otherwise (see {@link ConsoleLoggerOptions.format}).
 *
 * The logger never throws: attribute values are rendered defensively (an `Error` as its message, a `bigint`
 * as its digits, a cycle as `'[circular]'`, a getter that throws or a revoked `Proxy` as
 * `'[unprintable]'`, nesting beyond 5 levels as `'[object]'`), and a stream whose `write` throws loses the
 * entry rather than failing the caller. In text, a multi-line `stack` attribute (the stack lasso's error logs
 * carry) is printed under the entry's line, one frame per line, indented; JSON keeps it a string.
 *
 * @example
 * ```ts
 * const logger = createConsoleLogger({ level: 'debug' });
 * const error = new Error('connection refused');
 * logger.child({ controller: 'pods' }).warn('sync failed', { key: 'default/web', error });
 * // 2026-01-01T00:00:00.000Z WARN  sync failed controller=pods key=default/web error="connection refused"
 * ```
 *
 * **Gotchas**: writes are synchronous `stream.write` calls, as `console.*` makes them; at `debug` level
 * a busy informer logs per event, so prefer a real logging library (pino) behind the `Logger` interface
 * for heavy production logging.
 */
export function createConsoleLogger(options: ConsoleLoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  if (!isLevel(level)) {
    throw new RangeError(
      `createConsoleLogger: options.level must be one of ${levelNames.join(', ')}, got ${safeString(level)}`,
    );
  }
  const format = options.format ?? 'auto';
  if (format !== 'text' && format !== 'json' && format !== 'auto') {
    throw new RangeError(
      `createConsoleLogger: options.format must be 'text', 'json' or 'auto', got ${safeString(format)}`,
    );
  }
  const stream = options.stream ?? globalThis.process?.stderr;
  if (stream !== undefined && typeof stream.write !== 'function') {
    throw new TypeError('createConsoleLogger: options.stream must have a write(chunk) method');
  }
  const output: Output = {
    threshold: levelRank[level],
    json: format === 'json' || (format === 'auto' && stream?.isTTY !== true),
    stream,
    clock: options.clock ?? systemClock,
  };
  return makeLogger(() => output, []);
}

/** Options of the default logger, injectable for tests. */
export interface DefaultLoggerOptions {
  /** Where `LASSO_LOG_LEVEL` is read from. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Default `process.stderr`. */
  stream?: LogStream | undefined;
  clock?: Clock | undefined;
}

/**
 * Build a logger that behaves as {@link defaultLogger}: level `warn` unless `LASSO_LOG_LEVEL` names
 * another, read once, on the first entry or `child()` call rather than at import (so a program may set
 * it during startup). An unknown value falls back to `warn` and says so in a warning.
 */
export function createDefaultLogger(options: DefaultLoggerOptions = {}): Logger {
  let output: Output | undefined;
  let resolving = false;
  const resolve = (): Output => {
    if (output !== undefined) return output;
    // A warning about the variable goes through this same logger; it must not resolve again.
    if (resolving) return silentOutput;
    resolving = true;
    const env = options.env ?? globalThis.process?.env ?? {};
    const raw = env.LASSO_LOG_LEVEL;
    const value = raw?.trim().toLowerCase();
    const valid = value === undefined || value === '' || isLevel(value);
    const level = valid && value !== undefined && value !== '' ? value : 'warn';
    const stream = options.stream ?? globalThis.process?.stderr;
    output = {
      threshold: levelRank[level as LogLevel | 'silent'],
      json: stream?.isTTY !== true,
      stream,
      clock: options.clock ?? systemClock,
    };
    resolving = false;
    if (!valid) {
      root.warn('LASSO_LOG_LEVEL is not silent, error, warn, info or debug; using warn', {
        value: raw,
      });
    }
    return output;
  };
  const root = makeLogger(resolve, []);
  return root;
}

const silentOutput: Output = {
  threshold: levelRank.silent,
  json: true,
  stream: undefined,
  clock: systemClock,
};

/**
 * The default of every `logger` option in lasso: writes `warn` and `error` entries to `process.stderr`
 * (text on a terminal, JSON lines otherwise), so an informer that fails forever is visible even when
 * nobody passed a logger.
 *
 * Opt out per component by passing `logger: noopLogger` (or your own {@link Logger}), or for the whole
 * process with the environment variable `LASSO_LOG_LEVEL=silent|error|warn|info|debug`, read once when the
 * default logger first writes.
 *
 * **Gotchas**: unlike rancher/lasso's `pkg/log` (which prints everything), `info` and `debug` entries are
 * dropped unless `LASSO_LOG_LEVEL` asks for them.
 */
export const defaultLogger: Logger = createDefaultLogger();

function makeLogger(
  output: () => Output,
  bindings: readonly (readonly [string, unknown])[],
): Logger {
  const log =
    (level: LogLevel) =>
    (message: string, attributes?: LogAttributes): void => {
      try {
        const out = output();
        if (levelRank[level] < out.threshold || out.stream === undefined) return;
        const entries =
          attributes === undefined ? bindings : [...bindings, ...ownEntries(attributes)];
        const line = out.json
          ? jsonLine(out.clock, level, message, entries)
          : textLine(out.clock, level, message, entries);
        out.stream.write(line);
      } catch {
        // A logger must never fail its caller: a closed stream or a broken clock loses the entry.
      }
    };
  return {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    child: (attributes) => makeLogger(output, [...bindings, ...ownEntries(attributes)]),
  };
}

const unprintable = '[unprintable]';

/** The attributes as key/value pairs; a key whose getter throws gets a marker, never an exception. */
function ownEntries(attributes: unknown): (readonly [string, unknown])[] {
  if (typeof attributes !== 'object' || attributes === null) return [];
  let keys: string[];
  try {
    keys = Object.keys(attributes);
  } catch {
    return [['attributes', unprintable]];
  }
  return keys.map((key) => {
    try {
      return [key, (attributes as Record<string, unknown>)[key]] as const;
    } catch {
      return [key, unprintable] as const;
    }
  });
}

function timestamp(clock: Clock): string {
  try {
    return new Date(clock.now()).toISOString();
  } catch {
    return 'invalid-time';
  }
}

const reservedJsonKeys = new Set(['time', 'level', 'msg']);

function jsonLine(
  clock: Clock,
  level: LogLevel,
  message: string,
  entries: readonly (readonly [string, unknown])[],
): string {
  // No prototype: an attribute named `__proto__` stays an ordinary key.
  const record: Record<string, unknown> = Object.create(null);
  record.time = timestamp(clock);
  record.level = level;
  record.msg = safeString(message);
  for (const [key, value] of entries) {
    // The fixed fields win; a clashing attribute is kept under another name rather than dropped.
    record[reservedJsonKeys.has(key) ? `attr.${key}` : key] = plain(value, 0, new Set());
  }
  return `${JSON.stringify(record)}\n`;
}

const textLevels: Readonly<Record<LogLevel, string>> = {
  debug: 'DEBUG',
  info: 'INFO ',
  warn: 'WARN ',
  error: 'ERROR',
};

function textLine(
  clock: Clock,
  level: LogLevel,
  message: string,
  entries: readonly (readonly [string, unknown])[],
): string {
  let line = `${timestamp(clock)} ${textLevels[level]} ${quoteIfNeeded(safeString(message), /[\n\r]/)}`;
  let block = '';
  for (const [key, value] of entries) {
    const rendered = plain(value, 0, new Set());
    if (key === 'stack' && typeof rendered === 'string' && rendered.includes('\n')) {
      // A stack read on a terminal: its frames under the line, indented, rather than one quoted line of \n.
      block += rendered
        .split('\n')
        .map((frame) => `    ${frame.trimStart().replace(/\r/g, '')}\n`)
        .join('');
      continue;
    }
    const text =
      typeof rendered === 'string'
        ? quoteIfNeeded(rendered, /[\s"=]|^$/)
        : rendered === undefined
          ? 'undefined'
          : JSON.stringify(rendered);
    line += ` ${quoteIfNeeded(key, /[\s"=]|^$/)}=${text}`;
  }
  return `${line}\n${block}`;
}

function quoteIfNeeded(text: string, needsQuotes: RegExp): string {
  return needsQuotes.test(text) ? JSON.stringify(text) : text;
}

function safeString(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    return unprintable;
  }
}

const maxDepth = 5;
const maxItems = 100;

/**
 * `value` as JSON-safe data (strings, finite numbers, booleans, null, arrays, plain objects, undefined),
 * whatever it is: cycles, bigints, throwing getters, revoked proxies and exotic objects all become
 * strings. Each level catches on its own, so one bad property spoils only itself.
 */
function plain(value: unknown, depth: number, seen: Set<object>): unknown {
  try {
    switch (typeof value) {
      case 'string':
      case 'boolean':
      case 'undefined':
        return value;
      case 'number':
        return Number.isFinite(value) ? value : String(value);
      case 'bigint':
      case 'symbol':
        return value.toString();
      case 'function':
        return `[function ${safeString((value as { name?: unknown }).name) || 'anonymous'}]`;
    }
    if (value === null) return null;
    const object = value as object;
    if (seen.has(object)) return '[circular]';
    if (object instanceof Error) return errorMessage(object);
    if (object instanceof Date) {
      return Number.isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString();
    }
    if (ArrayBuffer.isView(object))
      return `[${object.constructor.name} ${object.byteLength} bytes]`;
    if (depth >= maxDepth) return '[object]';
    seen.add(object);
    try {
      if (Array.isArray(object)) return plainItems(object, depth, seen);
      if (object instanceof Map) return plainItems([...object.entries()], depth, seen);
      if (object instanceof Set) return plainItems([...object.values()], depth, seen);
      const toJSON = (object as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return plain(toJSON.call(object), depth + 1, seen);
      const result: Record<string, unknown> = Object.create(null);
      const entries = ownEntries(object);
      for (const [key, item] of entries.slice(0, maxItems)) {
        result[key] = plain(item, depth + 1, seen);
      }
      if (entries.length > maxItems) result['…'] = `${entries.length - maxItems} more`;
      return result;
    } finally {
      seen.delete(object);
    }
  } catch {
    return unprintable;
  }
}

function plainItems(items: readonly unknown[], depth: number, seen: Set<object>): unknown[] {
  const result = items.slice(0, maxItems).map((item) => {
    const rendered = plain(item, depth + 1, seen);
    // JSON turns undefined array items into null; say what it was instead.
    return rendered === undefined ? 'undefined' : rendered;
  });
  if (items.length > maxItems) result.push(`… ${items.length - maxItems} more`);
  return result;
}
