// lasso's factory wrappers against an API server: the User-Agent a wrapped factory's clients send is what the
// server records as the field manager (both kube-apiserver and the built-in server take it from the User-Agent's
// product), and an impersonating factory's requests are judged as the impersonated user.
import { isForbidden } from '@lasso/client';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSharedClientFactory,
  createSharedControllerFactoryFromConfig,
  sharedClientFactoryWithAgent,
  sharedClientFactoryWithImpersonation,
  sharedControllerFactoryWithAgent,
  sharedControllerWithAgent,
  withClientMutator,
} from '../../src/index.ts';
import { startCluster, type TestCluster } from './helpers.ts';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

const configMapKind = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

function configMap(name: string, namespace: string): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { a: '1' } };
}

function managerOf(object: ConfigMap): string | undefined {
  return object.metadata?.managedFields?.[0]?.manager;
}

describe('factory wrappers (lasso WithAgent / WithImpersonation)', { timeout: 60_000 }, () => {
  it("a client factory with an agent writes with that User-Agent; the factory's own clients are unchanged", async () => {
    const namespace = await cluster.namespace('agent');
    await using clients = createSharedClientFactory(cluster.admin);
    const janitor = sharedClientFactoryWithAgent(clients, 'cm-janitor/1.0');
    const mutated = await janitor.forKind<ConfigMap>(configMapKind);
    expect(await janitor.forKind<ConfigMap>(configMapKind)).toBe(mutated); // one view per client
    // forResourceKind stays synchronous, as the interface says.
    const direct = janitor.forResourceKind<ConfigMap>(
      { group: '', version: 'v1', resource: 'configmaps' },
      'ConfigMap',
      true,
    );
    expect(direct).toBe(mutated);
    const created = await mutated.create(namespace, configMap('by-janitor', namespace));
    expect(managerOf(created)).toBe('cm-janitor');
    const plain = await clients.forKind<ConfigMap>(configMapKind);
    expect(plain).not.toBe(mutated);
    const other = await plain.create(namespace, configMap('by-factory', namespace));
    expect(managerOf(other)).not.toBe('cm-janitor');
    // Everything but the lookups is the factory's own.
    expect(janitor.transport).toBe(clients.transport);
    expect(await janitor.isNamespaced(configMapKind)).toBe(true);
    expect(() => sharedClientFactoryWithAgent(clients, '')).toThrow(/userAgent/);
    expect(() => withClientMutator(clients, 'x' as never)).toThrow(/mutate/);
  });

  it('an impersonating client factory is judged as the impersonated user', async () => {
    const namespace = await cluster.namespace('impersonate');
    await using clients = createSharedClientFactory(cluster.admin);
    const asNobody = sharedClientFactoryWithImpersonation(clients, { user: 'nobody-at-all' });
    const configMaps = await asNobody.forResourceKind<ConfigMap>(
      { group: '', version: 'v1', resource: 'configmaps' },
      'ConfigMap',
      true,
    );
    const denied = await configMaps
      .create(namespace, configMap('denied', namespace))
      .catch((error: unknown) => error);
    expect(isForbidden(denied)).toBe(true);
    expect(String((denied as Error).message)).toContain('nobody-at-all');
    // The factory itself still writes as the admin.
    const admin = await clients.forKind<ConfigMap>(configMapKind);
    await expect(admin.create(namespace, configMap('allowed', namespace))).resolves.toBeDefined();
    expect(() => sharedClientFactoryWithImpersonation(clients, { user: '' })).toThrow(/user/);
  });

  it('a controller factory with an agent hands out shared controllers whose client() writes with it', async () => {
    const namespace = await cluster.namespace('ctl-agent');
    const factory = createSharedControllerFactoryFromConfig(cluster.admin);
    try {
      const wrapped = sharedControllerFactoryWithAgent(factory, 'derive-ctl/3');
      const shared = await wrapped.forKind<ConfigMap>(configMapKind);
      expect(await wrapped.forKind<ConfigMap>(configMapKind)).toBe(shared);
      const created = await shared
        .client()
        .create(namespace, configMap('from-factory-view', namespace));
      expect(managerOf(created)).toBe('derive-ctl');
      // The same controller underneath: its informer is the factory's.
      const own = await factory.forKind<ConfigMap>(configMapKind);
      expect(shared.informer()).toBe(own.informer());
      const single = sharedControllerWithAgent(own, 'one-ctl/1');
      const alone = await single.client().create(namespace, configMap('from-one', namespace));
      expect(managerOf(alone)).toBe('one-ctl');
      expect(
        managerOf(await own.client().create(namespace, configMap('plain', namespace))),
      ).not.toBe('one-ctl');
    } finally {
      await factory.close();
    }
  });
});
