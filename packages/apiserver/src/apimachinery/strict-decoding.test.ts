import { describe, expect, it } from 'vitest';
import { goCompactJson, goValueString } from './go-format.ts';
import { scanFields, strictErrorsInOrder, strictWarning } from './strict-decoding.ts';

describe('scanFields', () => {
  it('finds duplicate fields at any depth, with kube paths, in document order', () => {
    const scan = scanFields(
      '{"metadata":{"name":"a","name":"b"},"spec":{"x":1,"list":[{"k":"v","k":"w"}],"x":2}}',
    );
    expect(scan.duplicates.map((duplicate) => duplicate.path)).toEqual([
      'metadata.name',
      'spec.list[0].k',
      'spec.x',
    ]);
    const position = (path: string) => scan.positions.get(path) ?? -1;
    expect(position('metadata.name')).toBeLessThan(position('spec.x'));
    expect(position('spec.x')).toBeLessThan(position('spec.list[0].k'));
  });

  it('reads keys with escapes and colons inside strings without confusion', () => {
    const scan = scanFields('[{"op":"a:b","path":"\\"x\\"","path":"y"}, "s", 1, {"op":"c"}]');
    expect(scan.duplicates.map((duplicate) => duplicate.path)).toEqual(['[0].path']);
    expect(scan.positions.has('[3].op')).toBe(true);
  });
});

describe('strictErrorsInOrder', () => {
  it('interleaves duplicates and unknown fields by position and skips duplicates inside unknown ones', () => {
    const scan = scanFields('{"a":{"b":1,"b":2},"c":1,"c":2,"d":{"e":1}}');
    expect(strictErrorsInOrder(scan, ['a', 'd.e'])).toEqual([
      'unknown field "a"',
      'duplicate field "c"',
      'unknown field "d.e"',
    ]);
  });
});

describe('Go renderings', () => {
  it('prints a decoded map as fmt %+v does', () => {
    expect(goValueString({ spec: { b: [1, 'x', true], a: null, f: 1.5 } })).toBe(
      'map[spec:map[a:<nil> b:[1 x true] f:1.5]]',
    );
  });

  it('encodes a document as encoding/json does for a map: sorted and HTML-safe', () => {
    expect(goCompactJson({ b: '<&>', a: { d: 1, c: [] } })).toBe(
      '{"a":{"c":[],"d":1},"b":"\\u003c\\u0026\\u003e"}',
    );
  });

  it('words a warning as kube-apiserver does', () => {
    expect(strictWarning('unknown field "spec.x"')).toBe('299 - "unknown field \\"spec.x\\""');
  });
});
