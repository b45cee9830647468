// A sharded replica's deletion watermark of one kind (issue 32, "0 lost final states"): a resourceVersion W such
// that every deletion this replica's controller received up to W was settled here (its handler returned without
// error after seeing it, the object came back, or the key was given up). Published in the member's Lease; a replica
// that gains a range lists that range's objects at W and replays the deletions of those absent now
// (deletion-replay.ts). See "Deletions across a hand-off" in README-protocol.md.
//
// No resourceVersion is compared or parsed (they are opaque): W is the resourceVersion of the last event the
// controller received before its oldest unsettled deletion, or of the last event when none is unsettled. Events
// reach the controller in the order the informer stored them, so every event received before a deletion is at or
// before it, and an object created before the deletion was received (its add came first) exists at W.

import type { KubeObjectLike } from '@lasso/client';
import type { DeletionObserver } from '@lasso/controller';

interface Pending {
  /** The resourceVersion of the last event received before this deletion (undefined: none yet). */
  readonly before: string | undefined;
  /** The object's last state (its range is read from it). */
  readonly state: KubeObjectLike | undefined;
}

/** The deletion watermark of one kind's controller (its {@link DeletionObserver}). */
export class DeletionWatermark implements DeletionObserver {
  // Unsettled deletions by key, in the order received (a Map keeps insertion order): the first is the oldest.
  readonly #pending = new Map<string, Pending>();
  #last: string | undefined;
  // Set while a release is on its way to its acknowledgement: W as of when the informer let the ranges go.
  #floor: { readonly value: string | undefined } | undefined;
  // By gained range: the previous holder's W, published for that range until this replica's replay of it completed
  // and every deletion it replayed settled here (a deletion between that W and this replica's list is known only to
  // the replay: a member gaining the range from here before then must replay from that older W).
  readonly #inherited = new Map<number, string>();
  // Replays done whose replayed deletions have not all settled: their ranges and the keys left.
  readonly #replays = new Set<{ readonly ranges: Set<number>; readonly keys: Set<string> }>();

  /** Deletions received and not settled yet. */
  get pending(): number {
    return this.#pending.size;
  }

  event(type: 'add' | 'update' | 'delete', key: string, object: KubeObjectLike | undefined): void {
    if (type === 'delete') {
      // A key deleted again before its first deletion settled keeps the older entry: W stays before both.
      if (!this.#pending.has(key)) this.#pending.set(key, { before: this.#last, state: object });
    } else {
      // The key exists again: its reconcile sees the new object, as an unsharded controller that coalesced both.
      this.#pending.delete(key);
    }
    const version = object?.metadata?.resourceVersion;
    // A deletion's object carries the deletion's resourceVersion on kube-apiserver, or an older one (a state
    // from a relist): either keeps W at or before the events received, never past one not received.
    if (typeof version === 'string' && version !== '') this.#last = version;
  }

  settled(key: string): void {
    this.#pending.delete(key);
    for (const replay of this.#replays) {
      if (!replay.keys.delete(key) || replay.keys.size > 0) continue;
      this.#replays.delete(replay);
      for (const range of replay.ranges) this.#inherited.delete(range);
    }
  }

  /** A replay of `ranges` from the previous holder's `watermark` starts: publish it for them meanwhile. */
  inherit(ranges: readonly number[], watermark: string): void {
    this.#detach(ranges);
    for (const range of ranges) this.#inherited.set(range, watermark);
  }

  // An earlier replay's entry no longer speaks for `ranges` (gained again, or released).
  #detach(ranges: Iterable<number>): void {
    for (const range of ranges) {
      for (const replay of this.#replays) {
        if (replay.ranges.delete(range) && replay.ranges.size === 0) this.#replays.delete(replay);
      }
    }
  }

  /**
   * The replay of `ranges` (those still acted on here) ended: when it replayed `keys`, the inherited watermark
   * stays until each of them settled; when it failed (`keys` undefined: logged), it is dropped.
   */
  replayed(ranges: readonly number[], keys: ReadonlySet<string> | undefined): void {
    if (keys !== undefined && keys.size > 0 && ranges.length > 0) {
      this.#replays.add({ ranges: new Set(ranges), keys: new Set(keys) });
      return;
    }
    for (const range of ranges) this.#inherited.delete(range);
  }

  /** The inherited watermarks by range (published with the kind's W; see {@link inherit}). */
  inherited(): ReadonlyMap<number, string> {
    return this.#inherited;
  }

  /**
   * W now: undefined while nothing was received, or while the oldest unsettled deletion came before any other
   * event (nothing safe to name).
   */
  current(): string | undefined {
    if (this.#floor !== undefined) return this.#floor.value;
    return this.#now();
  }

  /**
   * Hold W where it is now until {@link release}: called right before the informer lets ranges go, so the
   * acknowledgement names no resourceVersion past a deletion of those ranges this controller never received.
   */
  hold(): void {
    this.#floor ??= { value: this.#now() };
  }

  /** The acknowledgement was written: W moves on. */
  release(): void {
    this.#floor = undefined;
  }

  #now(): string | undefined {
    for (const entry of this.#pending.values()) return entry.before;
    return this.#last;
  }

  /**
   * Forget unsettled deletions `leaving` selects (by last state): ranges released here, once the acknowledgement
   * carrying a W from before them was written; their new owner replays from that W.
   */
  forget(leaving: (state: KubeObjectLike) => boolean, ranges: Iterable<number> = []): number {
    const released = [...ranges];
    this.#detach(released);
    for (const range of released) this.#inherited.delete(range);
    let forgotten = 0;
    for (const [key, entry] of this.#pending) {
      if (entry.state !== undefined && leaving(entry.state)) {
        this.#pending.delete(key);
        forgotten++;
      }
    }
    return forgotten;
  }
}
