// Replaying, on a gain, the deletions that happened while a range was between owners (issue 32, "0 lost final
// states"). The previous holder published its deletion watermark W per kind (deletion-watermark.ts): every deletion
// it received up to W was settled there. Once this replica's informer stored its list of the gained ranges, the
// objects of those ranges that existed at W and are absent now were deleted after W: each is reconciled here as a
// deletion (its handler runs with no object). A deletion the previous holder did settle after W is reconciled
// twice, which a deletion reconcile must bear anyway (it is retried after any failure). Best effort: a W already
// compacted (410) or any failure is logged and counted, and never holds the hand-off.
import { isGone, type KubeObjectLike, type ObjectList } from '@lasso/client';
import { type Counter, errorMessage, type Logger, type MetricsProvider } from '@lasso/core';
import { formatShardSelector } from '@lasso/core/sharding';
import { mergeShardRanges } from './assignment.ts';
import { formatRangeList } from './held-ranges.ts';
import type { KindShard } from './kind-shard.ts';
import { decodeWatermarks, type Watermarks } from './watermark-annotation.ts';

/** Page size of a replay's list. */
const pageSize = 500;

/** How a replay ended (the `outcome` label of `lasso_shard_deletion_replays_total`). */
export type ReplayOutcome = 'replayed' | 'listed' | 'expired' | 'failed' | 'cancelled' | 'unlisted';

/** How a replay ended, and the keys it reconciles as deleted (undefined when it did not complete). */
export interface ReplayResult {
  readonly outcome: ReplayOutcome;
  readonly keys: ReadonlySet<string> | undefined;
}

/** What a replay needs of its coordinator. */
export interface ReplayHost {
  readonly rangeCount: number;
  readonly logger: Logger;
  readonly metrics: MetricsProvider;
  /** True while reconciles of `range` may start here. */
  acting(range: number): boolean;
}

/** Per kind: how the counters of replays are made once. */
export class ReplayMetrics {
  readonly #metrics: MetricsProvider;
  readonly #outcomes = new Map<string, Counter>();
  readonly #keys = new Map<string, Counter>();

  constructor(metrics: MetricsProvider) {
    this.#metrics = metrics;
  }

  outcome(kind: string, outcome: ReplayOutcome): void {
    const name = `${kind}\n${outcome}`;
    let counter = this.#outcomes.get(name);
    if (counter === undefined) {
      counter = this.#metrics.counter({
        name: 'lasso_shard_deletion_replays_total',
        help: 'Lists of a gained range at its previous holder’s deletion watermark, by outcome.',
        labels: { kind, outcome },
      });
      this.#outcomes.set(name, counter);
    }
    counter.inc();
  }

  keys(kind: string, count: number): void {
    let counter = this.#keys.get(kind);
    if (counter === undefined) {
      counter = this.#metrics.counter({
        name: 'lasso_shard_deletions_replayed_total',
        help: 'Keys reconciled as deleted because a gained range’s replay found them gone since the watermark.',
        labels: { kind },
      });
      this.#keys.set(kind, counter);
    }
    counter.inc(count);
  }
}

/**
 * Decode the previous holders' annotations of `previous` (by gained range): by annotation, the ranges and the
 * watermarks. An annotation that does not decode is logged once here and replays nothing.
 */
export function previousWatermarks(
  previous: ReadonlyMap<number, string | undefined>,
  logger: Logger,
): Array<{ readonly ranges: number[]; readonly watermarks: Watermarks }> {
  const byText = new Map<string, number[]>();
  for (const [range, text] of previous) {
    if (text === undefined) continue;
    const ranges = byText.get(text) ?? [];
    ranges.push(range);
    byText.set(text, ranges);
  }
  const out: Array<{ ranges: number[]; watermarks: Watermarks }> = [];
  for (const [text, ranges] of byText) {
    try {
      const watermarks = decodeWatermarks(text);
      if (watermarks !== undefined) out.push({ ranges, watermarks });
    } catch (error) {
      logger.warn(
        'the previous holder of gained shard ranges published unreadable deletion watermarks: no deletion replayed for them',
        { ranges: formatRangeList(ranges), error: errorMessage(error) },
      );
    }
  }
  return out;
}

/**
 * How long the replay's watch from the watermark runs: the server sends the events since the watermark at once
 * (history first), then ends the watch after this long.
 */
export const replayWatchSeconds = 2;

/**
 * Replay the deletions of `ranges` of `shard`'s kind since `watermark` (see the top of this file). First a watch
 * from the watermark: every deletion since, of objects created before or after it. Where the server no longer has
 * that history (410), a list at the watermark: the objects that existed then and are gone now (a deletion of an
 * object created after the watermark is then missed, said in the warning). Resolves with the outcome; never rejects.
 */
export async function replayDeletions(
  host: ReplayHost,
  shard: KindShard,
  ranges: readonly number[],
  watermark: string,
  signal: AbortSignal,
  counters: ReplayMetrics,
  onReplaying?: (keys: ReadonlySet<string>) => void,
): Promise<ReplayResult> {
  const controlled = shard.controller;
  const attributes = {
    kind: shard.name,
    ranges: formatRangeList([...ranges]),
    resourceVersion: watermark,
  };
  const done = (outcome: ReplayOutcome, keys?: ReadonlySet<string>): ReplayResult => {
    counters.outcome(shard.name, outcome);
    return { outcome, keys };
  };
  if (controlled?.listAt === undefined || controlled.watchFrom === undefined) {
    return done('unlisted');
  }
  const wanted = new Set(ranges);
  const listed = await shard.whenListed(wanted, signal);
  if (!listed) {
    if (signal.aborted) return done('cancelled');
    host.logger.warn(
      'deletions of gained shard ranges not replayed: the informer did not store a list of them in time',
      attributes,
    );
    return done('unlisted');
  }
  const selector = shard.byOwner
    ? undefined
    : formatShardSelector({
        key: shard.key,
        ranges: mergeShardRanges(wanted, host.rangeCount),
      });
  // Key -> last state of each object of the ranges gone since the watermark (undefined: it exists again).
  const gone = new Map<string, KubeObjectLike | undefined>();
  const note = (type: string, object: KubeObjectLike): void => {
    // Filtered here too: a server that ignores shardSelector (before 1.36) sends every object.
    if (!wanted.has(shard.rangeOf(object))) return;
    const key = keyOf(object);
    if (key === undefined) return;
    gone.set(key, type === 'DELETED' ? object : undefined);
  };
  let how: 'watch' | 'list' = 'watch';
  try {
    try {
      const events = controlled.watchFrom({
        resourceVersion: watermark,
        timeoutSeconds: replayWatchSeconds,
        ...(selector === undefined ? {} : { shardSelector: selector }),
        signal,
      });
      for await (const event of events) {
        if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') {
          note(event.type, event.object);
        }
      }
    } catch (error) {
      if (!isGone(error) || signal.aborted) throw error;
      // The history since the watermark is gone: what existed at it and is gone now, at least.
      how = 'list';
      gone.clear();
      let continueToken: string | undefined;
      do {
        const page: ObjectList<KubeObjectLike> = await controlled.listAt({
          resourceVersion: watermark,
          resourceVersionMatch: 'Exact',
          limit: pageSize,
          ...(continueToken === undefined ? {} : { continue: continueToken }),
          ...(selector === undefined ? {} : { shardSelector: selector }),
          signal,
        });
        for (const object of page.items) note('DELETED', object);
        const token = page.metadata?.continue;
        continueToken = typeof token === 'string' && token !== '' ? token : undefined;
      } while (continueToken !== undefined && !signal.aborted);
    }
  } catch (error) {
    if (signal.aborted) return done('cancelled');
    const expired = isGone(error);
    host.logger.warn(
      expired
        ? 'deletions of gained shard ranges not replayed: the previous holder’s watermark was compacted (410); deletions between owners may be missed'
        : 'deletions of gained shard ranges not replayed: the replay at the previous holder’s watermark failed; deletions between owners may be missed',
      { ...attributes, error: errorMessage(error) },
    );
    return done(expired ? 'expired' : 'failed');
  }
  if (signal.aborted) return done('cancelled');
  const held = new Set<string>();
  for (const object of controlled.list()) {
    const key = keyOf(object);
    if (key !== undefined) held.add(key);
  }
  const keys = new Set<string>();
  for (const [key, state] of gone) {
    // Only once the range is acted on here (the admit check says so again when the key is taken).
    if (state === undefined || held.has(key) || !host.acting(shard.rangeOf(state))) continue;
    keys.add(key);
  }
  // Counted before they are queued: a reconcile settles each key against this set.
  const replayed = keys.size;
  onReplaying?.(keys);
  for (const key of keys)
    controlled.controller.enqueueDeleted(key, gone.get(key) as KubeObjectLike);
  counters.keys(shard.name, replayed);
  if (how === 'list') {
    host.logger.warn(
      'deletions of gained shard ranges replayed from a list at the previous holder’s watermark (its watch history was compacted): a deletion of an object created after it may be missed',
      { ...attributes, deletions: replayed },
    );
    return done('listed', keys);
  }
  host.logger.info(
    'replayed deletions of gained shard ranges since the previous holder’s watermark',
    {
      ...attributes,
      deletions: replayed,
    },
  );
  return done('replayed', keys);
}

function keyOf(object: KubeObjectLike): string | undefined {
  const name = object.metadata?.name;
  if (typeof name !== 'string') return undefined;
  const namespace = object.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}
