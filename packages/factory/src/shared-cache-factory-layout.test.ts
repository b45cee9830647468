// The informers of a kind lay out their cached objects alike in every factory of the process (the cache's default
// transform keeps one layout per kind for the whole process): the same hidden classes from one factory to the next,
// so no polymorphic code and no deoptimization per new factory.
import { setFlagsFromString } from 'node:v8';
import type { KubeObject, KubeObjectLike } from '@lasso/client';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeCluster, object } from './__fixtures__/fake-cluster.ts';
import { createSharedCacheFactory } from './shared-cache-factory.ts';

// V8's own test hook: whether two objects have the same hidden class (map). Read at parse time, so the flag is set
// before the function is compiled.
setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (
  a: object,
  b: object,
) => boolean;

const configMapGvk = { group: '', version: 'v1', kind: 'ConfigMap' } as const;
const secretGvk = { group: '', version: 'v1', kind: 'Secret' } as const;

/** An object as a kube-apiserver sends it: with managedFields (which the default transform drops). */
function served(kind: string, name: string): KubeObject {
  const served = object('v1', kind, name, 'team-a', { data: { key: name } });
  return {
    ...served,
    metadata: {
      ...served.metadata,
      managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
    },
  } as KubeObject;
}

const stops: AbortController[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
});

/** A new cache factory on `cluster`, started and synced; its cached objects of `kind`. */
async function cachedBy(
  cluster: FakeCluster,
  kind: typeof configMapGvk | typeof secretGvk,
  transform?: (object: KubeObjectLike) => KubeObjectLike,
): Promise<KubeObjectLike[]> {
  const caches = createSharedCacheFactory(cluster.clientFactory(), {
    clock: new FakeClock(),
    logger: createTestLogger(),
  });
  const stop = new AbortController();
  stops.push(stop);
  const informer = await caches.forKind(kind);
  if (transform !== undefined) informer.setTransform(transform as never);
  await caches.start(stop.signal);
  const synced = await caches.waitForCacheSync(stop.signal);
  expect([...synced.values()]).toEqual([true]);
  const objects = informer.getStore().list();
  stop.abort();
  await caches.stopped();
  return objects;
}

function cluster(): FakeCluster {
  const fake = new FakeCluster();
  fake.serve(configMapGvk, 'configmaps', true, [served('ConfigMap', 'a')]);
  fake.serve(secretGvk, 'secrets', true, [served('Secret', 's')]);
  return fake;
}

describe('the informers of two factories', () => {
  it('cache objects of a kind with the same hidden classes', async () => {
    const fake = cluster();
    const [first] = await cachedBy(fake, configMapGvk);
    const [second] = await cachedBy(fake, configMapGvk);
    expect(first?.metadata?.managedFields).toBeUndefined();
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    expect(haveSameMap(first as object, second as object)).toBe(true);
    expect(haveSameMap(first?.metadata as object, second?.metadata as object)).toBe(true);
  });

  it('lay out each kind on its own (per-kind layouts stay)', async () => {
    const fake = cluster();
    const [configMap] = await cachedBy(fake, configMapGvk);
    const [secret] = await cachedBy(fake, secretGvk);
    expect(haveSameMap(configMap as object, secret as object)).toBe(false);
  });

  it('still take a transform set before the start in place of the default one', async () => {
    const fake = cluster();
    const [object] = await cachedBy(fake, configMapGvk, (input) => ({
      ...input,
      metadata: { name: `custom-${input.metadata?.name}` },
    }));
    expect(object?.metadata).toEqual({ name: 'custom-a' });
  });
});
