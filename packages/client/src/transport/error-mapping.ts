// Errors of a failed request: an ApiError from the answer (apimachinery's errors.FromObject /
// client-go's transformResponse), or the abort reason, a timeout or a connection failure.
import { abortReason, errorMessage, LassoError, TimeoutError } from '@lasso/core';
import { ApiError, reasonForStatus } from '../errors.ts';
import { RequestTimeoutError } from '../timeout-policy.ts';
import type { Status } from '../types.ts';
import { requestInfoFor } from './request-info.ts';
import type { QueryParams } from './rest-request.ts';
import { parseRetryAfter } from './retry-after.ts';

/** What the mapping needs to know about a request. */
export interface FailedRequest {
  method: string;
  path: string;
  query?: QueryParams | undefined;
}

/**
 * Build the ApiError of a non-2xx answer: from its Status body, or from the HTTP status (`nowMs`
 * dates a Retry-After HTTP date). Its `request` and message name what `request` asked for.
 */
export function apiErrorFrom(
  request: FailedRequest,
  statusCode: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  nowMs = Date.now(),
): ApiError {
  const retryAfterMs = parseRetryAfter(headers['retry-after'], nowMs);
  const info = requestInfoFor(request.method, request.path, request.query);
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === 'object' && parsed !== null && (parsed as Status).kind === 'Status') {
    return ApiError.fromStatus(parsed as Status, statusCode, retryAfterMs, info);
  }
  return new ApiError({
    status: statusCode,
    message: `the server responded ${statusCode} ${reasonForStatus(statusCode)}${bodyExcerpt(headers['content-type'], text)}`,
    retryAfterMs,
    request: info,
  });
}

/** At most this many characters of a non-Status error body appear in a message. */
export const BODY_EXCERPT_CHARS = 200;

/**
 * What a message shows of a non-Status error body: for `text/plain` and JSON (`application/json`,
 * `*+json`) bodies, the first {@link BODY_EXCERPT_CHARS} characters on one line (ANSI escapes
 * dropped, control characters and whitespace runs made one space, `…` when cut); for any other
 * type (a proxy's HTML page) or none, only its size and type. A body may echo what was sent (a
 * Secret's data) or be a login page: nothing else of it is kept, and headers never appear.
 */
function bodyExcerpt(contentType: string | string[] | undefined, text: string): string {
  if (text === '') return '';
  const type = (Array.isArray(contentType) ? contentType[0] : contentType)
    ?.split(';')[0]
    ?.trim()
    .toLowerCase();
  if (type !== 'text/plain' && type !== 'application/json' && !type?.endsWith('+json')) {
    const described = type ? `${type} body` : 'body without Content-Type';
    return ` (a ${Buffer.byteLength(text)}-byte ${described}, not shown)`;
  }
  const line = text
    // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what goes
    .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what goes
    .replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .trim();
  if (line === '') return '';
  return line.length > BODY_EXCERPT_CHARS ? `: ${line.slice(0, BODY_EXCERPT_CHARS)}…` : `: ${line}`;
}

/** The error to throw when undici failed: the abort reason, a timeout, or a connection failure. */
export function requestFailure(
  request: FailedRequest,
  error: unknown,
  signal: AbortSignal | undefined,
): Error {
  if (signal?.aborted) {
    const reason = abortReason(signal);
    // A deadline of the request's own: its error already says what was asked and which deadline.
    // undici rejects with the signal's reason itself: that error is thrown as it was built. Only a
    // different failure that raced the deadline is attached, as the cause of a copy.
    if (reason instanceof RequestTimeoutError) {
      if (error === reason) return reason;
      return new RequestTimeoutError(
        {
          method: request.method,
          request: reason.request,
          deadline: reason.deadline,
          timeoutMs: reason.timeoutMs,
        },
        { cause: error },
      );
    }
    if (reason instanceof TimeoutError) {
      return new TimeoutError(
        `${request.method} ${request.path}: ${reason.message}`,
        reason.timeoutMs,
        { cause: error },
      );
    }
    return reason;
  }
  const code = (error as { code?: unknown } | null)?.code;
  return new LassoError(
    'LASSO_CONNECTION_FAILED',
    `${request.method} ${request.path}: connection failed${typeof code === 'string' ? ` (${code})` : ''}: ${errorMessage(error)}`,
    { cause: error },
  );
}
