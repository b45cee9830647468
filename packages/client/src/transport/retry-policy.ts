// When a request is sent again (client-go rest.Request: MaxRetries, checkWait, isErrRetryableFunc).

/**
 * Retries on 429 / 5xx with Retry-After and of GETs that lost their connection, as client-go's
 * `Request.MaxRetries`.
 */
export const MAX_RETRIES = 10;

/**
 * Retry-After of a 429 that carries none, and the wait before a GET that lost its connection is
 * sent again (client-go waits 1 s for both: its `retryAfterResponse()`).
 */
export const DEFAULT_RETRY_AFTER_MS = 1_000;

/**
 * The wait before answer `status` (with Retry-After `retryAfterMs`, if any) is retried, or
 * undefined when it is not: a 429 always, a 5xx only with Retry-After (client-go's `checkWait`),
 * and never after `MAX_RETRIES` retries.
 */
export function throttleDelayMs(
  status: number,
  retryAfterMs: number | undefined,
  attempt: number,
): number | undefined {
  if (attempt >= MAX_RETRIES) return undefined;
  if (status === 429) return retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
  if (status >= 500 && retryAfterMs !== undefined) return retryAfterMs;
  return undefined;
}
