// The JSON forms Go's encoding/json gives the apimachinery types that have their own protobuf messages:
// metav1.Time and MicroTime (RFC 3339 in UTC), metav1.Duration (time.Duration.String) and base64 bytes.

/** metav1.Time's JSON: RFC 3339 in UTC at second precision (`2024-05-01T10:00:00Z`). */
export function formatTime(seconds: bigint, nanos: number): string {
  const date = new Date(Number(seconds) * 1000 + Math.floor(nanos / 1_000_000));
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** metav1.MicroTime's JSON: RFC 3339 in UTC with six fractional digits (`2024-05-01T10:00:00.000123Z`). */
export function formatMicroTime(seconds: bigint, nanos: number): string {
  const date = new Date(Number(seconds) * 1000);
  const micros = String(Math.floor(nanos / 1000)).padStart(6, '0');
  return `${date.toISOString().slice(0, 19)}.${micros}Z`;
}

const nanosecond = 1n;
const microsecond = 1000n * nanosecond;
const millisecond = 1000n * microsecond;
const second = 1000n * millisecond;
const minute = 60n * second;
const hour = 60n * minute;

/** A decimal with the trailing zeros of its fraction dropped, as Go's duration formatting prints. */
function fraction(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const rest = value % unit;
  if (rest === 0n) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}

/** Go's `time.Duration.String()` of a nanosecond count: `1h0m0s`, `1m30s`, `1.5s`, `250ms`, `0s`. */
export function formatDuration(nanoseconds: bigint): string {
  if (nanoseconds === 0n) return '0s';
  const sign = nanoseconds < 0n ? '-' : '';
  const value = nanoseconds < 0n ? -nanoseconds : nanoseconds;
  if (value < microsecond) return `${sign}${value}ns`;
  if (value < millisecond) return `${sign}${fraction(value, microsecond)}µs`;
  if (value < second) return `${sign}${fraction(value, millisecond)}ms`;
  const hours = value / hour;
  const minutes = (value % hour) / minute;
  const seconds = fraction(value % minute, second);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** Standard base64, as Go's encoding/json writes a `[]byte`. */
export function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}
