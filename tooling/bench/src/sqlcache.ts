// W6 sqlcache: @lasso/sqlcache's SqlStore on the W2 fixture (1 KiB ConfigMaps, three labels). Warm-up rate
// (5,000 and 100,000 objects), list latency (a page of 100, one label filter, a two-field sort, a partition of
// 100 namespaces) over 100,000 objects while a writer applies 200 updates/s, RSS against @lasso/cache's
// in-memory indexer (each in its own process), bytes on disk per object, and the WAL size under a write load
// with concurrent readers. Goals: issue 21. Since issue 29 a watch of the store runs through the list and WAL
// parts (its event history full: 1,000 events, the default), and the SqlStore's RSS is taken with a full history.
import { fork } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createIndexer, metaNamespaceIndexFunc, namespaceIndex } from '@lasso/cache';
import {
  createSqlStore,
  openSqlDatabase,
  ResourceVersionTooOldError,
  type SqlDatabase,
  type SqlStore,
} from '@lasso/sqlcache';
import { type BenchConfigMap, benchConfigMap } from './fixtures.ts';
import {
  type BenchSummary,
  forceGc,
  machineNote,
  median,
  mib,
  monotonicMs,
  parseSizes,
  percentile,
  recordResults,
} from './measure.ts';

/** What the run appends to results/<date>.json, filled by each part. */
const summary: BenchSummary & { contenders: Record<string, Record<string, number>> } = {
  contenders: { SqlStore: {}, 'in-memory indexer': {} },
  ratios: {},
};
const sqlRow = summary.contenders.SqlStore as Record<string, number>;
const memoryRow = summary.contenders['in-memory indexer'] as Record<string, number>;

const gvk = { group: '', version: 'v1', kind: 'ConfigMap' };
const noWatch = process.argv.includes('--nowatch') || process.env.W6_NOWATCH === '1';
const namespaces = 1_000;

function fixture(count: number): BenchConfigMap[] {
  const objects: BenchConfigMap[] = [];
  for (let i = 0; i < count; i++) {
    const object = benchConfigMap(i, `ns-${String(i % namespaces).padStart(4, '0')}`);
    object.metadata.resourceVersion = String(i + 1);
    object.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
    objects.push(object);
  }
  return objects;
}

function sqlStore(database: SqlDatabase): SqlStore<BenchConfigMap> {
  return createSqlStore<BenchConfigMap>(database, {
    gvk,
    // What createCache adds for namespaced kinds, so both stores maintain the same index.
    indexers: { [namespaceIndex]: metaNamespaceIndexFunc },
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function warmUp(count: number, rounds: number): Promise<void> {
  const objects = fixture(count);
  const sql: number[] = [];
  const memory: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const database = openSqlDatabase();
    const store = sqlStore(database);
    let start = monotonicMs();
    store.replace(objects, String(count));
    sql.push(monotonicMs() - start);
    database.close();
    const indexer = createIndexer<BenchConfigMap>({
      indexers: { [namespaceIndex]: metaNamespaceIndexFunc },
    });
    start = monotonicMs();
    indexer.replace(objects, String(count));
    memory.push(monotonicMs() - start);
  }
  const ms = median(sql);
  sqlRow[`warmUp${count}Ms`] = Math.round(ms);
  sqlRow[`warmUp${count}ObjectsPerSecond`] = Math.round((count / ms) * 1000);
  memoryRow[`warmUp${count}Ms`] = Math.round(median(memory));
  console.log(
    `warm-up ${count.toLocaleString('en')}: SqlStore ${ms.toFixed(0)} ms (${Math.round((count / ms) * 1000).toLocaleString('en')} objects/s; rounds ${sql.map((v) => v.toFixed(0)).join(', ')}), in-memory ${median(memory).toFixed(0)} ms`,
  );
}

interface Load {
  stop(): Promise<number>;
}

/** `perSecond` updates per second, each a new resourceVersion of a random object, in ticks of 10 ms. */
function writer(
  store: SqlStore<BenchConfigMap>,
  objects: BenchConfigMap[],
  perSecond: number,
): Load {
  let running = true;
  let applied = 0;
  let version = objects.length;
  const started = monotonicMs();
  const done = (async () => {
    while (running) {
      const due = Math.floor(((monotonicMs() - started) / 1000) * perSecond) - applied;
      for (let i = 0; i < due; i++) {
        const object = objects[Math.floor(Math.random() * objects.length)] as BenchConfigMap;
        const next = structuredClone(object);
        next.metadata.resourceVersion = String(++version);
        next.data['key-0'] = `${version}`;
        store.update(next);
        applied++;
      }
      await sleep(10);
    }
    return applied / ((monotonicMs() - started) / 1000);
  })();
  return {
    stop: async () => {
      running = false;
      return done;
    },
  };
}

function query(store: SqlStore<BenchConfigMap>, first: number, continueToken?: string) {
  const partitions = Array.from({ length: 100 }, (_, i) => ({
    namespace: `ns-${String((first + i * 7) % namespaces).padStart(4, '0')}`,
    all: true,
  }));
  return store.listByOptions({
    filters: [[{ field: 'metadata.labels[bench.lasso.dev/tier]', op: '=', values: ['even'] }]],
    sort: [{ field: 'metadata.namespace', order: 'desc' }, { field: 'metadata.name' }],
    partitions,
    pageSize: 100,
    continue: continueToken,
  });
}

/**
 * A watch of `store` from now, reading every event until `signal` aborts. A watcher that falls more than the
 * history behind (a writer burst larger than it, on a loaded machine) gets TooOld: counted, and it watches again
 * from now, as a client would after a relist.
 */
async function watchAll(
  store: SqlStore<BenchConfigMap>,
  signal: AbortSignal,
): Promise<{ events: number; expired: number }> {
  // `--nowatch 1`: the same run without the watch, to compare on one machine state.
  if (noWatch) return { events: 0, expired: 0 };
  let events = 0;
  let expired = 0;
  while (!signal.aborted) {
    try {
      for await (const _event of store.watch({ signal })) events++;
    } catch (error) {
      if (!(error instanceof ResourceVersionTooOldError)) throw error;
      expired++;
    }
  }
  return { events, expired };
}

const watchNote = (watched: { events: number; expired: number }): string =>
  noWatch
    ? 'no watch'
    : `a watch (${watched.events} events read, ${watched.expired} times too old)`;

async function listUnderLoad(
  count: number,
  seconds: number,
  database: SqlDatabase,
  store: SqlStore<BenchConfigMap>,
  objects: BenchConfigMap[],
): Promise<void> {
  const watching = new AbortController();
  const watch = watchAll(store, watching.signal);
  const load = writer(store, objects, 200);
  const latencies: number[] = [];
  let total = 0;
  const end = monotonicMs() + seconds * 1000;
  let i = 0;
  while (monotonicMs() < end) {
    const first = i++ % namespaces;
    let start = monotonicMs();
    const page = query(store, first);
    latencies.push(monotonicMs() - start);
    total = page.total;
    // Every other round also reads the next page through its continue token.
    if (i % 2 === 0 && page.continue !== undefined) {
      start = monotonicMs();
      query(store, first, page.continue);
      latencies.push(monotonicMs() - start);
    }
    await turn();
  }
  const rate = await load.stop();
  store.flush();
  await turn();
  watching.abort();
  const watched = await watch;
  sqlRow.listWatchEvents = watched.events;
  sqlRow.listWatchExpired = watched.expired;
  sqlRow.watchHistoryEvents = store.watchHistorySize();
  sqlRow.listP50Ms = Number(percentile(latencies, 0.5).toFixed(2));
  sqlRow.listP95Ms = Number(percentile(latencies, 0.95).toFixed(2));
  sqlRow.listP99Ms = Number(percentile(latencies, 0.99).toFixed(2));
  sqlRow.listUpdatesPerSecond = Math.round(rate);
  console.log(
    `list over ${count.toLocaleString('en')} objects (page 100, 1 filter, 2-field sort, 100 namespaces, ~${total} matches) with ${rate.toFixed(0)} updates/s, ${watchNote(watched)}, history ${store.watchHistorySize()} events: ${latencies.length} lists, p50 ${percentile(latencies, 0.5).toFixed(2)} ms, p95 ${percentile(latencies, 0.95).toFixed(2)} ms, p99 ${percentile(latencies, 0.99).toFixed(2)} ms, max ${Math.max(...latencies).toFixed(2)} ms`,
  );
  store.flush();
  database.checkpoint();
  const bytes = statSync(database.path).size;
  sqlRow.diskBytesPerObject = Math.round(bytes / count);
  console.log(
    `disk: ${mib(bytes)} for ${count.toLocaleString('en')} objects = ${Math.round(bytes / count)} bytes/object (JSON of one object: ${JSON.stringify(objects[0]).length} bytes)`,
  );
}

async function walUnderLoad(
  seconds: number,
  perSecond: number,
  database: SqlDatabase,
  store: SqlStore<BenchConfigMap>,
  objects: BenchConfigMap[],
): Promise<void> {
  const watching = new AbortController();
  const watch = watchAll(store, watching.signal);
  const load = writer(store, objects, perSecond);
  let maxWal = 0;
  let reads = 0;
  const end = monotonicMs() + seconds * 1000;
  let i = 0;
  while (monotonicMs() < end) {
    query(store, i++ % namespaces);
    reads++;
    maxWal = Math.max(maxWal, database.walBytes());
    await sleep(5);
  }
  const rate = await load.stop();
  store.flush();
  await turn();
  watching.abort();
  const watched = await watch;
  sqlRow.walWatchEvents = watched.events;
  sqlRow.walWatchExpired = watched.expired;
  sqlRow.maxWalMiB = Number((maxWal / 1048576).toFixed(1));
  sqlRow.walUpdatesPerSecond = Math.round(rate);
  console.log(
    `WAL under ${rate.toFixed(0)} updates/s for ${seconds} s with ${reads} concurrent list queries, ${watchNote(watched)}: max ${mib(maxWal)} (limit 64 MiB), now ${mib(database.walBytes())}`,
  );
}

/** RSS of a process holding `count` objects in one store kind, after full collections. */
function rssChild(
  kind: 'memory' | 'sql',
  count: number,
): Promise<{ before: number; after: number; history?: number }> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [], {
      env: {
        ...process.env,
        W6_CHILD: kind,
        W6_OBJECTS: String(count),
        W6_NOWATCH: noWatch ? '1' : '0',
      },
      execArgv: ['--expose-gc'],
    });
    child.once('message', (message) =>
      resolve(message as { before: number; after: number; history?: number }),
    );
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`rss child ${kind} exited with ${code}`));
    });
  });
}

async function child(kind: string, count: number): Promise<void> {
  forceGc();
  const before = process.memoryUsage().rss;
  let objects: BenchConfigMap[] | undefined = fixture(count);
  let keep: unknown;
  let database: SqlDatabase | undefined;
  let history: number | undefined;
  const watching = new AbortController();
  if (kind === 'memory') {
    const indexer = createIndexer<BenchConfigMap>({
      indexers: { [namespaceIndex]: metaNamespaceIndexFunc },
    });
    indexer.replace(objects, '1');
    keep = indexer;
  } else {
    database = openSqlDatabase();
    const store = sqlStore(database);
    store.replace(objects, '1');
    store.listByOptions({ pageSize: 100, partitions: [{ passthrough: true }] });
    // A watch running and its history full: 1,000 updates (the default bound) after the list.
    const watch = watchAll(store, watching.signal);
    for (let i = 0; i < (noWatch ? 0 : 1_000); i++) {
      const next = structuredClone(objects[(i * 97) % objects.length] as BenchConfigMap);
      next.metadata.resourceVersion = String(count + i + 1);
      store.update(next);
    }
    store.flush();
    await turn();
    history = store.watchHistorySize();
    keep = [store, watch];
  }
  objects = undefined;
  forceGc();
  forceGc();
  await turn();
  const after = process.memoryUsage().rss;
  void keep;
  process.send?.({ before, after, history });
  watching.abort();
  database?.close();
  process.exit(0);
}

async function main(): Promise<void> {
  const sizes = parseSizes(process.argv.slice(2), {
    objects: 100_000,
    seconds: 20,
    walseconds: 60,
    walrate: 2_000,
    nowatch: 0,
  });
  (summary as { watch?: boolean }).watch = !noWatch;
  // The default driver of the running Node (node:sqlite on 22.13+, better-sqlite3 on 20): run once per Node to
  // compare them.
  const probe = openSqlDatabase();
  const driverName = probe.driverName;
  probe.close();
  console.log(
    `W6 sqlcache (${machineNote()}, driver ${driverName}, ${noWatch ? 'no watch' : 'a watch running'})`,
  );
  (summary as { driver?: string }).driver = driverName;
  await warmUp(5_000, 5);
  await warmUp(sizes.objects, 2);
  const objects = fixture(sizes.objects);
  const database = openSqlDatabase();
  const store = sqlStore(database);
  store.replace(objects, String(sizes.objects));
  await listUnderLoad(sizes.objects, sizes.seconds, database, store, objects);
  await walUnderLoad(sizes.walseconds, sizes.walrate, database, store, objects);
  database.close();
  const memory = await rssChild('memory', sizes.objects);
  const sql = await rssChild('sql', sizes.objects);
  const grown = (r: { before: number; after: number }) => r.after - r.before;
  console.log(
    `RSS with ${sizes.objects.toLocaleString('en')} objects (growth over an empty process): in-memory indexer ${mib(grown(memory))} (total ${mib(memory.after)}), SqlStore with ${sql.history} events of history ${mib(grown(sql))} (total ${mib(sql.after)}): ${(grown(sql) / grown(memory)).toFixed(2)}x`,
  );
  sqlRow.rssWatchHistoryEvents = sql.history ?? 0;
  sqlRow.rssGrowthMiB = Number((grown(sql) / 1048576).toFixed(1));
  memoryRow.rssGrowthMiB = Number((grown(memory) / 1048576).toFixed(1));
  (summary.ratios as Record<string, number>)['RSS SqlStore / in-memory'] = Number(
    (grown(sql) / grown(memory)).toFixed(3),
  );
  summary.sizes = sizes;
  recordResults('W6', summary);
}

const childKind = process.env.W6_CHILD;
if (childKind === undefined) await main();
else await child(childKind, Number(process.env.W6_OBJECTS));
