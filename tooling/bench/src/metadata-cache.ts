// Bytes per cached object, full against metadata-only (issue 20): the W2 fixture (ConfigMaps of 1 KiB of data and
// 3 labels, fixtures.ts) in one namespace of the @lasso/envtest API server (a real kube-apiserver with
// KUBEBUILDER_ASSETS), run in a child process; `createCache` and `createMetadataCache` each synced alone, heap after
// two forced GCs minus the heap before, divided by the objects. Run: node --expose-gc dist/metadata-cache.js
// [--objects N --rounds N] (build it with `npx tsup src/metadata-cache.ts --no-config --format esm -d dist`).
import { createCache, createMetadataCache, type SharedIndexInformer } from '@lasso/cache';
import { type Client, type KubeObjectLike, loadKubeConfig, RestTransport } from '@lasso/client';
import { startServerChild } from './child.ts';
import { configMapClient, seedConfigMaps } from './configmap-client.ts';
import { machineNote, median, parseSizes, settledHeapUsed } from './measure.ts';

const sizes = parseSizes(process.argv.slice(2), { objects: 5_000, rounds: 3, parallel: 16 });

async function bytesPerObject(
  client: Client,
  namespace: string,
  build: () => SharedIndexInformer<KubeObjectLike>,
): Promise<number> {
  // The previous informer's watch and buffers end asynchronously after its stop: let them go first.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const baseline = settledHeapUsed();
  const informer = build();
  const stop = new AbortController();
  await informer.start(stop.signal);
  await informer.whenSynced();
  const size = informer.getStore().size();
  if (size !== sizes.objects) throw new Error(`stored ${size} of ${sizes.objects} in ${namespace}`);
  const bytes = (settledHeapUsed() - baseline) / size;
  stop.abort();
  await informer.stopped();
  void client;
  return bytes;
}

const server = await startServerChild(['envtest', 'bench-metadata']);
try {
  console.log(`${machineNote()}; ${server.description}; ${sizes.objects} W2 ConfigMaps`);
  const transport = new RestTransport(await loadKubeConfig({ path: server.kubeconfigPath }));
  const client = configMapClient(transport);
  await seedConfigMaps(client, server.namespace, sizes.objects, sizes.parallel);
  const options = { namespace: server.namespace, resyncMs: 0 };
  const contenders = {
    full: () => createCache<KubeObjectLike>(client, options),
    metadata: () =>
      createMetadataCache(client, options) as unknown as SharedIndexInformer<KubeObjectLike>,
  };
  const results: Record<string, number[]> = { full: [], metadata: [] };
  for (let round = 0; round <= sizes.rounds; round++) {
    for (const [name, build] of Object.entries(contenders)) {
      const bytes = await bytesPerObject(client, server.namespace, build);
      if (round > 0) results[name]?.push(bytes); // round 0 warms up
    }
  }
  const full = median(results.full ?? []);
  const metadata = median(results.metadata ?? []);
  console.log(
    `full ${full.toFixed(0)} B/object, metadata-only ${metadata.toFixed(0)} B/object (${(metadata / full).toFixed(2)}x), medians of ${sizes.rounds}`,
  );
  await transport.close();
} finally {
  await server.stop();
}
