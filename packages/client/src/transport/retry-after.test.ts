import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after.ts';

describe('parseRetryAfter', () => {
  it.for([
    { name: 'delta seconds', value: '5', expected: 5000 },
    { name: 'an HTTP date', value: new Date(10_000).toUTCString(), expected: 10_000 },
    { name: 'garbage', value: 'soon', expected: undefined },
    { name: 'nothing', value: undefined, expected: undefined },
  ])('parses $name', ({ value, expected }) => {
    expect(parseRetryAfter(value, 0)).toBe(expected);
  });
});
