// Watch stream decoding: newline-delimited JSON split at any byte boundary, events typed, ERROR -> ApiError
// (client-go rest/watch/decoder.go + streamwatcher.go).
import { LassoError } from '@lasso/core';
import { ApiError } from './errors.ts';
import type { KubeObject, KubeObjectLike, Status, WatchEvent } from './types.ts';

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

/**
 * Splits a byte stream into lines. Bytes are decoded with a streaming TextDecoder, so a multi-byte
 * UTF-8 character cut between chunks is decoded whole; a line spread over many chunks is joined
 * once when its newline arrives (no re-scanning of the part already seen).
 */
export class LineDecoder {
  readonly #decoder = new TextDecoder('utf-8', { fatal: false });
  #pending: string[] = [];

  /** Feed one chunk; returns the lines it completed (without their `\n`, `\r\n` tolerated). */
  push(chunk: Uint8Array): string[] {
    const text = this.#decoder.decode(chunk, { stream: true });
    const lines: string[] = [];
    let start = 0;
    for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', start)) {
      let line = text.slice(start, index);
      if (this.#pending.length > 0) {
        this.#pending.push(line);
        line = this.#pending.join('');
        this.#pending = [];
      }
      lines.push(line.endsWith('\r') ? line.slice(0, -1) : line);
      start = index + 1;
    }
    if (start < text.length) this.#pending.push(start === 0 ? text : text.slice(start));
    return lines;
  }

  /** The end of the stream: the last line when it had no trailing newline. */
  end(): string | undefined {
    const tail = this.#decoder.decode();
    if (tail !== '') this.#pending.push(tail);
    if (this.#pending.length === 0) return undefined;
    const line = this.#pending.join('');
    this.#pending = [];
    return line;
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
