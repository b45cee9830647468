// `pnpm bench:watch`: W3 (ARCHITECTURE.md section 5). A list of 1,000 ConfigMaps, then 200,000 MODIFIED events
// streamed as fast as the socket allows, by a loopback HTTP server in a child process (stream-server.ts: the
// same bytes for every contender). Events/s from start to the 200,000th event counted by a handler, for
// @lasso/cache, client-node's informer and the limit (undici read + JSON.parse of each line, no cache); each
// several rounds (median), one at a time. Sizes: --objects N --events N --rounds N. `--baseline DIR` adds a second
// lasso build for A/B runs in one process: DIR holds `node_modules/@lasso/{core,workqueue,client,cache}` (each a
// package.json and its dist, e.g. copied before a change), and the peer is skipped; such a run is not recorded.
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { importBaseline, takeBaseline } from './baseline.ts';
import { startServerChild } from './child.ts';
import {
  type Contender,
  clientNode14Contender,
  clientNodeContender,
  type LassoCacheModules,
  lassoContender,
  lassoContenderOf,
} from './contenders.ts';
import { countdown } from './countdown.ts';
import { configMapName } from './fixtures.ts';
import { heapSampler } from './heap-sampler.ts';
import { machineNote, median, mib, parseSizes, recordResults, settledHeapUsed } from './measure.ts';

const { baselineDir, rest: sizeArgs } = takeBaseline(process.argv.slice(2));
const sizes = parseSizes(sizeArgs, { objects: 1_000, events: 200_000, rounds: 5 });

/** The lasso contender built from the packages under `dir` (see `--baseline`). */
async function baselineContender(dir: string): Promise<Contender> {
  const cache = await importBaseline(dir, 'cache');
  const client = await importBaseline(dir, 'client');
  return lassoContenderOf('baseline', {
    Client: client.Client as LassoCacheModules['Client'],
    loadKubeConfig: client.loadKubeConfig as LassoCacheModules['loadKubeConfig'],
    RestTransport: client.RestTransport as LassoCacheModules['RestTransport'],
    createCache: cache.createCache as LassoCacheModules['createCache'],
  });
}

interface RunResult {
  eventsPerSecond: number;
  /** Highest heapUsed sampled during the run, above the settled heap before it. */
  peakHeapBytes: number;
}

interface Runner {
  readonly name: string;
  run(kubeconfigPath: string, namespace: string): Promise<number>;
}

/** An informer: elapsed ms from start until its update handler has counted every event. */
function informerRunner(contender: Contender): Runner {
  return {
    name: contender.name,
    async run(kubeconfigPath, namespace) {
      const updated = countdown(sizes.events);
      const start = await contender.prepare(kubeconfigPath, namespace, {
        onAdd: () => undefined,
        onUpdate: updated.tick,
      });
      const started = performance.now();
      const informer = start();
      try {
        await Promise.race([updated.done, informer.failed]);
        const elapsed = performance.now() - started;
        // Every event went through the store: the last one of each object left its resourceVersion there.
        const last = sizes.events - 1;
        const expected = String(sizes.objects + 1 + last);
        const stored = informer.resourceVersionOf(configMapName(last % sizes.objects));
        if (informer.size() !== sizes.objects || stored !== expected) {
          throw new Error(
            `${contender.name}: store has ${informer.size()} objects, last resourceVersion ${stored} (want ${expected})`,
          );
        }
        return elapsed;
      } finally {
        await informer.stop();
      }
    },
  };
}

/** Read a token from the kubeconfig the stream server wrote (it accepts any). */
const streamHeaders = { authorization: 'Bearer bench-token' };

async function serverUrl(kubeconfigPath: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const match = /server: (\S+)/.exec(await readFile(kubeconfigPath, 'utf8'));
  if (match?.[1] === undefined) throw new Error('no server in the stream kubeconfig');
  return match[1];
}

/**
 * Raw reading: the list, then the watch body split into lines; `parse` says whether each line is
 * JSON.parsed and counted by type (the limit) or only counted (the socket floor).
 */
function rawRunner(name: string, parse: boolean): Runner {
  return {
    name,
    async run(kubeconfigPath, namespace) {
      const base = `${await serverUrl(kubeconfigPath)}/api/v1/namespaces/${namespace}/configmaps`;
      const agent = new Agent();
      const started = performance.now();
      try {
        const listResponse = await request(base, { dispatcher: agent, headers: streamHeaders });
        const list = JSON.parse(await listResponse.body.text()) as {
          metadata: { resourceVersion: string };
          items: unknown[];
        };
        if (list.items.length !== sizes.objects) throw new Error(`${name}: short list`);
        const watchUrl = `${base}?watch=true&resourceVersion=${list.metadata.resourceVersion}`;
        const response = await request(watchUrl, { dispatcher: agent, headers: streamHeaders });
        response.body.setEncoding('utf8');
        let modified = 0;
        let rest = '';
        for await (const chunk of response.body as AsyncIterable<string>) {
          let text = rest + chunk;
          let newline = text.indexOf('\n');
          let from = 0;
          while (newline !== -1) {
            if (parse) {
              const event = JSON.parse(text.slice(from, newline)) as { type: string };
              if (event.type === 'MODIFIED') modified++;
            } else {
              modified++;
            }
            from = newline + 1;
            newline = text.indexOf('\n', from);
          }
          text = text.slice(from);
          rest = text;
          if (modified >= sizes.events) break; // leaving the loop destroys the body
        }
        if (modified !== sizes.events) throw new Error(`${name}: ${modified} events`);
        return performance.now() - started;
      } finally {
        await agent.close();
      }
    },
  };
}

async function measure(
  runner: Runner,
  kubeconfigPath: string,
  namespace: string,
): Promise<RunResult> {
  const baseline = settledHeapUsed();
  const sampler = heapSampler();
  const elapsed = await runner.run(kubeconfigPath, namespace);
  return {
    eventsPerSecond: sizes.events / (elapsed / 1000),
    peakHeapBytes: sampler.stop() - baseline,
  };
}

const rate = (eventsPerSecond: number): string =>
  `${(eventsPerSecond / 1000).toFixed(1)} k ev/s`.padStart(12);

async function main(): Promise<void> {
  console.log(
    `W3 watch-throughput: list of ${sizes.objects.toLocaleString('en-US')} ConfigMaps (1 KiB data, 3 labels), then ` +
      `${sizes.events.toLocaleString('en-US')} MODIFIED events; ${sizes.rounds} rounds (+1 warm-up); ${machineNote()}`,
  );
  const server = await startServerChild([
    'stream',
    'bench-w3',
    String(sizes.objects),
    String(sizes.events),
  ]);
  try {
    console.log(
      `method: ${server.description} in a child process serves the list, then writes the events as fast as ` +
        'the socket drains (plain HTTP, same bytes for every contender); time = start to last event counted',
    );
    const lasso = informerRunner(lassoContender);
    const peer = informerRunner(
      baselineDir === undefined ? clientNodeContender : await baselineContender(baselineDir),
    );
    const limit = rawRunner('limit', true);
    const floor = rawRunner('socket', false);
    // client-node 1.4 as a second peer row (not in a --baseline A/B run, which replaces the peer).
    const peer14 = baselineDir === undefined ? [informerRunner(clientNode14Contender)] : [];
    const runners = [lasso, peer, ...peer14, limit];
    const results = new Map<string, RunResult[]>(
      [...runners, floor].map((runner) => [runner.name, []]),
    );
    for (const runner of runners) await runner.run(server.kubeconfigPath, server.namespace); // warm-up
    for (let round = 1; round <= sizes.rounds; round++) {
      // Rotate the order so that none always runs first (or on the heap the previous one left).
      const order = runners.map((_, index) => runners[(index + round) % runners.length] as Runner);
      const line: string[] = [];
      for (const runner of order) {
        const result = await measure(runner, server.kubeconfigPath, server.namespace);
        results.get(runner.name)?.push(result);
        line.push(`${runner.name} ${rate(result.eventsPerSecond)}`);
      }
      results.get(floor.name)?.push(await measure(floor, server.kubeconfigPath, server.namespace));
      console.log(`  round ${round}: ${line.join('   ')}`);
    }
    const summary = (name: string): { rate: number; peak: number } => {
      const runs = results.get(name) ?? [];
      return {
        rate: median(runs.map((r) => r.eventsPerSecond)),
        peak: median(runs.map((r) => r.peakHeapBytes)),
      };
    };
    const lassoSummary = summary(lasso.name);
    const peerSummary = summary(peer.name);
    const limitSummary = summary(limit.name);
    const floorSummary = summary(floor.name);
    const peer14Summary = peer14.map((runner) => [runner.name, summary(runner.name)] as const);
    for (const [name, s] of [
      ['@lasso/cache', lassoSummary],
      [peer.name, peerSummary],
      ...peer14Summary,
      ['limit', limitSummary],
    ] as const) {
      console.log(
        `${name.padEnd(13)} median ${rate(s.rate)}, peak heap during the run +${mib(s.peak)}`,
      );
    }
    console.log(
      `ratios: ${peer.name} / lasso ${(peerSummary.rate / lassoSummary.rate).toFixed(2)}x, ` +
        `limit / lasso ${(limitSummary.rate / lassoSummary.rate).toFixed(2)}x (events/s; above 1: lasso is slower)`,
    );
    console.log(
      `(info) socket only (lines counted, not parsed): ${rate(floorSummary.rate)}: the server is not the bottleneck when this is well above the limit`,
    );
    // A --baseline run is an A/B experiment (its peer is the baseline build): not recorded, as README says.
    if (baselineDir === undefined) {
      recordResults('W3', {
        sizes,
        contenders: Object.fromEntries(
          [
            ['@lasso/cache', lassoSummary],
            [peer.name, peerSummary],
            ...peer14Summary,
            ['limit', limitSummary],
            ['socket only', floorSummary],
          ].map(([name, s]) => [
            name as string,
            {
              eventsPerSecond: Math.round((s as { rate: number }).rate),
              peakHeapBytes: (s as { peak: number }).peak,
            },
          ]),
        ),
        ratios: Object.fromEntries(
          [[peer.name, peerSummary], ...peer14Summary, ['limit', limitSummary]].map(([name, s]) => [
            `${name as string} / lasso events/s`,
            Number(((s as { rate: number }).rate / lassoSummary.rate).toFixed(3)),
          ]),
        ),
        goals: {
          'lasso >= 1.15x client-node 2.0': lassoSummary.rate >= 1.15 * peerSummary.rate,
          'lasso >= 0.8x the limit': lassoSummary.rate >= 0.8 * limitSummary.rate,
        },
      });
    }
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
