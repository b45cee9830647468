import { describe, expect, it } from 'vitest';
import { parseGoDuration } from './duration.ts';

describe('parseGoDuration', () => {
  it.for([
    { text: '10s', ms: 10_000 },
    { text: '30s', ms: 30_000 },
    { text: '1m0s', ms: 60_000 },
    { text: '1.5s', ms: 1_500 },
    { text: '300ms', ms: 300 },
    { text: '1h2m3s', ms: 3_723_000 },
    { text: '0', ms: 0 },
    { text: '', ms: undefined },
    { text: '10', ms: undefined },
    { text: '-5s', ms: undefined },
    { text: '10 s', ms: undefined },
    { text: 'ten', ms: undefined },
  ])('reads $text', ({ text, ms }) => {
    expect(parseGoDuration(text)).toBe(ms);
  });
});
