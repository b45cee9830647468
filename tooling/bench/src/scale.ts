// `pnpm bench:scale`: W5 (issue 22 item 4). 100,000 ConfigMaps of the W2 fixture (1 KiB data, 3 labels) on a real
// kube-apiserver when KUBEBUILDER_ASSETS is set, else on the built-in server (@lasso/envtest `startEnvironment`,
// in a child process), seeded with many creates in flight; then per contender, each in its own child process
// (scale-child.ts) so that heap and RSS are its own: time to sync, bytes per object and RSS. Then a synthetic
// stream of 1,000,000 objects through the informer alone (in-memory lister-watcher, no HTTP): events/s and heap.
// Sizes: --objects N --events N --keys N (distinct objects of the stream, default all) --parallel N (creates in
// flight) --parts N (1 = sync, 2 = stream, 3 = both).
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { startServerChild } from './child.ts';
import { benchConfigMap } from './fixtures.ts';
import { kubeHttp } from './kube-http.ts';
import { loadNote, machineNote, mib, parseSizes, recordResults } from './measure.ts';
import type { ScaleResult } from './scale-child.ts';

/** The contenders scale-child.ts knows (a type-only import of it: importing its values would run it here). */
// The limit runs first and last, and its faster run is the floor: right after seeding a real server may still
// be busy (etcd compaction, the watch cache catching up), which would flatter whoever runs next.
const syncContenders = ['limit', '@lasso/cache', 'client-node 2.0', 'client-node 1.4', 'limit'];
const streamContenders = ['@lasso/cache', 'client-node 2.0', 'client-node 1.4', 'producer'];

const sizes = parseSizes(process.argv.slice(2), {
  objects: 100_000,
  events: 1_000_000,
  keys: 1_000_000,
  parallel: 64,
  parts: 3,
});
const keys = Math.min(sizes.keys, sizes.events);

/** A measurement that takes longer than this is killed and reported as such (the run must end on its own). */
const childDeadlineMs = 240_000;

const load = (): string => `load ${loadNote()}`;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const thousands = (n: number): string => Math.round(n).toLocaleString('en-US');

/** POST the fixture's objects, `sizes.parallel` in flight over as many connections (no client in between). */
async function seed(kubeconfigPath: string, namespace: string): Promise<number> {
  const http = kubeHttp(kubeconfigPath, sizes.parallel);
  const url = `${http.server}/api/v1/namespaces/${namespace}/configmaps`;
  const headers = { ...http.headers, 'content-type': 'application/json' };
  const started = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < sizes.objects) {
      const index = next++;
      const body = JSON.stringify(benchConfigMap(index, namespace));
      for (let attempt = 1; ; attempt++) {
        const response = await request(url, {
          method: 'POST',
          body,
          headers,
          dispatcher: http.agent,
        });
        const text = await response.body.text();
        if (response.statusCode === 201 || response.statusCode === 409) break;
        // A busy server may shed load (429) or time out (504): retry those a few times.
        if ((response.statusCode === 429 || response.statusCode >= 500) && attempt < 5) continue;
        throw new Error(`create ${index}: HTTP ${response.statusCode} ${text.slice(0, 200)}`);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: sizes.parallel }, worker));
  } finally {
    await http.agent.close();
  }
  return performance.now() - started;
}

/** Run one measurement in a fresh child process (the parent's flags, a larger heap limit). */
async function measureInChild(args: string[]): Promise<ScaleResult> {
  const child: ChildProcess = fork(new URL('./scale-child.js', import.meta.url), args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [...process.execArgv, '--max-old-space-size=8192'],
  });
  const exited = once(child, 'exit');
  let message: ScaleResult | undefined;
  child.on('message', (m) => {
    message = m as ScaleResult;
  });
  const deadline = setTimeout(() => child.kill('SIGKILL'), childDeadlineMs);
  try {
    const [code, signal] = (await exited) as [number | null, string | null];
    if (message === undefined) {
      throw new Error(
        `scale-child ${args.slice(0, 2).join(' ')}: exited (${signal ?? code}) without a result` +
          (signal === 'SIGKILL' ? ` (killed after ${childDeadlineMs / 1000} s)` : ''),
      );
    }
    return message;
  } finally {
    clearTimeout(deadline);
  }
}

interface Row {
  name: string;
  result?: ScaleResult;
  error?: string;
}

async function runAll(contenders: string[], args: (name: string) => string[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const name of contenders) {
    try {
      const result = await measureInChild(args(name));
      rows.push({ name, result });
    } catch (error) {
      rows.push({ name, error: error instanceof Error ? error.message : String(error) });
    }
    const row = rows[rows.length - 1] as Row;
    console.log(
      `  ${name.padEnd(16)} ${row.result === undefined ? `FAILED: ${row.error}` : '(done)'}  ${load()}`,
    );
  }
  return rows;
}

const summary: Parameters<typeof recordResults>[1] = {
  sizes: { ...sizes, keys },
  contenders: {},
  ratios: {},
  goals: {},
};

async function syncPart(): Promise<void> {
  const server = await startServerChild(['envtest', 'bench-w5']);
  try {
    console.log(`A. sync: ${server.description}, in a child process; ${load()}`);
    const seedMs = await seed(server.kubeconfigPath, server.namespace);
    console.log(
      `  seeded ${thousands(sizes.objects)} ConfigMaps (POST, ${sizes.parallel} in flight) in ${seconds(seedMs)}: ` +
        `${thousands(sizes.objects / (seedMs / 1000))} creates/s; ${load()}`,
    );
    summary.notes = `sync on ${server.description.replace(/ at .*/, '')}`;
    const runs = await runAll(syncContenders, (name) => [
      'sync',
      name,
      server.kubeconfigPath,
      server.namespace,
      String(sizes.objects),
    ]);
    const rows: Row[] = [];
    for (const run of runs) {
      const earlier = rows.findIndex((row) => row.name === run.name);
      if (earlier === -1) rows.push(run);
      else if (
        (run.result?.ms ?? Number.POSITIVE_INFINITY) <
        (rows[earlier]?.result?.ms ?? Number.POSITIVE_INFINITY)
      ) {
        rows[earlier] = run;
      }
    }
    const limits = runs.filter((run) => run.name === 'limit' && run.result !== undefined);
    console.log(
      `  limit runs: ${limits.map((run) => seconds(run.result?.ms ?? 0)).join(', ')} (the faster one below)`,
    );
    console.log(
      `  ${'contender'.padEnd(16)} ${'sync'.padStart(9)} ${'objects/s'.padStart(10)} ${'bytes/object'.padStart(13)} ` +
        `${'peak heap'.padStart(11)} ${'RSS'.padStart(11)} ${'max RSS'.padStart(11)}`,
    );
    for (const { name, result: r } of rows) {
      if (r === undefined) continue;
      if (r.objects !== sizes.objects)
        console.log(`  ${name}: holds ${r.objects} of ${sizes.objects} objects`);
      console.log(
        `  ${name.padEnd(16)} ${seconds(r.ms).padStart(9)} ${thousands(r.objects / (r.ms / 1000)).padStart(10)} ` +
          `${thousands(r.heapBytes / sizes.objects).padStart(11)} B ${mib(r.peakHeapBytes).padStart(11)} ` +
          `${mib(r.rssBytes).padStart(11)} ${mib(r.maxRssBytes).padStart(11)}`,
      );
      summary.contenders[`sync ${name}`] = {
        syncMs: Math.round(r.ms),
        objectsPerSecond: Math.round(r.objects / (r.ms / 1000)),
        bytesPerObject: Math.round(r.heapBytes / sizes.objects),
        peakHeapMiB: Math.round(r.peakHeapBytes / 1048576),
        rssMiB: Math.round(r.rssBytes / 1048576),
        maxRssMiB: Math.round(r.maxRssBytes / 1048576),
      };
    }
    const byName = new Map(rows.map((row) => [row.name, row.result]));
    const lasso = byName.get('@lasso/cache');
    const limit = byName.get('limit');
    if (lasso !== undefined) {
      const bytes = lasso.heapBytes / sizes.objects;
      const ratios = summary.ratios as Record<string, number>;
      const goals = summary.goals as Record<string, boolean>;
      goals['bytes/object <= 1,500 (lasso)'] = bytes <= 1500;
      console.log(
        `  goal: lasso bytes/object <= 1,500: ${thousands(bytes)} B, ${bytes <= 1500 ? 'met' : 'NOT met'}`,
      );
      if (limit !== undefined) {
        const rate = limit.ms / lasso.ms;
        ratios['sync rate lasso / limit'] = Number(rate.toFixed(3));
        goals['sync rate >= 0.8x the limit'] = rate >= 0.8;
        console.log(
          `  goal: lasso sync rate >= 0.8x the limit's: ${rate.toFixed(2)}x, ${rate >= 0.8 ? 'met' : 'NOT met'} ` +
            `(the limit holds the raw objects: ${thousands(limit.heapBytes / sizes.objects)} B/object)`,
        );
      }
      for (const peer of ['client-node 2.0', 'client-node 1.4']) {
        const p = byName.get(peer);
        if (p === undefined) continue;
        ratios[`sync time ${peer} / lasso`] = Number((p.ms / lasso.ms).toFixed(3));
        ratios[`bytes/object ${peer} / lasso`] = Number((p.heapBytes / lasso.heapBytes).toFixed(3));
        ratios[`RSS ${peer} / lasso`] = Number((p.rssBytes / lasso.rssBytes).toFixed(3));
        console.log(
          `  ${peer} / lasso: sync time ${(p.ms / lasso.ms).toFixed(2)}x, bytes/object ` +
            `${(p.heapBytes / lasso.heapBytes).toFixed(2)}x, RSS ${(p.rssBytes / lasso.rssBytes).toFixed(2)}x ` +
            '(above 1: lasso is faster / smaller)',
        );
      }
    }
  } finally {
    await server.stop();
  }
}

async function streamPart(): Promise<void> {
  console.log(
    `B. synthetic stream: ${thousands(sizes.events)} events (${thousands(keys)} distinct objects, ADDED then ` +
      'MODIFIED) from an in-memory lister-watcher, made as they are pulled, through the informer alone ' +
      `(no HTTP, no JSON); ${load()}`,
  );
  const rows = await runAll(streamContenders, (name) => [
    'stream',
    name,
    String(sizes.events),
    String(keys),
  ]);
  for (const { name, result: r } of rows) {
    if (r === undefined) continue;
    const rate = sizes.events / (r.ms / 1000);
    const perObject = r.objects > 0 ? `, ${thousands(r.heapBytes / r.objects)} B/object held` : '';
    console.log(
      `  ${name.padEnd(16)} ${thousands(rate).padStart(9)} events/s (${seconds(r.ms)}), heap after +${mib(r.heapBytes)}` +
        `${perObject}, peak +${mib(r.peakHeapBytes)}, max RSS ${mib(r.maxRssBytes)}`,
    );
    summary.contenders[`stream ${name}`] = {
      eventsPerSecond: Math.round(rate),
      heapMiB: Math.round(r.heapBytes / 1048576),
      bytesPerObject: r.objects > 0 ? Math.round(r.heapBytes / r.objects) : 0,
      peakHeapMiB: Math.round(r.peakHeapBytes / 1048576),
      maxRssMiB: Math.round(r.maxRssBytes / 1048576),
    };
  }
  const lasso = rows.find((row) => row.name === '@lasso/cache')?.result;
  for (const peer of ['client-node 2.0', 'client-node 1.4', 'producer']) {
    const p = rows.find((row) => row.name === peer)?.result;
    if (lasso === undefined || p === undefined) continue;
    (summary.ratios as Record<string, number>)[`stream events/s ${peer} / lasso`] = Number(
      (lasso.ms / p.ms).toFixed(3),
    );
    console.log(
      `  ${peer} / lasso events/s: ${(lasso.ms / p.ms).toFixed(2)}x (above 1: lasso is slower)`,
    );
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  console.log(
    'W5 scale: ConfigMaps of the W2 fixture (1 KiB data, 3 labels), each contender in its own process; bytes/object = ' +
      `heapUsed after full GCs with the informer alive minus before, / objects; ${machineNote()}; ${load()}`,
  );
  if ((sizes.parts & 1) !== 0) await syncPart();
  if ((sizes.parts & 2) !== 0) await streamPart();
  console.log(`W5 done in ${seconds(performance.now() - started)}; ${load()}`);
  recordResults('W5', summary);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
