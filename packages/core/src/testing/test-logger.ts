// A Logger that records entries so tests can assert on what was logged.
import type { LogAttributes, Logger } from '../logger.ts';

/** One recorded log entry. */
export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  attributes: LogAttributes;
}

/** A {@link Logger} that records every entry (children share the record). */
export interface TestLogger extends Logger {
  /** Every entry logged through this logger or its children, oldest first. */
  readonly entries: LogEntry[];
  /** Entries whose message contains `text`. */
  find(text: string): LogEntry[];
}

/** Create a recording logger for tests (ktesting's role). */
export function createTestLogger(): TestLogger {
  const entries: LogEntry[] = [];
  const make = (base: LogAttributes): Logger => ({
    debug: (message, attributes) =>
      entries.push({ level: 'debug', message, attributes: { ...base, ...attributes } }),
    info: (message, attributes) =>
      entries.push({ level: 'info', message, attributes: { ...base, ...attributes } }),
    warn: (message, attributes) =>
      entries.push({ level: 'warn', message, attributes: { ...base, ...attributes } }),
    error: (message, attributes) =>
      entries.push({ level: 'error', message, attributes: { ...base, ...attributes } }),
    child: (attributes) => make({ ...base, ...attributes }),
  });
  const root = make({});
  return Object.assign(root, {
    entries,
    find: (text: string) => entries.filter((entry) => entry.message.includes(text)),
  });
}
