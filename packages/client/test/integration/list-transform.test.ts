// Client.list's transformItem against startEnvironment() (and a real kube-apiserver with KUBEBUILDER_ASSETS): each
// item decoded from the body as it arrives, apiVersion and kind filled, the transform's result kept; the list's
// own fields (resourceVersion, continue) as the server sent them.
import { type Environment, startEnvironment } from '@lasso/envtest';
import type { ConfigMap } from 'kubernetes-types/core/v1.d.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, loadKubeConfig, RestTransport } from '../../src/index.ts';

let env: Environment;
let transport: RestTransport;
let configMaps: Client<ConfigMap>;

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  transport = new RestTransport(await loadKubeConfig({ path: env.kubeconfigPath }));
  configMaps = new Client<ConfigMap>({
    gvr: { group: '', version: 'v1', resource: 'configmaps' },
    kind: 'ConfigMap',
    namespaced: true,
    rest: transport,
  });
  for (let i = 0; i < 25; i++) {
    await configMaps.create(env.namespace, {
      metadata: { name: `cm-${String(i).padStart(2, '0')}`, labels: { app: 'x' } },
      data: { value: `"quoted" ]}{[ ${i} é` },
    });
  }
});

afterAll(async () => {
  await transport?.close();
  await env?.stop();
});

const lean = (item: ConfigMap): ConfigMap => {
  const { managedFields: _managedFields, ...metadata } = item.metadata ?? {};
  const { data } = item;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata, ...(data === undefined ? {} : { data }) };
};

describe('Client.list transformItem (integration)', () => {
  it('keeps what the transform returns for each item, filled first, whole list and in pages', async () => {
    const seen: ConfigMap[] = [];
    const whole = await configMaps.list(env.namespace, {
      resourceVersion: '0',
      transformItem: (item) => {
        seen.push(item);
        return lean(item);
      },
    });
    expect(whole.items).toHaveLength(25);
    expect(seen).toHaveLength(25);
    expect(seen.every((item) => item.apiVersion === 'v1' && item.kind === 'ConfigMap')).toBe(true);
    expect(whole.items.every((item) => item.metadata?.managedFields === undefined)).toBe(true);
    expect(whole.items.map((item) => item.data?.value)).toContain('"quoted" ]}{[ 7 é');
    expect(whole.metadata.resourceVersion).toMatch(/^\d+$/);
    const plain = await configMaps.list(env.namespace, {
      resourceVersion: whole.metadata.resourceVersion,
      resourceVersionMatch: 'Exact',
    });
    // The watch cache (rv "0") answers in its own order on a real kube-apiserver.
    const byName = (a: ConfigMap, b: ConfigMap) =>
      (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
    expect([...whole.items].sort(byName)).toEqual(plain.items.map(lean).sort(byName));

    const first = await configMaps.list(env.namespace, { limit: 10, transformItem: lean });
    expect(first.items).toHaveLength(10);
    expect(first.metadata.continue).toBeTruthy();
    const second = await configMaps.list(env.namespace, {
      limit: 10,
      continue: first.metadata.continue,
      transformItem: lean,
    });
    expect(second.items[0]?.metadata?.name).toBe('cm-10');
  });

  it('fails the list with the error the transform throws', async () => {
    const boom = new Error('cannot transform');
    await expect(
      configMaps.list(env.namespace, {
        transformItem: () => {
          throw boom;
        },
      }),
    ).rejects.toBe(boom);
    // The client still lists afterwards (the failed body was released).
    expect((await configMaps.list(env.namespace, { limit: 1 })).items).toHaveLength(1);
  });
});
