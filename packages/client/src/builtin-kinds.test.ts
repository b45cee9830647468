import { describe, expect, it } from 'vitest';
import {
  builtinEntries,
  builtinKinds,
  builtinMappingFor,
  splitApiVersion,
} from './builtin-kinds.ts';

describe('builtinKinds', () => {
  it('is frozen, so no caller can change what every Client is checked against', () => {
    expect(Object.isFrozen(builtinKinds)).toBe(true);
    expect(Object.isFrozen(builtinKinds.v1)).toBe(true);
    expect(Object.isFrozen(builtinKinds.v1.ConfigMap)).toBe(true);
  });

  it('names each resource once per apiVersion, in lower-case plural form', () => {
    for (const [apiVersion, kinds] of Object.entries(builtinKinds)) {
      const resources = Object.values(kinds).map((served) => served.resource);
      expect(new Set(resources).size, apiVersion).toBe(resources.length);
      for (const resource of resources) expect(resource).toMatch(/^[a-z]+s$/);
    }
  });
});

describe('builtinMappingFor', () => {
  it.for([
    {
      name: 'maps a core kind',
      apiVersion: 'v1',
      kind: 'ConfigMap',
      expected: {
        gvr: { group: '', version: 'v1', resource: 'configmaps' },
        gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
        namespaced: true,
      },
    },
    {
      name: 'maps a kind of a named group',
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      expected: {
        gvr: { group: 'apps', version: 'v1', resource: 'deployments' },
        gvk: { group: 'apps', version: 'v1', kind: 'Deployment' },
        namespaced: true,
      },
    },
    {
      name: 'misses a custom kind',
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      expected: undefined,
    },
    {
      name: 'misses a kind in the wrong apiVersion',
      apiVersion: 'v1',
      kind: 'Deployment',
      expected: undefined,
    },
    { name: 'misses inherited names', apiVersion: 'v1', kind: 'toString', expected: undefined },
    {
      name: 'misses an inherited apiVersion',
      apiVersion: 'constructor',
      kind: 'name',
      expected: undefined,
    },
  ])('$name', ({ apiVersion, kind, expected }) => {
    expect(builtinMappingFor(apiVersion, kind)).toEqual(expected);
  });
});

describe('builtinEntries', () => {
  it('finds an entry by resource and by kind', () => {
    const { byResource, byKind } = builtinEntries('v1', 'configmaps', 'Pod');
    expect(byResource).toMatchObject({ kind: 'ConfigMap', namespaced: true });
    expect(byKind).toMatchObject({ resource: 'pods' });
  });
});

describe('splitApiVersion', () => {
  it.for([
    { name: 'core', apiVersion: 'v1', expected: { group: '', version: 'v1' } },
    { name: 'named group', apiVersion: 'apps/v1', expected: { group: 'apps', version: 'v1' } },
  ])('splits a $name apiVersion', ({ apiVersion, expected }) => {
    expect(splitApiVersion(apiVersion)).toEqual(expected);
  });

  it.for(['', '/v1', 'apps/', 'a/b/c'])(
    'throws a TypeError naming apiVersion for %j',
    (apiVersion) => {
      expect(() => splitApiVersion(apiVersion)).toThrow(TypeError);
      expect(() => splitApiVersion(apiVersion)).toThrow('apiVersion');
    },
  );
});
