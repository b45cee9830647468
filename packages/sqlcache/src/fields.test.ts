import { describe, expect, it } from 'vitest';
import {
  canonicalFieldPath,
  extractField,
  fieldText,
  labelKeyOf,
  parseFieldPath,
} from './fields.ts';

describe('parseFieldPath', () => {
  it('reads dotted keys, [key] with dots and slashes, and [N] indices', () => {
    expect(parseFieldPath('metadata.labels[app.kubernetes.io/name]')).toEqual([
      { key: 'metadata' },
      { key: 'labels' },
      { key: 'app.kubernetes.io/name' },
    ]);
    expect(parseFieldPath('spec.containers[0].image')).toEqual([
      { key: 'spec' },
      { key: 'containers' },
      { index: 0 },
      { key: 'image' },
    ]);
  });

  it.for(['', '.a', 'a.', 'a..b', 'a[', 'a[]', 'a[0]b'])('refuses %j', (path) => {
    expect(() => parseFieldPath(path)).toThrow(TypeError);
  });

  it('gives one canonical spelling per field', () => {
    expect(canonicalFieldPath('metadata.labels[app]')).toBe('metadata.labels.app');
    expect(canonicalFieldPath('metadata.labels[a.b/c]')).toBe('metadata.labels[a.b/c]');
    expect(canonicalFieldPath('a[3].b')).toBe('a[3].b');
  });

  it('recognises label paths', () => {
    expect(labelKeyOf(parseFieldPath('metadata.labels[a.b/c]'))).toBe('a.b/c');
    expect(labelKeyOf(parseFieldPath('metadata.annotations.x'))).toBeUndefined();
    expect(labelKeyOf(parseFieldPath('metadata.labels'))).toBeUndefined();
  });
});

describe('extractField', () => {
  const object = {
    spec: {
      list: [{ k: 'a' }, { k: 'b' }, { other: 1 }],
      nested: [{ deeper: [{ k: 'x' }] }],
      scalars: ['x', 2, true, null],
      map: { a: 1 },
    },
  };
  const at = (path: string) => extractField(object, parseFieldPath(path));

  it('collects the last key over an array of maps', () => {
    expect(at('spec.list.k')).toBe('a|b|');
    expect(at('spec.list[1].k')).toBe('b');
  });

  it('gives "" for missing values and for keys that do not exist on the way', () => {
    expect(at('spec.missing.deep')).toBe('');
    expect(at('spec.list[9].k')).toBe('');
    expect(at('spec.nested.deeper.k')).toBe('');
    expect(at('spec.scalars.x')).toBe('');
  });

  it('joins arrays of scalars and refuses maps', () => {
    expect(at('spec.scalars')).toBe('x|2|true|');
    expect(() => at('spec.map')).toThrow(TypeError);
    expect(() => fieldText([[1]])).toThrow(/nested array/);
  });

  it('does not read inherited properties', () => {
    expect(extractField({}, parseFieldPath('constructor'))).toBe('');
  });
});
