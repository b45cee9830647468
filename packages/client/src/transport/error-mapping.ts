// Errors of a failed request: an ApiError from the answer (apimachinery's errors.FromObject /
// client-go's transformResponse), or the abort reason, a timeout or a connection failure.
import { abortReason, errorMessage, LassoError, TimeoutError } from '@lasso/core';
import { ApiError, reasonForStatus } from '../errors.ts';
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
  const snippet = parsed === undefined && text !== '' ? `: ${text.slice(0, 200).trim()}` : '';
  return new ApiError({
    status: statusCode,
    message: `the server responded ${statusCode} ${reasonForStatus(statusCode)}${snippet}`,
    retryAfterMs,
    request: info,
  });
}

/** The error of a 2xx answer whose body is not JSON. */
export function notJsonError(request: FailedRequest, statusCode: number): LassoError {
  // No cause: JSON.parse's message quotes the body, which may hold Secret data.
  return new LassoError(
    'LASSO_API_ERROR',
    `${request.method} ${request.path}: the server answered ${statusCode} with a body that is not JSON`,
  );
}

/** The error to throw when undici failed: the abort reason, a timeout, or a connection failure. */
export function requestFailure(
  request: FailedRequest,
  error: unknown,
  signal: AbortSignal | undefined,
): Error {
  if (signal?.aborted) {
    const reason = abortReason(signal);
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
