import { describe, expect, it } from 'vitest';
import { base64Of, formatDuration, formatMicroTime, formatTime } from './go-json.ts';

describe('formatDuration()', () => {
  // Cases of Go's time.Duration.String (TestDurationString in src/time/time_test.go).
  it.for([
    { name: 'zero', ns: 0n, text: '0s' },
    { name: 'nanoseconds', ns: 1n, text: '1ns' },
    { name: 'microseconds', ns: 1100n, text: '1.1µs' },
    { name: 'milliseconds', ns: 2_200_000n, text: '2.2ms' },
    { name: 'seconds', ns: 3_300_000_000n, text: '3.3s' },
    { name: 'minutes and seconds', ns: 4n * 60_000_000_000n + 5_000_000_000n, text: '4m5s' },
    { name: 'hours', ns: 3_600_000_000_000n, text: '1h0m0s' },
    { name: 'negative', ns: -1_500_000_000n, text: '-1.5s' },
  ])('formats $name', ({ ns, text }) => {
    expect(formatDuration(ns)).toBe(text);
  });
});

describe('formatTime()', () => {
  it('drops the fraction and writes UTC', () => {
    expect(formatTime(0n, 999_999_999)).toBe('1970-01-01T00:00:00Z');
  });
});

describe('formatMicroTime()', () => {
  it('keeps microseconds', () => {
    expect(formatMicroTime(60n, 5_000)).toBe('1970-01-01T00:01:00.000005Z');
  });
});

describe('base64Of()', () => {
  it('encodes a view into a larger buffer by its own bytes', () => {
    expect(base64Of(Uint8Array.of(9, 0, 255, 9).subarray(1, 3))).toBe('AP8=');
  });
});
