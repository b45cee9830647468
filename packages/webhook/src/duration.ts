// Go's time.Duration text (`10s`, `1m30s`, `1.5s`, `300ms`), as kube-apiserver writes the `?timeout=` of a webhook
// call (client-go's request.Timeout puts `timeout.String()` in the query).

const units: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * Milliseconds of a Go duration string, or `undefined` when `text` is not one (or is negative). `0` is zero.
 *
 * @internal
 */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  if (text === '' || text.length > 64) return undefined;
  let total = 0;
  part.lastIndex = 0;
  let offset = 0;
  while (offset < text.length) {
    part.lastIndex = offset;
    const match = part.exec(text);
    if (match === null) return undefined;
    total += Number(match[1]) * (units[match[2] as string] as number);
    offset = part.lastIndex;
  }
  return Number.isFinite(total) ? total : undefined;
}
