// Retry-After header parsing (client-go rest.Request's checkWait / retryAfterSeconds).

/** Retry-After in ms: delta-seconds, or an HTTP date relative to `nowMs`; undefined when absent or garbage. */
export function parseRetryAfter(
  value: string | string[] | undefined,
  nowMs = Date.now(),
): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
