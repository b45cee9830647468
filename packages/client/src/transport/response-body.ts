// Reading an answer's body within a bound and decoding it (gzip, then JSON), each failure naming itself
// and the request (client-go has no bound on a plain response; its watch decoder stops at 16 MiB).
import { constants } from 'node:buffer';
import { gunzip } from 'node:zlib';
import { LassoError } from '@lasso/core';
import { describeApiRequest } from '../errors.ts';
import { requestInfoFor } from './request-info.ts';
import type { QueryParams } from './rest-request.ts';

/**
 * Default `maxResponseBytes`: 512 MiB. The largest object etcd stores is 1.5 MiB and kube-apiserver
 * takes requests up to 3 MiB, but a list of every object of a resource is large (50 000 Pods of
 * ~10 KiB are 500 MB); past about 512 MiB (V8's longest string, 2^29 − 24 characters) a body cannot
 * be made one string to parse anyway. Lists bigger than that must be paged (`limit`, `listAll`).
 *
 * @example
 * ```ts
 * const small = createRestConfig({ server: 'https://127.0.0.1:6443', maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES / 8 });
 * ```
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 512 * 1024 * 1024;
/**
 * Default `maxWatchEventBytes`: 16 MiB, client-go's watch decoder limit (`streaming.NewDecoder`).
 *
 * @example
 * ```ts
 * const roomy = createRestConfig({ server: 'https://127.0.0.1:6443', maxWatchEventBytes: 2 * DEFAULT_MAX_WATCH_EVENT_BYTES });
 * ```
 */
export const DEFAULT_MAX_WATCH_EVENT_BYTES = 16 * 1024 * 1024;
/** An error answer is read up to this size; a longer one is reported by its status alone. */
export const ERROR_BODY_BYTES = 1024 * 1024;

/** The request a body belongs to, for messages. */
export interface BodyRequest {
  method: string;
  path: string;
  query?: QueryParams | undefined;
}

/** A response body as undici gives it: chunks, and `destroy()` to close the connection. */
export interface BodySource extends AsyncIterable<Uint8Array> {
  destroy(error?: Error): unknown;
}

/** `get configmaps "a" in namespace "default"`: what `request` asked for, as messages say it. */
export function describeRequest(request: BodyRequest): string {
  return describeApiRequest(requestInfoFor(request.method, request.path, request.query));
}

/** The error of a body or event past its bound. */
export function tooLargeError(request: BodyRequest, what: string, option: string, limit: number) {
  return new LassoError(
    'LASSO_RESPONSE_TOO_LARGE',
    `${describeRequest(request)}: ${what} passed ${option} (${limit} bytes); the connection was closed`,
  );
}

/**
 * Read `body` whole, at most `limit` bytes. Past it the body is destroyed (its connection closed)
 * and what was read dropped; then `onLimit: 'throw'` throws `LASSO_RESPONSE_TOO_LARGE` and
 * `'truncate'` returns `undefined`. `onChunk` runs with each chunk's size as it arrives (a progress deadline).
 */
export async function readBounded(
  body: BodySource,
  limit: number,
  request: BodyRequest,
  onLimit: 'throw' | 'truncate' = 'throw',
  onChunk?: (bytes: number) => void,
): Promise<Buffer | undefined> {
  let chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of body) {
    onChunk?.(chunk.byteLength);
    received += chunk.byteLength;
    if (received > limit) {
      chunks = [];
      body.destroy();
      if (onLimit === 'truncate') return undefined;
      throw tooLargeError(request, 'the response body', 'maxResponseBytes', limit);
    }
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  }
  return Buffer.concat(chunks, received);
}

const gunzipBounded = (bytes: Buffer, maxOutputLength: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    gunzip(bytes, { maxOutputLength }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });

/**
 * The JSON value of a 2xx body (`undefined` for an empty one): gunzipped first when
 * `contentEncoding` is gzip (within `limit`). A gzip body that does not decompress, an encoding
 * other than gzip, a body that is not JSON and one cut short each say so; none quotes the body.
 */
export async function decodeJsonBody(
  bytes: Buffer,
  contentEncoding: string | string[] | undefined,
  statusCode: number,
  limit: number,
  request: BodyRequest,
): Promise<unknown> {
  const invalid = (what: string): LassoError =>
    new LassoError(
      'LASSO_RESPONSE_INVALID',
      `${describeRequest(request)}: the server answered ${statusCode} with ${what}`,
    );
  const encoding = (Array.isArray(contentEncoding) ? contentEncoding.join(',') : contentEncoding)
    ?.trim()
    .toLowerCase();
  let plain = bytes;
  if (encoding === 'gzip' || encoding === 'x-gzip') {
    try {
      plain = await gunzipBounded(bytes, limit);
    } catch (error) {
      const { code, message } = error as { code?: unknown; message?: unknown };
      if (code === 'ERR_BUFFER_TOO_LARGE') {
        throw tooLargeError(request, 'the decompressed response body', 'maxResponseBytes', limit);
      }
      // zlib's messages name the fault (`incorrect header check`, `unexpected end of file`), never data.
      throw invalid(
        `a ${bytes.length}-byte gzip body that does not decompress (${typeof code === 'string' ? `${code}: ` : ''}${String(message)})`,
      );
    }
  } else if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
    throw invalid(
      `a body in Content-Encoding ${JSON.stringify(encoding.slice(0, 40))}, which it was not asked for`,
    );
  }
  if (plain.length === 0) return undefined;
  if (plain.length > constants.MAX_STRING_LENGTH) {
    throw tooLargeError(
      request,
      `the response body (${plain.length} bytes)`,
      `V8's longest string`,
      constants.MAX_STRING_LENGTH,
    );
  }
  const text = plain.toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    // No cause and no excerpt: JSON.parse's message quotes the text, which may be Secret data.
    const message = error instanceof Error ? error.message : '';
    const what = /end of JSON input|Unterminated/i.test(message)
      ? `a JSON body cut short (${plain.length} bytes${plain === bytes ? '' : ' after gunzip'}, ending inside a value)`
      : `a ${plain.length}-byte body that is not JSON`;
    throw invalid(what);
  }
}

/** A short description of a JSON value's shape for messages: `null`, `an array`, `a string`, ... */
export function shapeOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'an empty body';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}
