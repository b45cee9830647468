// The ranges on their way out of a shard ring member (protocol step 5): announced as releasing, released by the
// caller once nothing acts on them, then acknowledged by the next write of the Lease without them. Each keeps the
// time it was announced, for the hand-off's duration.

export class Releases {
  /** Announced, not yet released by the caller: range -> when announced (monotonic). */
  readonly releasing = new Map<number, number>();
  /** Released by the caller, the ack not yet written: range -> when announced. */
  readonly acked = new Map<number, number>();
  #waiters: Array<{ readonly ranges: readonly number[]; readonly resolve: () => void }> = [];

  announce(ranges: Iterable<number>, now: number): void {
    for (const range of ranges) this.releasing.set(range, now);
  }

  /** The caller released `ranges`: those in the Lease now wait for the next write (returned). */
  release(ranges: readonly number[], written: ReadonlySet<number>): number[] {
    for (const range of ranges) {
      const since = this.releasing.get(range);
      if (since === undefined) continue;
      this.releasing.delete(range);
      this.acked.set(range, since);
    }
    return ranges.filter((range) => written.has(range) && this.acked.has(range));
  }

  /** Resolves once none of `ranges` is in the Lease any more (see {@link written}). */
  wait(ranges: readonly number[]): Promise<void> {
    return new Promise((resolve) => this.#waiters.push({ ranges, resolve }));
  }

  /** A write left `written` in the Lease: acks of the others are done; resolves their waiters. */
  written(written: ReadonlySet<number>, now: number): { done: number[]; waitedMs: number } {
    const done: number[] = [];
    let waitedMs = 0;
    for (const [range, since] of [...this.acked]) {
      if (written.has(range)) continue;
      this.acked.delete(range);
      done.push(range);
      waitedMs = Math.max(waitedMs, now - since);
    }
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) {
      if (waiter.ranges.some((range) => written.has(range))) this.#waiters.push(waiter);
      else waiter.resolve();
    }
    return { done, waitedMs };
  }

  /** The run ended: nothing is pending any more. */
  clear(): void {
    for (const waiter of this.#waiters.splice(0)) waiter.resolve();
    this.releasing.clear();
    this.acked.clear();
  }
}
