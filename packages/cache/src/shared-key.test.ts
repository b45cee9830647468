import { describe, expect, it } from 'vitest';
import { DeletedFinalStateUnknown } from './delta-fifo.ts';
import { createSharedPrefixKeyFunc } from './shared-key.ts';
import { metaNamespaceKeyFunc } from './store.ts';

const inputs: unknown[] = [
  { metadata: { namespace: 'a', name: 'x' } },
  { metadata: { namespace: 'a', name: 'y' } },
  { metadata: { namespace: 'b', name: 'x' } },
  { metadata: { namespace: 'a', name: 'z' } },
  { metadata: { name: 'cluster-scoped' } },
  { metadata: { namespace: '', name: 'empty-namespace' } },
  { metadata: { namespace: 7, name: 'numeric-namespace' } },
  { metadata: { namespace: null, name: 'null-namespace' } },
  'ns/explicit-key',
  new DeletedFinalStateUnknown('ns/tombstone', { metadata: { namespace: 'other', name: 'n' } }),
  { metadata: { namespace: 'a/b', name: 'slash' } },
  JSON.parse('{"metadata":{"namespace":"__proto__","name":"p"}}'),
];

const bad: unknown[] = [
  null,
  undefined,
  3,
  {},
  { metadata: null },
  { metadata: { namespace: 'a' } },
  { metadata: { namespace: 'a', name: '' } },
  { metadata: { namespace: 'a', name: 5 } },
];

describe('createSharedPrefixKeyFunc', () => {
  it('returns metaNamespaceKeyFunc keys for every input, in any order', () => {
    const keyFunc = createSharedPrefixKeyFunc();
    for (const round of [inputs, [...inputs].reverse(), inputs]) {
      for (const input of round) expect(keyFunc(input)).toBe(metaNamespaceKeyFunc(input));
    }
  });

  it('throws what metaNamespaceKeyFunc throws', () => {
    const keyFunc = createSharedPrefixKeyFunc();
    keyFunc({ metadata: { namespace: 'a', name: 'x' } });
    for (const input of bad) {
      expect(() => metaNamespaceKeyFunc(input)).toThrow(TypeError);
      expect(() => keyFunc(input)).toThrow(TypeError);
    }
  });
});
