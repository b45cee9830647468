// The fence of a shard ring member (protocol step 3): one incarnation per stretch of successful renewals, each with
// its own AbortSignal, aborted when the renew deadline passes (a timer, or the synchronous clock check that runs
// first on every entry point, so a process paused past its deadline wakes fenced), when the Lease is found gone, and
// on stop. The deadline itself is the leader elector's RenewDeadline.
import { RenewDeadline } from '@lasso/controller';
import type { Clock } from '@lasso/core';
import { ShardFencedError } from './ring-api.ts';

interface Incarnation {
  readonly fence: AbortController;
  readonly deadline: RenewDeadline;
}

export class RingFence {
  readonly #ring: string;
  readonly #identity: string;
  readonly #clock: Clock;
  readonly #renewDeadlineMs: number;
  /** Runs once per incarnation when it ends: `loud` for a fence, not for a stop. */
  readonly #onEnd: (message: string, loud: boolean) => void;
  #incarnation: Incarnation | undefined;
  #idle: AbortController;

  constructor(
    ring: string,
    identity: string,
    clock: Clock,
    renewDeadlineMs: number,
    onEnd: (message: string, loud: boolean) => void,
  ) {
    this.#ring = ring;
    this.#identity = identity;
    this.#clock = clock;
    this.#renewDeadlineMs = renewDeadlineMs;
    this.#onEnd = onEnd;
    this.#idle = this.#aborted('not joined');
  }

  /** The current incarnation's signal; an aborted one between incarnations. Checks the deadline first. */
  get signal(): AbortSignal {
    this.check();
    return this.#incarnation?.fence.signal ?? this.#idle.signal;
  }

  /** True inside an incarnation (does not read the clock: call {@link check} first where that matters). */
  get joined(): boolean {
    return this.#incarnation !== undefined;
  }

  /** Past the renew deadline: end the incarnation now, synchronously. */
  check(): void {
    this.#incarnation?.deadline.check();
  }

  /** A write sent at `sentAt` succeeded: extend the deadline, or begin an incarnation. True when one began. */
  renewed(sentAt: number): boolean {
    const incarnation = this.#incarnation;
    if (incarnation !== undefined) {
      incarnation.deadline.extend(sentAt);
      return false;
    }
    const fence = new AbortController();
    const deadline = new RenewDeadline(this.#clock, this.#renewDeadlineMs, sentAt, () =>
      this.end(`Lease not renewed within ${this.#renewDeadlineMs} ms`, true),
    );
    this.#incarnation = { fence, deadline };
    // A deadline already past (the answer came after a pause) ends it at once.
    return !deadline.check();
  }

  /** End the incarnation (if any): abort its signal, then tell the ring. */
  end(message: string, loud: boolean): void {
    const incarnation = this.#incarnation;
    if (incarnation === undefined) return;
    this.#incarnation = undefined;
    incarnation.deadline.cancel();
    this.#idle = this.#aborted(message);
    incarnation.fence.abort(new ShardFencedError(this.#ring, this.#identity, message));
    this.#onEnd(message, loud);
  }

  #aborted(message: string): AbortController {
    const controller = new AbortController();
    controller.abort(new ShardFencedError(this.#ring, this.#identity, message));
    return controller;
  }
}
