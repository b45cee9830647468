// Unit tests of the Icecream label value (icecream.ts): always a valid label value, the name itself when it fits.
import { describe, expect, it } from 'vitest';
import { icecreamLabelValue, maxLabelValueLength } from './icecream.ts';

// apimachinery's IsValidLabelValue.
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

describe('icecreamLabelValue', () => {
  it('is the name itself up to 63 characters', () => {
    expect(icecreamLabelValue('vanilla')).toBe('vanilla');
    const longest = `a${'-'.repeat(61)}z`;
    expect(icecreamLabelValue(longest)).toBe(longest);
  });

  it.for([
    { name: '64 characters', value: 'a'.repeat(64) },
    {
      name: 'the longest name (253)',
      value: `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`,
    },
    { name: 'a cut that ends in a dot', value: `${'a'.repeat(51)}.${'b'.repeat(40)}` },
    { name: 'a cut that ends in dashes', value: `${'a'.repeat(48)}----${'b'.repeat(40)}` },
  ])('is a valid label value of at most 63 characters for $name', ({ value }) => {
    const label = icecreamLabelValue(value);
    expect(label.length).toBeLessThanOrEqual(maxLabelValueLength);
    expect(label).toMatch(labelValue);
    expect(label.startsWith(value.slice(0, 40))).toBe(true);
    expect(icecreamLabelValue(value)).toBe(label); // stable: selectors are immutable
  });

  it('keeps two long names with the same first 63 characters apart', () => {
    const prefix = 'x'.repeat(70);
    expect(icecreamLabelValue(`${prefix}-one`)).not.toBe(icecreamLabelValue(`${prefix}-two`));
  });
});
