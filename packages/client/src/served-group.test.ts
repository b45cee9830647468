import { describe, expect, it } from 'vitest';
import { servedGroupOf } from './served-group.ts';

describe('servedGroupOf', () => {
  it('reads spec.group of a CRD or an APIService', () => {
    expect(
      servedGroupOf({ kind: 'CustomResourceDefinition', spec: { group: 'example.com' } }),
    ).toBe('example.com');
    expect(servedGroupOf({ kind: 'APIService', spec: { group: 'metrics.k8s.io' } })).toBe(
      'metrics.k8s.io',
    );
  });

  it('is undefined when the object does not say', () => {
    expect(
      servedGroupOf({ kind: 'APIService', metadata: { name: 'v1.' }, spec: {} }),
    ).toBeUndefined();
    expect(servedGroupOf({ spec: { group: 42 } })).toBeUndefined();
    expect(servedGroupOf(undefined)).toBeUndefined();
    expect(servedGroupOf(null)).toBeUndefined();
    expect(servedGroupOf('example.com')).toBeUndefined();
  });
});
