// Ports the behaviours of controller-runtime pkg/controller/controllerutil/controllerutil_test.go
// (SetControllerReference) and apimachinery's controller_ref_test.go (own tests, not copies).
import { isLassoError } from '@lasso/core';
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { describe, expect, it } from 'vitest';
import {
  AlreadyOwnedError,
  getControllerOf,
  isControlledBy,
  setControllerReference,
} from './owner-references.ts';

const owner = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', uid: 'uid-web' },
};

function configMap(namespace: string | undefined, ownerReferences?: OwnerReference[]): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'settings',
      ...(namespace === undefined ? {} : { namespace }),
      ...(ownerReferences === undefined ? {} : { ownerReferences }),
    },
  };
}

describe('setControllerReference', () => {
  it('adds a controller reference that blocks owner deletion', () => {
    const result = setControllerReference(owner, configMap('default'));
    expect(result.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'web',
        uid: 'uid-web',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });

  it('returns a copy and leaves the input untouched', () => {
    const references: OwnerReference[] = [];
    const input = configMap('default', references);
    const result = setControllerReference(owner, input);
    expect(result).not.toBe(input);
    expect(input.metadata?.ownerReferences).toBe(references);
    expect(references).toEqual([]);
    expect(result.data).toBe(input.data);
  });

  it('keeps owner references that are not controllers', () => {
    const other: OwnerReference = { apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'uid-s' };
    const result = setControllerReference(owner, configMap('default', [other]));
    expect(result.metadata?.ownerReferences?.map((reference) => reference.kind)).toEqual([
      'Secret',
      'Deployment',
    ]);
  });

  // TestSetControllerReference: "should update the reference if the same owner is set again".
  it('replaces the entry of the same owner, taking its new version and uid', () => {
    const first = setControllerReference(owner, configMap('default'));
    const recreated = {
      ...owner,
      apiVersion: 'apps/v1beta1',
      metadata: { ...owner.metadata, uid: 'uid-web-2' },
    };
    const second = setControllerReference(recreated, first);
    expect(second.metadata?.ownerReferences).toHaveLength(1);
    expect(second.metadata?.ownerReferences?.[0]).toMatchObject({
      apiVersion: 'apps/v1beta1',
      uid: 'uid-web-2',
    });
  });

  it('is idempotent for the same owner', () => {
    const once = setControllerReference(owner, configMap('default'));
    expect(setControllerReference(owner, once)).toEqual(once);
  });

  it('honours blockOwnerDeletion: false', () => {
    const result = setControllerReference(owner, configMap('default'), {
      blockOwnerDeletion: false,
    });
    expect(result.metadata?.ownerReferences?.[0]?.blockOwnerDeletion).toBe(false);
  });

  it('refuses a second controller with an AlreadyOwnedError naming both', () => {
    const owned = setControllerReference(owner, configMap('default'));
    const other = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'default', uid: 'uid-db' },
    };
    let caught: unknown;
    try {
      setControllerReference(other, owned);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AlreadyOwnedError);
    expect(isLassoError(caught, 'LASSO_ALREADY_OWNED')).toBe(true);
    const error = caught as AlreadyOwnedError;
    expect(error.existing).toMatchObject({ kind: 'Deployment', name: 'web', uid: 'uid-web' });
    expect(error.object).toBe('default/settings');
    expect(error.message).toContain('Deployment.apps web');
    expect(error.message).toContain('StatefulSet.apps db');
  });

  it.for([
    {
      name: 'a different group',
      apiVersion: 'example.com/v1',
      kind: 'Deployment',
      ownerName: 'web',
    },
    { name: 'a different kind', apiVersion: 'apps/v1', kind: 'DaemonSet', ownerName: 'web' },
    { name: 'a different name', apiVersion: 'apps/v1', kind: 'Deployment', ownerName: 'api' },
  ])('treats an owner with $name as another owner', ({ apiVersion, kind, ownerName }) => {
    const owned = setControllerReference(owner, configMap('default'));
    const other = {
      apiVersion,
      kind,
      metadata: { name: ownerName, namespace: 'default', uid: 'x' },
    };
    expect(() => setControllerReference(other, owned)).toThrow(AlreadyOwnedError);
  });

  it('lets a cluster-scoped owner own a namespaced object', () => {
    const namespace: Namespace = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team', uid: 'uid-team' },
    };
    const result = setControllerReference(namespace, configMap('team'));
    expect(getControllerOf(result)?.name).toBe('team');
  });

  it('lets a cluster-scoped owner own a cluster-scoped object', () => {
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 't', uid: 'u' } };
    expect(getControllerOf(setControllerReference(namespace, configMap(undefined)))?.uid).toBe('u');
  });

  it.for([
    { name: 'a cluster-scoped object', namespace: undefined, message: /cluster-scoped/ },
    { name: 'an object in another namespace', namespace: 'other', message: /cross-namespace/ },
  ])('refuses a namespaced owner for $name', ({ namespace, message }) => {
    expect(() => setControllerReference(owner, configMap(namespace))).toThrow(RangeError);
    expect(() => setControllerReference(owner, configMap(namespace))).toThrow(message);
  });

  it.for([
    { name: 'apiVersion', owner: { ...owner, apiVersion: undefined } },
    { name: 'kind', owner: { ...owner, kind: '' } },
    { name: 'metadata.name', owner: { ...owner, metadata: { uid: 'u', namespace: 'default' } } },
    { name: 'metadata.uid', owner: { ...owner, metadata: { name: 'web', namespace: 'default' } } },
  ])('throws a TypeError naming owner.$name when it is missing', ({ name, owner: incomplete }) => {
    expect(() => setControllerReference(incomplete, configMap('default'))).toThrow(TypeError);
    expect(() => setControllerReference(incomplete, configMap('default'))).toThrow(`owner.${name}`);
  });
});

describe('getControllerOf', () => {
  it('returns the reference with controller: true', () => {
    const object = configMap('default', [
      { apiVersion: 'v1', kind: 'Secret', name: 'a', uid: 'a' },
      { apiVersion: 'v1', kind: 'Secret', name: 'b', uid: 'b', controller: false },
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'c', controller: true },
    ]);
    expect(getControllerOf(object)?.name).toBe('web');
  });

  it('returns undefined without a controller reference', () => {
    expect(getControllerOf(configMap('default'))).toBeUndefined();
    expect(getControllerOf({})).toBeUndefined();
  });
});

describe('isControlledBy', () => {
  it('compares the controller reference by uid', () => {
    const owned = setControllerReference(owner, configMap('default'));
    expect(isControlledBy(owned, owner)).toBe(true);
    const recreated = { ...owner, metadata: { ...owner.metadata, uid: 'uid-other' } };
    expect(isControlledBy(owned, recreated)).toBe(false);
  });

  it('is false for an owner without uid and for an uncontrolled object', () => {
    expect(isControlledBy(configMap('default'), owner)).toBe(false);
    const owned = setControllerReference(owner, configMap('default'));
    expect(isControlledBy(owned, { metadata: { name: 'web' } })).toBe(false);
  });
});
