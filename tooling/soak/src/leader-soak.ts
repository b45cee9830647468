// The leader-election soak: two replicas (processes) of a controller behind runWithLeaderElection while a writer
// churns ConfigMaps. The leader is SIGKILLed (the standby must take over within the lease), a new standby is
// started, then the new leader is SIGSTOPped past its lease and resumed (it must stop reconciling: fencing).
// Reconciles are recorded per replica to files and checked for overlap.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Child, forkChild, within } from './ipc.ts';
import { leaseTiming } from './kinds.ts';
import type { Random } from './random.ts';
import type { ReplicaMessage } from './replica-process.ts';
import type { Report } from './report.ts';
import { formatMs, type Interval, overlaps } from './stats.ts';
import type { WriterMessage } from './writer-process.ts';

/** After a resumed leader's SIGCONT, its reconciles must have ended within this (it has to notice). */
export const fencingGraceMs = 1_000;

interface Replica {
  identity: string;
  child: Child<ReplicaMessage>;
  recordPath: string;
}

/** Run the leader-election soak against the server at `kubeconfigPath` in `namespace`. */
export async function runLeaderSoak(
  random: Random,
  kubeconfigPath: string,
  directory: string,
  namespace: string,
  report: Report,
): Promise<void> {
  const replicas: Replica[] = [];
  const leading: Array<{ identity: string; at: number }> = [];
  const stoppedLeading = new Map<string, number>();
  let serial = 0;
  let onLeader: ((identity: string) => void) | undefined;
  const startReplica = async (): Promise<Replica> => {
    const identity = `replica-${serial++}`;
    const recordPath = join(directory, `${identity}.jsonl`);
    const child = forkChild<ReplicaMessage>('replica-process.js', [
      kubeconfigPath,
      identity,
      recordPath,
      namespace,
    ]);
    const replica = { identity, child, recordPath };
    replicas.push(replica);
    await within(child.nextOf('ready'), 60_000, `${identity} ready`);
    // Listen to leadership messages for the rest of its life.
    void (async () => {
      for (;;) {
        const message = await child.next().catch(() => undefined);
        if (message === undefined) return;
        if (message.type === 'leading') {
          leading.push({ identity, at: message.at });
          onLeader?.(identity);
        } else if (message.type === 'stopped-leading') stoppedLeading.set(identity, message.at);
      }
    })();
    return replica;
  };
  const nextLeader = (other?: string): Promise<string> =>
    new Promise((resolve) => {
      const current = leading.at(-1);
      if (
        current !== undefined &&
        current.identity !== other &&
        !stoppedLeading.has(current.identity)
      ) {
        resolve(current.identity);
        return;
      }
      onLeader = (identity) => {
        if (identity === other) return;
        onLeader = undefined;
        resolve(identity);
      };
    });
  const byIdentity = (identity: string): Replica =>
    replicas.find((replica) => replica.identity === identity) as Replica;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const leaseMs = leaseTiming.leaseDurationMs;
  const takeoverBoundMs = leaseMs + 4 * leaseTiming.retryPeriodMs + 2_000;
  let resumed: { identity: string; at: number } | undefined;

  const writer = forkChild<WriterMessage>('writer-process.js', [
    kubeconfigPath,
    String(random.int(0, 0xffff_ffff)),
    '30',
    '10',
    namespace,
  ]);
  await within(writer.nextOf('ready'), 60_000, 'leader writer ready');
  await Promise.all([startReplica(), startReplica()]);
  const first = await within(nextLeader(), 30_000, 'a first leader');
  await pause(3_000);

  // 1. SIGKILL the leader: the standby takes over once the lease expires.
  const killedAt = Date.now();
  byIdentity(first).child.process.kill('SIGKILL');
  const second = await within(
    nextLeader(first),
    takeoverBoundMs + 10_000,
    'takeover after SIGKILL',
  ).catch(() => undefined);
  const killTakeoverMs =
    second === undefined ? Infinity : (leading.at(-1)?.at ?? Infinity) - killedAt;
  report.line(
    `leader: ${first} SIGKILLed, ${second ?? 'nobody'} took over after ${formatMs(killTakeoverMs)} (lease ${formatMs(leaseMs)})`,
  );
  report.check(
    `takeover after SIGKILL within ${formatMs(takeoverBoundMs)}`,
    killTakeoverMs <= takeoverBoundMs,
    formatMs(killTakeoverMs),
  );
  if (second === undefined) return finish();

  await startReplica();
  await pause(3_000);

  // 2. SIGSTOP the leader past its lease; the standby takes over; SIGCONT: the old leader must be fenced.
  const paused = byIdentity(second);
  const stoppedAt = Date.now();
  paused.child.process.kill('SIGSTOP');
  const third = await within(
    nextLeader(second),
    takeoverBoundMs + 10_000,
    'takeover after SIGSTOP',
  ).catch(() => undefined);
  const stopTakeoverMs =
    third === undefined ? Infinity : (leading.at(-1)?.at ?? Infinity) - stoppedAt;
  await pause(1_000);
  const resumedAt = Date.now();
  paused.child.process.kill('SIGCONT');
  resumed = { identity: second, at: resumedAt };
  report.line(
    `leader: ${second} SIGSTOPped, ${third ?? 'nobody'} took over after ${formatMs(stopTakeoverMs)}; resumed ${formatMs(resumedAt - stoppedAt)} after the stop`,
  );
  report.check(
    `takeover after SIGSTOP within ${formatMs(takeoverBoundMs)}`,
    stopTakeoverMs <= takeoverBoundMs,
    formatMs(stopTakeoverMs),
  );
  const pausedExit = await within(paused.child.exited, 15_000, 'the resumed leader stops').catch(
    () => 'still running',
  );
  report.check(
    'the resumed leader stops on its own and exits 0 once it lost the lease',
    pausedExit === 0,
    `exit ${pausedExit}`,
  );
  const fencedAt = stoppedLeading.get(second);
  report.line(
    `leader: the resumed ${second} ${fencedAt === undefined ? 'never reported losing the lease' : `noticed the loss ${formatMs(fencedAt - resumedAt)} after SIGCONT`}`,
  );
  await pause(2_000);
  return finish();

  async function finish(): Promise<void> {
    writer.send({ type: 'stop' });
    await within(writer.nextOf('stopped'), 30_000, 'leader writer stopped').catch(() => undefined);
    for (const replica of replicas) replica.child.disconnect();
    await Promise.all(
      replicas.map((replica) =>
        within(replica.child.exited, 15_000, `${replica.identity} exit`).catch(() => {
          replica.child.process.kill('SIGKILL');
        }),
      ),
    );
    const intervals: Interval[] = replicas.flatMap((replica) => readIntervals(replica.recordPath));
    const all = overlaps(intervals);
    report.line(
      `leader: ${intervals.length} reconciles by ${new Set(intervals.map((i) => i.replica)).size} replicas; ${all.length} overlapping pairs in all (${formatMs(all.reduce((sum, o) => sum + o.ms, 0))}), max ${formatMs(Math.max(0, ...all.map((o) => o.ms)))}`,
    );
    // A reconcile may only start while its replica holds the lease as the server sees it: between its
    // acquisition and the next replica's acquisition.
    const holderAt = (time: number): string | undefined =>
      leading.filter((entry) => entry.at <= time).at(-1)?.identity;
    // Except the window the elector's fencing documents: a resumed leader runs the callbacks due on waking
    // (a reconcile ending, the next one starting) before its first elector timer aborts leadership. Those
    // starts, before it noticed the loss and within the fencing grace of SIGCONT, are reported, not failed.
    const noticedAt =
      resumed === undefined
        ? undefined
        : Math.min(stoppedLeading.get(resumed.identity) ?? Infinity, resumed.at + fencingGraceMs);
    const inWakeWindow = (interval: Interval): boolean =>
      resumed !== undefined &&
      noticedAt !== undefined &&
      interval.replica === resumed.identity &&
      interval.start >= resumed.at &&
      interval.start <= noticedAt;
    const wakeStarts = intervals.filter(
      (interval) => holderAt(interval.start) !== interval.replica && inWakeWindow(interval),
    );
    report.line(
      `leader: ${wakeStarts.length} reconciles started by the resumed leader after SIGCONT before it noticed the loss`,
    );
    const startedByNonHolder = intervals.filter(
      (interval) => holderAt(interval.start) !== interval.replica && !inWakeWindow(interval),
    );
    report.check(
      'no reconcile started by a replica that did not hold the lease',
      startedByNonHolder.length === 0,
      startedByNonHolder.length === 0
        ? ''
        : `${startedByNonHolder.length}, e.g. ${startedByNonHolder
            .slice(0, 3)
            .map((i) => `${i.replica} ${i.key} at +${i.start - (leading[0]?.at ?? 0)} ms`)
            .join(', ')}`,
    );
    if (resumed === undefined) return;
    const fencingPoint = resumed.at + fencingGraceMs;
    const afterFencing = overlaps(intervals, fencingPoint);
    report.check(
      `no overlapping reconciles later than ${formatMs(fencingGraceMs)} after the resumed leader's SIGCONT`,
      afterFencing.length === 0,
      afterFencing.length === 0
        ? ''
        : `${afterFencing.length} pairs, max ${formatMs(Math.max(...afterFencing.map((o) => o.ms)))}`,
    );
  }
}

function readIntervals(path: string): Interval[] {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Interval];
      } catch {
        return []; // a line cut by SIGKILL
      }
    });
}
