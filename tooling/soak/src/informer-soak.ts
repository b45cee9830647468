// The informer soak: a SharedControllerFactory (consumer process) under writer processes churning ConfigMaps and
// Widgets while the server process applies every fault the built-in API server has, at random; then quiet.

import type { SoakOptions } from './args.ts';
import type { ConsumerMessage, ConsumerResult } from './consumer-process.ts';
import { faultKinds } from './faults.ts';
import { type Child, forkChild, within } from './ipc.ts';
import { soakNamespaces } from './kinds.ts';
import type { Random } from './random.ts';
import type { Report } from './report.ts';
import type { ServerMessage } from './server-process.ts';
import { formatMs, percentile } from './stats.ts';
import type { WriterMessage } from './writer-process.ts';

/** Run the informer soak against `server` (kubeconfig at `kubeconfigPath`), adding its checks to `report`. */
export async function runInformerSoak(
  options: SoakOptions,
  random: Random,
  server: Child<ServerMessage>,
  kubeconfigPath: string,
  report: Report,
): Promise<void> {
  const consumer = forkChild<ConsumerMessage>(
    'consumer-process.js',
    [kubeconfigPath, String(random.int(0, 0xffff_ffff)), options.verbose ? 'verbose' : ''],
    { execArgv: ['--expose-gc'] },
  );
  const synced = await within(consumer.nextOf('synced'), 120_000, 'the factory synced');
  const namespaces = soakNamespaces(options.namespaces);
  const writers: Array<Child<WriterMessage>> = [];
  for (let index = 0; index < options.writers; index++) {
    const mine = namespaces.filter((_, n) => n % options.writers === index);
    if (mine.length === 0) continue;
    writers.push(
      forkChild<WriterMessage>('writer-process.js', [
        kubeconfigPath,
        String(random.int(0, 0xffff_ffff)),
        String(options.rate / options.writers),
        String(options.cap),
        mine.join(','),
      ]),
    );
  }
  await within(
    Promise.all(writers.map((writer) => writer.nextOf('ready'))),
    60_000,
    'writers ready',
  );

  // Faults: the kinds in a shuffled order, round after round, so that a run of 18+ faults applies every kind.
  const faultsByKind = new Map<string, number>();
  const started = Date.now();
  let seq = 0;
  let round: typeof faultKinds = [];
  while (Date.now() - started < options.durationS * 1000) {
    if (round.length === 0) round = [...faultKinds].sort(() => random() - 0.5);
    const [kind, ...rest] = round;
    round = rest;
    if (kind === undefined) break;
    const action = kind.draw(random);
    if (options.verbose)
      process.stderr.write(`${new Date().toISOString()} fault ${JSON.stringify(action)}\n`);
    server.send({ type: 'fault', seq: seq++, action });
    faultsByKind.set(kind.name, (faultsByKind.get(kind.name) ?? 0) + 1);
    const waitMs = Math.min(
      random.int(300, 2_000),
      Math.max(0, options.durationS * 1000 - (Date.now() - started)),
    );
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
  server.send({ type: 'quiet' });
  await within(server.nextOf('quiet'), 30_000, 'faults removed');
  for (const writer of writers) writer.send({ type: 'stop' });
  const written = await within(
    Promise.all(writers.map((writer) => writer.nextOf('stopped'))),
    30_000,
    'writers stopped',
  );
  const writersExited = await Promise.all(writers.map((writer) => writer.exited));
  const quietAt = Date.now();
  consumer.send({ type: 'quiet', at: quietAt, timeoutMs: options.quietTimeoutS * 1000 });
  const { result } = await within(
    consumer.nextOf('result'),
    options.quietTimeoutS * 1000 + 120_000,
    'the consumer result',
  );
  consumer.disconnect();
  let exitedOnItsOwn = true;
  const exitCode = await within(consumer.exited, 15_000, 'consumer exit').catch(() => {
    exitedOnItsOwn = false;
    consumer.process.kill('SIGKILL');
    return 'killed';
  });

  // Whatever the consumer said after its result (a failure while it shut down).
  for (;;) {
    const message = await consumer.next().catch(() => undefined);
    if (message === undefined) break;
    if (message.type === 'failed') report.line(`factory process: ${message.message}`);
  }
  printNumbers(report, options, written, faultsByKind, result);
  checkResult(report, options, result, synced.heapMiB);
  report.check(
    'the factory process exits on its own',
    exitedOnItsOwn && exitCode === 0,
    exitedOnItsOwn ? `exit code ${exitCode}` : 'still running 15 s after it stopped everything',
  );
  report.check(
    'writers exited cleanly',
    writersExited.every((code) => code === 0),
    writersExited.join(', '),
  );
  if (options.durationS >= 30) {
    const missing = faultKinds.filter((kind) => !faultsByKind.has(kind.name)).map((k) => k.name);
    report.check(
      `every fault kind applied (${faultKinds.length})`,
      missing.length === 0,
      missing.join(', '),
    );
  }
}

function printNumbers(
  report: Report,
  options: SoakOptions,
  written: Array<Extract<WriterMessage, { type: 'stopped' }>>,
  faultsByKind: Map<string, number>,
  result: ConsumerResult,
): void {
  const writes = written.reduce((sum, w) => sum + w.writes, 0);
  const failed = written.reduce((sum, w) => sum + w.failed, 0);
  const byOp: Record<string, number> = {};
  for (const w of written)
    for (const [op, n] of Object.entries(w.byOp)) byOp[op] = (byOp[op] ?? 0) + n;
  const faults = [...faultsByKind.values()].reduce((sum, n) => sum + n, 0);
  const { added, updated, deleted } = result.events;
  const lags = result.lagsMs;
  report.line(
    `writes: ${writes} in ${options.durationS} s (${Object.entries(byOp)
      .map(([op, n]) => `${op} ${n}`)
      .join(', ')}; ${failed} failed under faults)`,
  );
  report.line(
    `events: ${added + updated + deleted} (added ${added}, updated ${updated}, deleted ${deleted}); handler calls ${result.handlerCalls}`,
  );
  report.line(
    `faults: ${faults} (${[...faultsByKind]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([kind, n]) => `${kind} ${n}`)
      .join(', ')})`,
  );
  const m = result.metrics;
  report.line(
    `relists: ${m.lasso_reflector_relists_total} (lists ${m.lasso_reflector_lists_total}, watches ${m.lasso_reflector_watches_total}, reflector errors ${m.lasso_reflector_errors_total})`,
  );
  report.line(
    `lag (write -> handler, ${lags.length} samples): p50 ${formatMs(percentile(lags, 50))}, p99 ${formatMs(percentile(lags, 99))}, max ${formatMs(Math.max(...lags))}`,
  );
  report.line(
    `convergence after the faults stopped: ${Object.entries(result.convergence)
      .map(
        ([kind, c]) =>
          `${kind} store ${c.storeMs < 0 ? 'never' : formatMs(c.storeMs)}, handlers ${c.handlersMs < 0 ? 'never' : formatMs(c.handlersMs)}`,
      )
      .join('; ')}`,
  );
  report.line(
    `longest informer silence while the writers wrote: ${Object.entries(result.longestSilenceMs)
      .map(([kind, ms]) => `${kind} ${formatMs(ms)}`)
      .join(', ')}`,
  );
  report.line(
    `heap after GC: ${result.heapBaselineMiB.toFixed(2)} MiB after sync, ${result.heapEndMiB.toFixed(2)} MiB at the end`,
  );
  if (options.verbose || result.differences.length > 0) {
    for (const difference of result.differences) report.line(`  difference: ${difference}`);
  }
  report.line(
    `log entries of the factory (top): ${result.logs.map(([k, n]) => `${k} x${n}`).join('; ')}`,
  );
}

function checkResult(
  report: Report,
  options: SoakOptions,
  result: ConsumerResult,
  heapBaselineMiB: number,
): void {
  report.check(
    'no key reconciled concurrently',
    result.concurrentReconciles === 0,
    result.concurrentReconciles === 0
      ? ''
      : `${result.concurrentReconciles} times, e.g. ${result.concurrentExamples.join(', ')}`,
  );
  const converged = Object.values(result.convergence);
  report.check(
    'every store equals the server',
    converged.every((c) => c.storeMs >= 0) && !result.differences.some((d) => /store/.test(d)),
    result.differences
      .filter((d) => /store/.test(d))
      .slice(0, 3)
      .join('; '),
  );
  report.check(
    "each key's last handler call saw its final state",
    converged.every((c) => c.handlersMs >= 0),
    result.differences
      .filter((d) => /handler/.test(d))
      .slice(0, 3)
      .join('; '),
  );
  const worst = Math.max(...converged.map((c) => (c.handlersMs < 0 ? Infinity : c.handlersMs)));
  report.check(
    `converged within ${options.convergeWithinS} s of the faults stopping`,
    worst <= options.convergeWithinS * 1000,
    formatMs(worst),
  );
  const growth = result.heapEndMiB - heapBaselineMiB;
  report.check(
    `heap after GC grew at most ${options.heapBoundMiB} MiB`,
    growth <= options.heapBoundMiB,
    `${growth >= 0 ? '+' : ''}${growth.toFixed(2)} MiB`,
  );
  report.check(
    'no unhandled rejection in the factory process',
    result.unhandledRejections.length === 0,
    result.unhandledRejections.slice(0, 3).join('; '),
  );
  report.check(
    'no process warning in the factory process',
    result.warnings.length === 0,
    result.warnings.slice(0, 3).join('; '),
  );
}
