import { beforeAll, describe, expect, it } from 'vitest';
import { parseQuantity } from './quantity.ts';
import { evaluateRules, loadCelEngine } from './rules.ts';

beforeAll(() => loadCelEngine());

describe('parseQuantity', () => {
  it.for([
    { text: '1', nanos: 1_000_000_000n },
    { text: '500m', nanos: 500_000_000n },
    { text: '1Ki', nanos: 1024_000_000_000n },
    { text: '1.5Gi', nanos: 1_610_612_736_000_000_000n },
    { text: '2k', nanos: 2_000_000_000_000n },
    { text: '1e3', nanos: 1_000_000_000_000n },
    { text: '-0.5', nanos: -500_000_000n },
    { text: '1n', nanos: 1n },
  ])('reads $text', ({ text, nanos }) => {
    expect(parseQuantity(text)).toBe(nanos);
  });

  it('refuses what is not a quantity', () => {
    for (const text of ['', 'abc', '1Xi', '1.2.3', '1 Gi'])
      expect(parseQuantity(text)).toBeUndefined();
  });
});

describe('quantity functions', () => {
  it.for([
    "quantity('1Gi').isGreaterThan(quantity('500Mi'))",
    "quantity('100m').isLessThan(quantity('1'))",
    "quantity('1Ki').compareTo(quantity('1024')) == 0",
    "quantity('2').add(quantity('500m')).compareTo(quantity('2.5')) == 0",
    "quantity('2').sub(1).asInteger() == 1",
    "quantity('1.5').asApproximateFloat() == 1.5 && !quantity('1.5').isInteger()",
    "quantity('-3').sign() == -1",
    "isQuantity('10Mi') && !isQuantity('ten')",
  ])('evaluates %s', (rule) => {
    const schema = { type: 'object', 'x-kubernetes-validations': [{ rule }] };
    expect(evaluateRules({}, schema)).toEqual([]);
  });
});
