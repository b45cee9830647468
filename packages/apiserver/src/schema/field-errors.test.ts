import { describe, expect, it } from 'vitest';
import {
  badValue,
  duplicateValue,
  goSyntax,
  invalidValue,
  notSupported,
  omitValue,
} from './field-errors.ts';

describe('goSyntax', () => {
  it('prints maps with sorted keys and lists as Go’s %#v does', () => {
    expect(goSyntax({ q: 1, extra: [true, 'a', null], n: 1.5 })).toBe(
      'map[string]interface {}{"extra":[]interface {}{true, "a", interface {}(nil)}, "n":1.5, "q":1}',
    );
  });
});

describe('badValue', () => {
  it.for([
    { name: 'a string', value: 'a"b', expected: '"a\\"b"' },
    { name: 'a number', value: 2.5, expected: '2.5' },
    { name: 'null', value: null, expected: 'null' },
    { name: 'a map', value: { k: 'a' }, expected: 'map[string]interface {}{"k":"a"}' },
  ])('renders $name', ({ value, expected }) => {
    expect(badValue(value)).toBe(expected);
  });
});

describe('notSupported', () => {
  it('lists non-string values as quoted JSON', () => {
    expect(notSupported('spec.e', 3, [1, 'a']).message).toBe(
      'Unsupported value: 3: supported values: "1", "a"',
    );
  });
});

describe('omitValue', () => {
  it('leaves the value out, as field.OmitValueType{} does', () => {
    expect(invalidValue('spec', omitValue, 'must hold').message).toBe('Invalid value: must hold');
    expect(invalidValue('spec', 'a', 'must hold').message).toBe('Invalid value: "a": must hold');
    expect(duplicateValue('spec', omitValue).message).toBe('Duplicate value');
  });
});
