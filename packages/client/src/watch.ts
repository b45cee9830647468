// Watch stream decoding: newline-delimited JSON split at any byte boundary, events typed, ERROR -> ApiError
// (client-go rest/watch/decoder.go + streamwatcher.go).
import { LassoError } from '@lasso/core';
import { ApiError } from './errors.ts';
import type { KubeObject, KubeObjectLike, Status, WatchEvent } from './types.ts';

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const BYTE_ORDER_MARK = 0xfeff;
const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Splits a byte stream into lines. The split is on the newline byte, which never occurs inside a multi-byte
 * UTF-8 character, so only whole lines are decoded and a character cut between chunks is decoded whole; a
 * line spread over many chunks is joined once when its newline arrives (no re-scanning of the part already
 * seen). Decoding matches a non-fatal `TextDecoder`: invalid bytes become U+FFFD, a leading BOM is dropped.
 *
 * A line longer than `maxLineBytes` (default 16 MiB, client-go's watch decoder limit) throws a
 * `LASSO_RESPONSE_TOO_LARGE` LassoError as soon as its bytes pass the limit, finished or not, and
 * what was kept of it is dropped.
 *
 * @example
 * ```ts
 * declare const body: AsyncIterable<Uint8Array>;
 * const decoder = new LineDecoder({ maxLineBytes: 1 << 20 });
 * for await (const chunk of body) for (const line of decoder.push(chunk)) console.log(decodeWatchEvent(line).type);
 * ```
 */
export class LineDecoder {
  readonly #maxLineBytes: number;
  // Bytes of the unfinished line, copied: a producer may reuse a chunk's memory once it is handed over.
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #atStart = true;
  /** A line passed the limit: every later call throws. */
  #overflowed = false;

  constructor(options: { maxLineBytes?: number | undefined } = {}) {
    const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!(Number.isSafeInteger(max) && max >= 1)) {
      throw new RangeError(`LineDecoder: maxLineBytes must be an integer >= 1, got ${String(max)}`);
    }
    this.#maxLineBytes = max;
  }

  /** Feed one chunk; returns the lines it completed (without their `\n`, `\r\n` tolerated). */
  push(chunk: Uint8Array): string[] {
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.#throwIfOverflowed();
    const lines: string[] = [];
    let start = 0;
    let index = bytes.indexOf(NEWLINE);
    // The line begun in earlier chunks, finished by this one's first newline: joined once.
    if (index !== -1 && this.#pendingBytes > 0) {
      if (this.#overflows(this.#pendingBytes + index, lines)) return lines;
      this.#pending.push(bytes.subarray(0, index));
      const line = Buffer.concat(this.#pending, this.#pendingBytes + index);
      this.#pending = [];
      this.#pendingBytes = 0;
      let end = line.length;
      if (end > 0 && line[end - 1] === CARRIAGE_RETURN) end--;
      lines.push(this.#decode(line, 0, end));
      start = index + 1;
      index = bytes.indexOf(NEWLINE, start);
    }
    if (index !== -1) {
      const last = bytes.lastIndexOf(NEWLINE);
      if (last - start <= this.#maxLineBytes) {
        // The whole lines of the chunk, none of which can pass the limit (each is shorter than their span):
        // decoded in one call and split on the string. A newline byte is never part of a multi-byte character
        // nor of what an invalid sequence decodes to, so this yields exactly the lines decoded one by one.
        const text = this.#decode(bytes, start, last);
        let from = 0;
        for (let newline = text.indexOf('\n'); ; newline = text.indexOf('\n', from)) {
          let end = newline === -1 ? text.length : newline;
          if (end > from && text.charCodeAt(end - 1) === CARRIAGE_RETURN) end--;
          lines.push(text.slice(from, end));
          if (newline === -1) break;
          from = newline + 1;
        }
        start = last + 1;
      } else {
        for (; index !== -1; index = bytes.indexOf(NEWLINE, start)) {
          if (this.#overflows(index - start, lines)) return lines;
          let end = index;
          if (end > start && bytes[end - 1] === CARRIAGE_RETURN) end--;
          lines.push(this.#decode(bytes, start, end));
          start = index + 1;
        }
      }
    }
    if (start < bytes.length) {
      if (this.#overflows(this.#pendingBytes + bytes.length - start, lines)) return lines;
      this.#pending.push(Buffer.from(bytes.subarray(start)));
      this.#pendingBytes += bytes.length - start;
    }
    return lines;
  }

  /** The end of the stream: the last line when it had no trailing newline. */
  end(): string | undefined {
    this.#throwIfOverflowed();
    if (this.#pendingBytes === 0) return undefined;
    const line = Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    return this.#decode(line, 0, line.length);
  }

  /**
   * Whether a line of `bytes` bytes is over the limit; then the unfinished line is dropped and, when
   * `done` (the lines completed before it in this chunk) is empty, the error thrown at once, else
   * at the next `push()` or `end()` so those lines are still delivered.
   */
  #overflows(bytes: number, done: string[]): boolean {
    if (bytes <= this.#maxLineBytes) return false;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#overflowed = true;
    if (done.length === 0) this.#throwIfOverflowed();
    return true;
  }

  #throwIfOverflowed(): void {
    if (!this.#overflowed) return;
    throw new LassoError(
      'LASSO_RESPONSE_TOO_LARGE',
      `a line passed maxLineBytes (${this.#maxLineBytes} bytes)`,
    );
  }

  #decode(bytes: Buffer, start: number, end: number): string {
    const text = bytes.toString('utf8', start, end);
    if (!this.#atStart) return text;
    this.#atStart = false;
    return text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
  }
}

/**
 * Decode one watch line into an event. An `ERROR` event throws its Status as an {@link ApiError}
 * (410 -> `isGone`); a line that is not a watch event throws a `LASSO_WATCH_DECODE` LassoError.
 * The message never quotes the line (it may hold a Secret).
 */
export function decodeWatchEvent<T extends KubeObjectLike = KubeObject>(
  line: string,
): WatchEvent<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    // No cause: JSON.parse's message quotes the text around the fault, which may be Secret data.
    throw new LassoError(
      'LASSO_WATCH_DECODE',
      `malformed watch event: a line of ${line.length} characters is not JSON`,
    );
  }
  return toWatchEvent<T>(parsed);
}

/**
 * Decode what a watch body held after its last newline when it ended (`LineDecoder.end()`); `undefined` when
 * there is nothing (or only whitespace). The API server ends every event with a newline, so text that is not
 * whole JSON there is an event cut short by the connection closing cleanly mid-write (a proxy, a server going
 * away): it throws `LASSO_WATCH_TRUNCATED` naming `request` and the size of the cut part, so a watcher resumes
 * from the last resourceVersion it saw (client-go's unexpected EOF) and counts it, instead of taking the end
 * for a clean one. Whole JSON is decoded like any line.
 */
export function decodeWatchTail<T extends KubeObjectLike = KubeObject>(
  tail: string | undefined,
  request = 'watch',
): WatchEvent<T> | undefined {
  if (tail === undefined || tail.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(tail);
  } catch {
    throw new LassoError(
      'LASSO_WATCH_TRUNCATED',
      `${request}: the stream ended inside an event (${Buffer.byteLength(tail)} bytes after the last newline, not a whole event)`,
    );
  }
  return toWatchEvent<T>(parsed);
}

function toWatchEvent<T extends KubeObjectLike>(parsed: unknown): WatchEvent<T> {
  const event = parsed as { type?: unknown; object?: unknown } | null;
  if (typeof event !== 'object' || event === null || typeof event.type !== 'string') {
    throw new LassoError('LASSO_WATCH_DECODE', 'malformed watch event: no "type" field');
  }
  if (typeof event.object !== 'object' || event.object === null) {
    throw new LassoError(
      'LASSO_WATCH_DECODE',
      `malformed watch event: ${event.type} event without an "object"`,
    );
  }
  if (event.type === 'ERROR') {
    throw ApiError.fromStatus(event.object as Status);
  }
  if (!EVENT_TYPES.has(event.type)) {
    throw new LassoError(
      'LASSO_WATCH_DECODE',
      `malformed watch event: unknown type ${JSON.stringify(event.type.slice(0, 40))}`,
    );
  }
  return event as WatchEvent<T>;
}
