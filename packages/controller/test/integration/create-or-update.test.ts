// createOrUpdate and applyObject against a Kubernetes API server (the built-in one, or a real kube-apiserver
// through KUBEBUILDER_ASSETS / LASSO_TEST_KUBECONFIG): what the server stored is read back.
import { Client, loadKubeConfig, type RestConfig } from '@lasso/client';
import { type Environment, startEnvironment } from '@lasso/envtest';
import type { ConfigMap, Namespace } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyObject } from '../../src/apply.ts';
import { createOrUpdate } from '../../src/create-or-update.ts';

let env: Environment;
let rest: RestConfig;
let configMaps: Client<ConfigMap>;
let namespace: string;

beforeAll(async () => {
  env = await startEnvironment();
  rest = await loadKubeConfig({ path: env.kubeconfigPath });
  configMaps = new Client<ConfigMap>({
    gvr: { group: '', version: 'v1', resource: 'configmaps' },
    kind: 'ConfigMap',
    namespaced: true,
    rest,
  });
  const namespaces = new Client<Namespace>({
    gvr: { group: '', version: 'v1', resource: 'namespaces' },
    kind: 'Namespace',
    namespaced: false,
    rest,
  });
  namespace = `create-or-update-${process.pid}`;
  await namespaces.create(undefined, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

const configMap = (name: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name },
});

describe('createOrUpdate', () => {
  it('creates, updates, leaves unchanged, and updates after a stale cache miss', async () => {
    const signal = new AbortController().signal;
    const color = (value: string) => (cm: ConfigMap) => {
      cm.data = { ...cm.data, color: value };
    };
    const created = await createOrUpdate(configMaps, configMap('settings'), color('blue'), {
      signal,
    });
    expect(created.operation).toBe('created');
    const updated = await createOrUpdate(configMaps, configMap('settings'), color('red'), {
      signal,
    });
    expect(updated.operation).toBe('updated');
    const unchanged = await createOrUpdate(configMaps, configMap('settings'), color('red'));
    expect(unchanged.operation).toBe('unchanged');
    expect(unchanged.object.metadata?.resourceVersion).toBe(
      updated.object.metadata?.resourceVersion,
    );
    // A cache that has not seen the object yet: the create meets AlreadyExists and it updates.
    const stale = await createOrUpdate(configMaps, configMap('settings'), color('green'), {
      lister: () => undefined,
    });
    expect(stale.operation).toBe('updated');
    // A cache one version behind: the update meets a Conflict, reads the server, and retries.
    const behind = await createOrUpdate(configMaps, configMap('settings'), color('white'), {
      lister: () => created.object,
    });
    expect(behind.operation).toBe('updated');
    const stored = await configMaps.get(namespace, 'settings');
    expect(stored.data).toEqual({ color: 'white' });
  });
});

describe('the owner option', () => {
  it('createOrUpdate and applyObject write the controller reference the server stores', async () => {
    const signal = new AbortController().signal;
    const source = await configMaps.create(namespace, configMap('owner-source'), { signal });
    const reference = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'owner-source',
      uid: source.metadata?.uid,
      controller: true,
      blockOwnerDeletion: true,
    };
    const created = await createOrUpdate(
      configMaps,
      configMap('owner-copy'),
      (cm) => {
        cm.data = { color: 'BLUE' };
      },
      { signal, owner: source },
    );
    expect(created.object.metadata?.ownerReferences).toEqual([reference]);
    const again = await createOrUpdate(
      configMaps,
      configMap('owner-copy'),
      (cm) => {
        cm.data = { color: 'BLUE' };
      },
      { signal, owner: source },
    );
    expect(again.operation).toBe('unchanged');
    const applied = await applyObject(
      configMaps,
      { ...configMap('owner-applied'), data: { a: 'b' } },
      { fieldManager: 'owner-test', signal, owner: source },
    );
    expect(applied.metadata?.ownerReferences).toEqual([reference]);
  });
});

describe('applyObject', () => {
  it('creates and updates through server-side apply, owning the fields it sent', async () => {
    const applied = await applyObject(
      configMaps,
      { ...configMap('applied'), data: { color: 'blue', size: 'L' } },
      { fieldManager: 'lasso-test' },
    );
    expect(applied.data).toEqual({ color: 'blue', size: 'L' });
    // Another manager takes one field; a forced apply takes it back, and a dropped field is removed.
    await configMaps.apply(
      namespace,
      { ...configMap('applied'), data: { color: 'red' } },
      { fieldManager: 'someone-else', force: true },
    );
    const reapplied = await applyObject(
      configMaps,
      // As read from a cache: server-set metadata is left out of the body.
      { ...applied, data: { color: 'blue' } },
      { fieldManager: 'lasso-test' },
    );
    expect(reapplied.data).toEqual({ color: 'blue' });
    const managers = reapplied.metadata?.managedFields?.map((entry) => entry.manager);
    expect(managers).toContain('lasso-test');
    // Without force, a field another manager owns is a 409 Conflict.
    await configMaps.apply(
      namespace,
      { ...configMap('applied'), data: { color: 'red' } },
      { fieldManager: 'someone-else', force: true },
    );
    await expect(
      applyObject(
        configMaps,
        { ...configMap('applied'), data: { color: 'blue' } },
        { fieldManager: 'lasso-test', force: false },
      ),
    ).rejects.toMatchObject({ status: 409 });
  });
});
