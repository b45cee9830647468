// `pnpm bench:informer-sync`: W2 (ARCHITECTURE.md section 5). 20,000 ConfigMaps (1 KiB of data, 3 labels) in
// one namespace of the @lasso/envtest API server, run in a child process; for @lasso/cache and client-node's
// informer, the time from informer start to synced and the heap its store holds after a forced GC, several
// rounds each (median), one informer alive at a time. Sizes: --objects N --rounds N.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadKubeConfig, RestTransport } from '@lasso/client';
import { request } from 'undici';
import { startServerChild } from './child.ts';
import { configMapClient, seedConfigMaps } from './configmap-client.ts';
import {
  type Contender,
  clientNode14Contender,
  clientNodeContender,
  lassoContender,
} from './contenders.ts';
import { countdown } from './countdown.ts';
import { kubeHttp } from './kube-http.ts';
import {
  type BenchSummary,
  machineNote,
  median,
  mib,
  parseSizes,
  recordResults,
  settledHeapUsed,
} from './measure.ts';

const sizes = parseSizes(process.argv.slice(2), { objects: 20_000, rounds: 5, parallel: 32 });

interface SyncResult {
  syncMs: number;
  heapBytes: number;
}

async function seed(kubeconfigPath: string, namespace: string): Promise<number> {
  const transport = new RestTransport(await loadKubeConfig({ path: kubeconfigPath }));
  const started = performance.now();
  try {
    await seedConfigMaps(configMapClient(transport), namespace, sizes.objects, sizes.parallel);
  } finally {
    await transport.close();
  }
  return performance.now() - started;
}

/** The floor under both informers: the same server's list over undici + JSON.parse, no cache. */
async function rawList(
  kubeconfigPath: string,
  namespace: string,
  limit: number,
): Promise<{ ms: number; items: number }> {
  const { agent, headers, server } = kubeHttp(kubeconfigPath);
  const started = performance.now();
  let items = 0;
  let token = '';
  try {
    do {
      const query = new URLSearchParams();
      if (limit > 0) query.set('limit', String(limit));
      if (token !== '') query.set('continue', token);
      const url = `${server}/api/v1/namespaces/${namespace}/configmaps?${query}`;
      const response = await request(url, { dispatcher: agent, headers });
      const list = JSON.parse(await response.body.text()) as {
        metadata?: { continue?: string };
        items?: unknown[];
      };
      if (response.statusCode !== 200) throw new Error(`list: HTTP ${response.statusCode}`);
      items += list.items?.length ?? 0;
      token = list.metadata?.continue ?? '';
    } while (token !== '');
  } finally {
    await agent.close();
  }
  return { ms: performance.now() - started, items };
}

/**
 * Heap used after forced GCs, once it stops falling. A GC in the same turn as the previous informer's stop does not
 * free that informer's objects yet (something of that turn still references them): measured so, a baseline could
 * include the previous contender's whole cache and the next one would read ~0 bytes. A few timer turns fix that.
 */
async function settledHeap(): Promise<number> {
  let last = settledHeapUsed();
  for (let turn = 0; turn < 10; turn++) {
    await sleep(20);
    const now = settledHeapUsed();
    if (now > last - 256 * 1024) return Math.min(now, last);
    last = now;
  }
  return last;
}

async function syncOnce(
  contender: Contender,
  kubeconfigPath: string,
  namespace: string,
): Promise<SyncResult> {
  const added = countdown(sizes.objects);
  const start = await contender.prepare(kubeconfigPath, namespace, {
    onAdd: added.tick,
    onUpdate: () => undefined,
  });
  const baseline = await settledHeap();
  const started = performance.now();
  const informer = start();
  try {
    await informer.synced;
    const syncMs = performance.now() - started;
    await Promise.race([added.done, informer.failed]);
    if (informer.size() !== sizes.objects) {
      throw new Error(`${contender.name} stored ${informer.size()} of ${sizes.objects} objects`);
    }
    return { syncMs, heapBytes: (await settledHeap()) - baseline };
  } finally {
    await informer.stop();
  }
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`.padStart(8);

/** Rounds that also time the raw-list floors (enough for a median, without doubling the run). */
const floorRounds = 3;

/** Both informers, `sizes.rounds` times each after a warm-up, against one server; prints rounds and medians. */
async function compare(kubeconfigPath: string, namespace: string, server: string): Promise<void> {
  const contenders = [lassoContender, clientNodeContender, clientNode14Contender];
  const results = new Map<string, SyncResult[]>(contenders.map((c) => [c.name, []]));
  const floors = { paged: [] as number[], single: [] as number[] };
  for (const contender of contenders) await syncOnce(contender, kubeconfigPath, namespace); // warm-up
  for (let round = 1; round <= sizes.rounds; round++) {
    const order = round % 2 === 1 ? contenders : [...contenders].reverse();
    const line: string[] = [];
    for (const contender of order) {
      const result = await syncOnce(contender, kubeconfigPath, namespace);
      results.get(contender.name)?.push(result);
      line.push(
        `${contender.name} ${seconds(result.syncMs)} ${mib(result.heapBytes).padStart(10)} ` +
          `(${Math.round(result.heapBytes / sizes.objects)} B/object)`,
      );
    }
    if (round <= floorRounds) {
      const paged = await rawList(kubeconfigPath, namespace, 500);
      const single = await rawList(kubeconfigPath, namespace, 0);
      if (paged.items !== sizes.objects || single.items !== sizes.objects) {
        throw new Error(`raw lists saw ${paged.items} / ${single.items} objects`);
      }
      floors.paged.push(paged.ms);
      floors.single.push(single.ms);
    }
    console.log(`  round ${round}: ${line.join('   ')}`);
  }
  const lasso = results.get(lassoContender.name) ?? [];
  const lassoMs = median(lasso.map((r) => r.syncMs));
  const lassoHeap = median(lasso.map((r) => r.heapBytes));
  const pagedMs = median(floors.paged);
  const singleMs = median(floors.single);
  for (const contender of contenders) {
    const runs = results.get(contender.name) ?? [];
    const ms = median(runs.map((r) => r.syncMs));
    const heap = median(runs.map((r) => r.heapBytes));
    console.log(
      `  ${contender.name.padEnd(15)} median sync ${seconds(ms)}, heap after sync ${mib(heap)} ` +
        `(${Math.round(heap / sizes.objects).toLocaleString('en-US')} B per object)`,
    );
    summary.contenders[`${server} ${contender.name}`] = {
      syncMs: Math.round(ms),
      heapBytes: heap,
      bytesPerObject: Math.round(heap / sizes.objects),
    };
    if (contender === lassoContender) continue;
    console.log(
      `  ratio (${contender.name} / lasso): sync time ${(ms / lassoMs).toFixed(2)}x, heap ${(heap / lassoHeap).toFixed(2)}x (above 1: lasso is faster / smaller)`,
    );
    const ratios = summary.ratios as Record<string, number>;
    ratios[`${server} sync time ${contender.name} / lasso`] = Number((ms / lassoMs).toFixed(3));
    ratios[`${server} heap ${contender.name} / lasso`] = Number((heap / lassoHeap).toFixed(3));
  }
  summary.contenders[`${server} floor 500 per page`] = { syncMs: Math.round(pagedMs) };
  summary.contenders[`${server} floor one page`] = { syncMs: Math.round(singleMs) };
  console.log(
    `  (floor) raw undici list + JSON.parse, no cache: 500 per page (as lasso lists) ${seconds(pagedMs)}, ` +
      `one page (as client-node lists) ${seconds(singleMs)}`,
  );
  const peerMs = median((results.get(clientNodeContender.name) ?? []).map((r) => r.syncMs));
  console.log(
    `  above its floor: lasso ${seconds(lassoMs - pagedMs)}, client-node 2.0 ${seconds(peerMs - singleMs)}`,
  );
}

/** What this run appends to results/<date>.json (recordResults). */
const summary: BenchSummary = { sizes, contenders: {}, ratios: {} };

async function main(): Promise<void> {
  console.log(
    `W2 informer-sync: ${sizes.objects.toLocaleString('en-US')} ConfigMaps (1 KiB data, 3 labels), one namespace; ` +
      `${sizes.rounds} rounds (+1 warm-up) per server; heap = heapUsed after forced GC with only that ` +
      `informer alive, minus before its start; ${machineNote()}`,
  );
  const envtest = await startServerChild(['envtest', 'bench-w2']);
  try {
    console.log(`A. ${envtest.description}, in a child process (the workload as defined)`);
    const seedMs = await seed(envtest.kubeconfigPath, envtest.namespace);
    console.log(
      `  seeded ${sizes.objects} ConfigMaps through POST (${sizes.parallel} in flight) in ${seconds(seedMs).trim()}`,
    );
    await compare(envtest.kubeconfigPath, envtest.namespace, 'A envtest');
  } finally {
    await envtest.stop();
  }
  // A includes the server's own time per page (validation, copies, serialisation); B serves pages by slicing a
  // pre-built list, which leaves the client side alone.
  const stream = await startServerChild(['stream', 'bench-w2', String(sizes.objects), '0']);
  try {
    console.log(
      `B. ${stream.description} in a child process: the same objects from a pre-built list, pages by slicing`,
    );
    await compare(stream.kubeconfigPath, stream.namespace, 'B stream');
  } finally {
    await stream.stop();
  }
  recordResults('W2', summary);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
