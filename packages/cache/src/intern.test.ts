import { describe, expect, it } from 'vitest';
import { createInternTable } from './intern.ts';

// String identity is not observable in JavaScript: these tests pin what the table holds (`has`, `size`) and
// that it always returns an equal string. What interning saves on the heap is measured by W2 (BENCHMARKS.md).
describe('createInternTable', () => {
  it('holds each distinct string once and returns an equal string', () => {
    const table = createInternTable();
    expect(table.intern('2026-01-01T00:00:00Z')).toBe('2026-01-01T00:00:00Z');
    expect(table.intern(JSON.parse('"2026-01-01T00:00:00Z"') as string)).toBe(
      '2026-01-01T00:00:00Z',
    );
    expect(table.has('2026-01-01T00:00:00Z')).toBe(true);
    expect(table.has('2026-01-01T00:00:01Z')).toBe(false);
    expect(table.size).toBe(1);
  });

  it('never holds more than maxEntries strings, whatever the input', () => {
    const table = createInternTable({ maxEntries: 8 });
    for (let i = 0; i < 10_000; i++) {
      expect(table.intern(`unique-${i}`)).toBe(`unique-${i}`);
      expect(table.size).toBeLessThanOrEqual(8);
    }
    expect(table.size).toBeGreaterThanOrEqual(4);
    expect(table.has('unique-9999')).toBe(true);
    expect(table.has('unique-0')).toBe(false);
  });

  it('keeps a recurring string across generations while unique ones stream by', () => {
    const table = createInternTable({ maxEntries: 8 });
    table.intern('kube-system');
    for (let i = 0; i < 1_000; i++) {
      table.intern(`unique-${i}`);
      if (i % 3 === 0) table.intern('kube-system');
      expect(table.has('kube-system')).toBe(true);
    }
  });

  it('forgets a string that has not recurred for two generations', () => {
    const table = createInternTable({ maxEntries: 4 });
    table.intern('old-value');
    for (let i = 0; i < 4; i++) table.intern(`filler-${i}`);
    expect(table.has('old-value')).toBe(false);
    expect(table.size).toBeLessThanOrEqual(4);
  });

  it('returns strings longer than maxLength as given and does not hold them', () => {
    const table = createInternTable({ maxLength: 4 });
    expect(table.intern('abcde')).toBe('abcde');
    expect(table.has('abcde')).toBe(false);
    expect(table.intern('abcd')).toBe('abcd');
    expect(table.has('abcd')).toBe(true);
    expect(table.size).toBe(1);
  });

  it('refuses bad bounds with a RangeError naming the option', () => {
    expect(() => createInternTable({ maxEntries: 1 })).toThrow(/maxEntries/);
    expect(() => createInternTable({ maxEntries: 2.5 })).toThrow(RangeError);
    expect(() => createInternTable({ maxLength: 0 })).toThrow(/maxLength/);
    expect(() => createInternTable({ maxLength: Number.NaN })).toThrow(RangeError);
  });
});
