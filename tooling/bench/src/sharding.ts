// `pnpm bench:sharding` (issue 32): 1, 2 and 4 replica processes (sharding-replica.ts) of a sharded ConfigMap
// controller over 20,000 ConfigMaps, a handler that waits 20 ms, steady churn; on the built-in server (KEP-5866
// served: the informers send shardSelector, the server filters) and, when KUBEBUILDER_ASSETS is set, on a real
// kube-apiserver (1.20.2 ignores shardSelector: every replica lists everything and filters client-side).
// Measured per configuration: reconciles/s draining a backlog of every key (and the ratio to one replica),
// objects, heap and RSS per replica, and the heap of a replica holding no object (the same process on an empty
// namespace: its baseline), so that heap - baseline is what a replica's objects cost; with 4: ranges and keys moved
// when the 4th joins (and each range's hand-off gap), and when one is SIGKILLed (time until its ranges are owned
// again).
// Sizes: --objects N (20000) --data-bytes N (1024, the W2 fixture: bytes of data per ConfigMap) --workers N (10 per
// replica) --handler MS (20) --churn N writes/s (20) --lease MS (15000) --renew MS (10000) --retry MS (2000)
// --parallel N (32 seeding creates in flight); --no-builtin / --no-real skip a server.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { Client, type KubeObject, loadKubeConfig, RestTransport } from '@lasso/client';
import { fnv1a64 } from '@lasso/core/sharding';
import { seedConfigMaps } from './configmap-client.ts';
import { configMapName, fixtureDataBytes } from './fixtures.ts';
import {
  type BenchSummary,
  loadNote,
  machineNote,
  mib,
  parseSizes,
  percentile,
  recordResults,
} from './measure.ts';
import type { ServerReady } from './server-process.ts';
import { keysPerRange, type OwnReport, ownersAt, rangeMoves, settled } from './sharding-moves.ts';
import type { ShardBenchReplicaMessage, ShardBenchReplicaSettings } from './sharding-replica.ts';

const argv = process.argv.slice(2);
const skipBuiltin = argv.includes('--no-builtin');
const skipReal = argv.includes('--no-real');
const sizes = parseSizes(
  argv.filter((arg) => arg !== '--no-builtin' && arg !== '--no-real'),
  {
    objects: 20_000,
    'data-bytes': fixtureDataBytes,
    workers: 10,
    handler: 20,
    churn: 20,
    lease: 15_000,
    renew: 10_000,
    retry: 2_000,
    parallel: 32,
  },
);
// A ConfigMap holds at most 1 MiB (data, names and labels together).
if (sizes['data-bytes'] > 1_000_000) {
  throw new RangeError(`--data-bytes must be at most 1000000, got ${sizes['data-bytes']}`);
}
const rangeCount = 256;
const rangeOf = (uid: string): number => Number(fnv1a64(uid) >> 56n);
const wallNow = (): number => performance.timeOrigin + performance.now();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => process.exit(130));
}

/** The server child with a chosen environment (KUBEBUILDER_ASSETS decides built-in or real). */
async function startServer(
  mode: 'builtin' | 'real',
): Promise<ServerReady & { stop(): Promise<void> }> {
  const env = { ...process.env };
  delete env.LASSO_TEST_KUBECONFIG;
  if (mode === 'builtin') delete env.KUBEBUILDER_ASSETS;
  const child = fork(new URL('./server-process.js', import.meta.url), ['envtest', 'bench-shard'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env,
  });
  children.add(child);
  const exited = once(child, 'exit');
  const ready = await new Promise<ServerReady>((resolve, reject) => {
    child.once('message', (message) => resolve(message as ServerReady));
    child.once('exit', (code) => reject(new Error(`server process exited early (${code})`)));
  });
  return {
    ...ready,
    stop: async () => {
      if (child.exitCode === null && child.connected) child.send('stop');
      await exited;
      children.delete(child);
    },
  };
}

/** A replica process and everything it reported. */
class Replica {
  readonly child: ChildProcess;
  readonly exited: Promise<unknown>;
  readonly drained: Promise<Extract<ShardBenchReplicaMessage, { type: 'drained' }>>;
  readonly ready: Promise<void>;
  #stats: ((message: Extract<ShardBenchReplicaMessage, { type: 'stats' }>) => void) | undefined;
  #count: ((objects: number) => void) | undefined;
  failure: string | undefined;
  readonly identity: string;

  constructor(identity: string, settings: ShardBenchReplicaSettings, owns: OwnReport[]) {
    this.identity = identity;
    this.child = fork(
      new URL('./sharding-replica.js', import.meta.url),
      [JSON.stringify(settings)],
      {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        execArgv: ['--expose-gc'],
      },
    );
    children.add(this.child);
    this.exited = once(this.child, 'exit').then(() => children.delete(this.child));
    let onDrained: (message: Extract<ShardBenchReplicaMessage, { type: 'drained' }>) => void =
      () => {};
    let onReady: () => void = () => {};
    let onFailed: (error: Error) => void = () => {};
    const failed = new Promise<never>((_, reject) => {
      onFailed = reject;
    });
    failed.catch(() => {});
    // Both reject once the replica failed or exited, so that the bench stops instead of waiting forever.
    this.drained = Promise.race([
      new Promise<Extract<ShardBenchReplicaMessage, { type: 'drained' }>>((resolve) => {
        onDrained = resolve;
      }),
      failed,
    ]);
    this.ready = Promise.race([
      new Promise<void>((resolve) => {
        onReady = resolve;
      }),
      failed,
    ]);
    this.drained.catch(() => {});
    this.ready.catch(() => {});
    this.child.once('exit', (code, signal) =>
      onFailed(new Error(`${identity} exited (${code ?? signal}): ${this.failure ?? ''}`)),
    );
    this.child.on('message', (message: ShardBenchReplicaMessage) => {
      if (message.type === 'own')
        owns.push({ r: identity, at: message.at, ranges: message.ranges });
      else if (message.type === 'ready') onReady();
      else if (message.type === 'drained') onDrained(message);
      else if (message.type === 'stats') this.#stats?.(message);
      else if (message.type === 'count') this.#count?.(message.objects);
      else if (message.type === 'failed') {
        this.failure = message.message;
        console.error(`  ${identity} failed: ${message.message}`);
        onFailed(new Error(`${identity} failed: ${message.message}`));
      }
    });
  }

  stats(): Promise<Extract<ShardBenchReplicaMessage, { type: 'stats' }>> {
    return new Promise((resolve) => {
      this.#stats = resolve;
      this.child.send({ type: 'stats' });
    });
  }

  /** Objects its ConfigMap cache holds now. */
  count(): Promise<number> {
    return new Promise((resolve) => {
      this.#count = resolve;
      this.child.send({ type: 'count' });
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null && this.child.connected) {
      this.child.disconnect();
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Wait until every range has exactly one owner among the live replicas and it stayed so for `stableMs`. */
async function waitSettled(
  owns: OwnReport[],
  gone: ReadonlySet<string>,
  timeoutMs: number,
  extra: () => boolean = () => true,
  stableMs = 1_000,
): Promise<number> {
  const start = wallNow();
  let since: number | undefined;
  let count = -1;
  while (wallNow() - start < timeoutMs) {
    const now = wallNow();
    const ok = settled(ownersAt(owns, now, gone), rangeCount) && extra();
    if (!ok || owns.length !== count) since = ok ? now : undefined;
    count = owns.length;
    if (ok && since !== undefined && now - since >= stableMs) return since;
    await pause(50);
  }
  throw new Error(`the ring did not settle within ${timeoutMs} ms`);
}

/** A replica's settings: the run's sizes, on `ring`, watching ConfigMaps of `namespace`. */
function replicaSettings(
  kubeconfigPath: string,
  identity: string,
  ring: string,
  leaseNamespace: string,
  namespace: string,
): ShardBenchReplicaSettings {
  return {
    kubeconfigPath,
    identity,
    ring,
    leaseNamespace,
    namespace,
    workers: sizes.workers,
    handlerMs: sizes.handler,
    leaseDurationMs: sizes.lease,
    renewDeadlineMs: sizes.renew,
    retryPeriodMs: sizes.retry,
  };
}

/**
 * The heap of a replica before it holds any object: the same replica process (client, factory, ring and its Lease
 * informer, a ConfigMap informer, metrics) alone on a ring of its own, over a namespace with no ConfigMap; settled,
 * its empty backlog "drained", then measured as the others are (after two full GCs). A replica's heap minus this is
 * what its objects cost (plus what draining a backlog warmed up: code, queue, metrics series).
 */
async function measureBaseline(
  mode: string,
  kubeconfigPath: string,
  leaseNamespace: string,
  emptyNamespace: string,
): Promise<{ heapUsed: number; rss: number }> {
  const owns: OwnReport[] = [];
  const ring = `bench-${mode}-baseline`;
  const replica = new Replica(
    `${ring}-r0`,
    replicaSettings(kubeconfigPath, `${ring}-r0`, ring, leaseNamespace, emptyNamespace),
    owns,
  );
  try {
    await replica.ready;
    await waitSettled(owns, new Set(), 120_000);
    await pause(3_000);
    replica.child.send({ type: 'measure' });
    await replica.drained;
    const stats = await replica.stats();
    if (stats.objects !== 0) throw new Error(`the baseline replica holds ${stats.objects} objects`);
    return { heapUsed: stats.heapUsed, rss: stats.rss };
  } finally {
    await replica.stop();
  }
}

interface ConfigResult {
  replicas: number;
  reconcilesPerSecond: number;
  drainMs: number;
  perReplica: Array<{
    identity: string;
    objects: number;
    heapUsed: number;
    rss: number;
    keys: number;
  }>;
  join?: { rangesMoved: number; keysMoved: number; gaps: number[]; settleMs: number };
  kill?: { ranges: number; keys: number; regainMs: number[]; allOwnedMs: number };
}

async function runConfig(
  mode: string,
  kubeconfigPath: string,
  namespace: string,
  count: number,
  keysByRange: number[],
  churn: () => () => Promise<void>,
  baselineHeap: number,
): Promise<ConfigResult> {
  const owns: OwnReport[] = [];
  const replicas: Replica[] = [];
  const gone = new Set<string>();
  const ring = `bench-${mode}-${count}`;
  const start = (): Replica => {
    const identity = `${ring}-r${replicas.length}`;
    const replica = new Replica(
      identity,
      replicaSettings(kubeconfigPath, identity, ring, namespace, namespace),
      owns,
    );
    replicas.push(replica);
    return replica;
  };
  const result: ConfigResult = {
    replicas: count,
    reconcilesPerSecond: 0,
    drainMs: 0,
    perReplica: [],
  };
  try {
    for (let index = 0; index < (count === 4 ? 3 : count); index++) start();
    await Promise.all(replicas.map((replica) => replica.ready));
    await waitSettled(owns, gone, 120_000);
    if (count === 4) {
      // The 4th joins: which ranges (and keys) move, and each range's gap between release and claim.
      const joinAt = wallNow();
      const before = ownersAt(owns, joinAt);
      const fourth = start();
      await fourth.ready;
      const settledAt = await waitSettled(owns, gone, 120_000, () =>
        [...ownersAt(owns, wallNow()).values()].some((owners) => owners.includes(fourth.identity)),
      );
      const moves = rangeMoves(owns, joinAt, before, ownersAt(owns, wallNow()));
      result.join = {
        rangesMoved: moves.length,
        keysMoved: moves.reduce((sum, move) => sum + (keysByRange[move.range] ?? 0), 0),
        gaps: moves.map((move) => move.gainedAt - move.releasedAt),
        settleMs: settledAt - joinAt,
      };
      console.log(
        `    4th joined: ${moves.length} of ${rangeCount} ranges moved (${((moves.length / rangeCount) * 100).toFixed(1)}%), ${result.join.keysMoved} keys (${((result.join.keysMoved / sizes.objects) * 100).toFixed(1)}%), hand-off gap p50 ${percentile(result.join.gaps, 0.5).toFixed(0)} ms p99 ${percentile(result.join.gaps, 0.99).toFixed(0)} ms max ${Math.max(...result.join.gaps).toFixed(0)} ms; settled ${seconds(result.join.settleMs)} after it started`,
      );
    }
    // Every object held once (the caches listed the ranges they own), the initial sync's no-op reconciles drained,
    // then time a backlog of every key at --handler ms each.
    const heldStart = wallNow();
    for (;;) {
      const counts = await Promise.all(
        replicas.filter((r) => !gone.has(r.identity)).map((r) => r.count()),
      );
      if (counts.reduce((sum, n) => sum + n, 0) === sizes.objects) break;
      if (wallNow() - heldStart > 600_000)
        throw new Error(`caches hold ${counts.join('/')} objects, not ${sizes.objects}`);
      await pause(250);
    }
    console.log(`    every object held ${seconds(wallNow() - heldStart)} after the ring settled`);
    await pause(3_000);
    const stopChurn = churn();
    const measureAt = wallNow();
    for (const replica of replicas) replica.child.send({ type: 'measure' });
    const drained = await Promise.all(replicas.map((replica) => replica.drained));
    const endAt = Math.max(...drained.map((message) => message.at));
    await stopChurn();
    const keys = drained.reduce((sum, message) => sum + message.keys, 0);
    result.drainMs = endAt - measureAt;
    result.reconcilesPerSecond = keys / (result.drainMs / 1000);
    for (const [index, replica] of replicas.entries()) {
      const stats = await replica.stats();
      result.perReplica.push({
        identity: replica.identity,
        objects: stats.objects,
        heapUsed: stats.heapUsed,
        rss: stats.rss,
        keys: drained[index]?.keys ?? 0,
      });
    }
    console.log(
      `  ${count} replica${count === 1 ? ' ' : 's'}: ${keys} keys drained in ${seconds(result.drainMs)}: ${result.reconcilesPerSecond.toFixed(0)} reconciles/s; per replica objects ${result.perReplica.map((r) => r.objects).join('/')}, heap ${result.perReplica.map((r) => mib(r.heapUsed)).join('/')} (objects' ${result.perReplica.map((r) => mib(r.heapUsed - baselineHeap)).join('/')}), RSS ${result.perReplica.map((r) => mib(r.rss)).join('/')}; load ${loadNote()}`,
    );
    if (count === 4) {
      // SIGKILL one: how long until each of its ranges is owned by another replica.
      const victim = replicas[1] as Replica;
      const killAt = wallNow();
      const held = [...ownersAt(owns, killAt)].filter(([, owners]) =>
        owners.includes(victim.identity),
      );
      victim.child.kill('SIGKILL');
      gone.add(victim.identity);
      await waitSettled(owns, gone, sizes.lease * 3 + 30_000, () => true, 0);
      const regainMs = held.map(([range]) => {
        const first = owns
          .filter(
            (own) => own.r !== victim.identity && own.at >= killAt && own.ranges.includes(range),
          )
          .sort((a, b) => a.at - b.at)[0];
        return (first?.at ?? Number.NaN) - killAt;
      });
      result.kill = {
        ranges: held.length,
        keys: held.reduce((sum, [range]) => sum + (keysByRange[range] ?? 0), 0),
        regainMs,
        allOwnedMs: Math.max(...regainMs),
      };
      console.log(
        `    one of 4 SIGKILLed: its ${held.length} ranges (${result.kill.keys} keys) owned again after p50 ${percentile(regainMs, 0.5).toFixed(0)} ms, max ${result.kill.allOwnedMs.toFixed(0)} ms (lease ${sizes.lease} ms)`,
      );
    }
    for (const replica of replicas) {
      if (replica.failure !== undefined) throw new Error(`${replica.identity}: ${replica.failure}`);
    }
    return result;
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
  }
}

async function runServer(mode: 'builtin' | 'real', summary: BenchSummary): Promise<void> {
  const server = await startServer(mode);
  let rest: RestTransport | undefined;
  try {
    console.log(`${mode === 'builtin' ? 'A' : 'B'}. ${server.description}; load ${loadNote()}`);
    // The parent's own transport (seeding, churn, the uid list), closed when this server's runs end.
    rest = new RestTransport(await loadKubeConfig({ path: server.kubeconfigPath }));
    const client = new Client<KubeObject>({
      gvr: { group: '', version: 'v1', resource: 'configmaps' },
      kind: 'ConfigMap',
      namespaced: true,
      rest,
    });
    const emptyNamespace = `${server.namespace}-empty`;
    await new Client<KubeObject>({
      gvr: { group: '', version: 'v1', resource: 'namespaces' },
      kind: 'Namespace',
      namespaced: false,
      rest,
    }).create(undefined, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: emptyNamespace },
    });
    const baseline = await measureBaseline(
      mode,
      server.kubeconfigPath,
      server.namespace,
      emptyNamespace,
    );
    console.log(
      `  a replica holding no object (alone on its ring, an empty namespace): heap ${mib(baseline.heapUsed)}, RSS ${mib(baseline.rss)}`,
    );
    const seedStart = wallNow();
    await seedConfigMaps(
      client,
      server.namespace,
      sizes.objects,
      sizes.parallel,
      sizes['data-bytes'],
    );
    const list = await client.list(server.namespace);
    const uids = list.items.map((item) => item.metadata?.uid as string);
    const keysByRange = keysPerRange(uids, rangeOf, rangeCount);
    console.log(
      `  seeded ${sizes.objects} ConfigMaps (${sizes['data-bytes']} bytes of data each) in ${seconds(wallNow() - seedStart)}`,
    );
    // Steady churn: merge patches of random objects at --churn per second while a backlog drains.
    const churn = (): (() => Promise<void>) => {
      let stopped = false;
      let serial = 0;
      const loop = (async () => {
        while (!stopped) {
          const name = configMapName(Math.floor(Math.random() * sizes.objects));
          await client
            .patch(server.namespace, name, 'merge', { data: { churn: String(serial++) } })
            .catch(() => {});
          await pause(1000 / sizes.churn);
        }
      })();
      return async () => {
        stopped = true;
        await loop;
      };
    };
    const results: ConfigResult[] = [];
    for (const count of [1, 2, 4]) {
      results.push(
        await runConfig(
          mode,
          server.kubeconfigPath,
          server.namespace,
          count,
          keysByRange,
          churn,
          baseline.heapUsed,
        ),
      );
    }
    const one = results[0] as ConfigResult;
    const four = results[2] as ConfigResult;
    const filter = mode === 'builtin' ? 'server-side filter' : 'client-side filter';
    const maxObjectsHeap = (result: ConfigResult): number =>
      Math.max(...result.perReplica.map((r) => r.heapUsed - baseline.heapUsed));
    summary.contenders[`${mode} replica holding no object (baseline)`] = {
      heapMiB: round1(baseline.heapUsed / 1048576),
      rssMiB: round1(baseline.rss / 1048576),
    };
    for (const result of results) {
      const ratio = result.reconcilesPerSecond / one.reconcilesPerSecond;
      summary.contenders[`${mode} ${result.replicas} replicas (${filter})`] = {
        reconcilesPerSecond: Math.round(result.reconcilesPerSecond),
        ratioToOne: Math.round(ratio * 100) / 100,
        maxObjectsPerReplica: Math.max(...result.perReplica.map((r) => r.objects)),
        maxHeapMiBPerReplica: Math.round(
          Math.max(...result.perReplica.map((r) => r.heapUsed)) / 1048576,
        ),
        maxRssMiBPerReplica: Math.round(Math.max(...result.perReplica.map((r) => r.rss)) / 1048576),
        maxObjectsHeapMiBPerReplica: round1(maxObjectsHeap(result) / 1048576),
      };
    }
    const two = results[1] as ConfigResult;
    const ratio2 = two.reconcilesPerSecond / one.reconcilesPerSecond;
    const ratio4 = four.reconcilesPerSecond / one.reconcilesPerSecond;
    const objectsRatio =
      Math.max(...four.perReplica.map((r) => r.objects)) /
      Math.max(1, one.perReplica[0]?.objects ?? 1);
    const heapRatio =
      Math.max(...four.perReplica.map((r) => r.heapUsed)) /
      (one.perReplica[0]?.heapUsed ?? Number.NaN);
    // What the objects cost, each replica's baseline taken off: the share sharding can divide.
    const objectsHeapRatio = maxObjectsHeap(four) / maxObjectsHeap(one);
    const ratios = summary.ratios as Record<string, number>;
    const goals = summary.goals as Record<string, boolean>;
    ratios[`${mode}: 2 replicas / 1 reconciles/s`] = round2(ratio2);
    ratios[`${mode}: 4 replicas / 1 reconciles/s`] = round2(ratio4);
    ratios[`${mode}: max objects per replica of 4 / 1`] = round2(objectsRatio);
    ratios[`${mode}: max heap per replica of 4 / 1`] = round2(heapRatio);
    ratios[`${mode}: max objects' heap (heap - baseline) per replica of 4 / 1`] =
      round2(objectsHeapRatio);
    goals[`${mode}: 2 replicas >= 1.8x`] = ratio2 >= 1.8;
    goals[`${mode}: 4 replicas >= 3.4x`] = ratio4 >= 3.4;
    if (mode === 'builtin') {
      // Judged on the whole heap, as issue 32 states it; the objects' heap ratio above is recorded beside it.
      goals[`${mode}: objects and heap per replica of 4 <= 0.35x`] =
        objectsRatio <= 0.35 && heapRatio <= 0.35;
    }
    if (four.join !== undefined) {
      ratios[`${mode}: keys moved when the 4th joins`] = round2(
        four.join.keysMoved / sizes.objects,
      );
      ratios[`${mode}: hand-off gap p50 ms`] = Math.round(percentile(four.join.gaps, 0.5));
      ratios[`${mode}: hand-off gap p99 ms`] = Math.round(percentile(four.join.gaps, 0.99));
      ratios[`${mode}: hand-off gap max ms`] = Math.round(Math.max(...four.join.gaps));
      goals[`${mode}: 4th joining moves <= 30% of keys`] =
        four.join.keysMoved / sizes.objects <= 0.3;
    }
    if (four.kill !== undefined) {
      ratios[`${mode}: killed replica's keys owned again, ms`] = Math.round(four.kill.allOwnedMs);
      goals[`${mode}: killed replica's keys owned again within lease + 2 s`] =
        four.kill.allOwnedMs <= sizes.lease + 2_000;
    }
    console.log(
      `  ${mode}: 2/1 ${ratio2.toFixed(2)}x, 4/1 ${ratio4.toFixed(2)}x; per replica of 4 / one: objects ${objectsRatio.toFixed(2)}x, heap ${heapRatio.toFixed(2)}x, objects' heap (heap - ${mib(baseline.heapUsed)} baseline) ${objectsHeapRatio.toFixed(2)}x`,
    );
  } finally {
    await rest?.close();
    await server.stop();
  }
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

async function main(): Promise<void> {
  console.log(
    `bench:sharding: ${sizes.objects} ConfigMaps of ${sizes['data-bytes']} bytes of data, handler ${sizes.handler} ms, ${sizes.workers} workers per replica, churn ${sizes.churn} writes/s, lease ${sizes.lease}/${sizes.renew}/${sizes.retry} ms; ${machineNote()}`,
  );
  const summary: BenchSummary = { sizes, contenders: {}, ratios: {}, goals: {} };
  if (!skipBuiltin) await runServer('builtin', summary);
  if (!skipReal) {
    if (process.env.KUBEBUILDER_ASSETS === undefined) {
      console.log('B. real kube-apiserver skipped: KUBEBUILDER_ASSETS is not set');
    } else await runServer('real', summary);
  }
  summary.notes =
    'A: @lasso/envtest built-in server serving shardSelector (server-side filter); B: kube-apiserver 1.20.2 from KUBEBUILDER_ASSETS (client-side filter). One replica is the sharded factory alone on its ring.';
  recordResults('sharding', summary);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
  for (const child of children) child.kill('SIGKILL');
});
