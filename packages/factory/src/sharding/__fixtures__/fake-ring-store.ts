// An in-memory Lease store for the shard ring's unit tests, with what a real cluster does to one member: answers
// that take time, calls that fail (a partition), a watch that lags, and a process that is paused (SIGSTOP) or
// killed, all on one FakeClock. Writes are conditional on resourceVersion as the API server's are.
import { ApiError } from '@lasso/client';
import type { Clock, ScheduleOptions, StopResult, TimerHandle } from '@lasso/core';
import { drainedResult } from '@lasso/core';
import type { Lease } from '../membership.ts';
import type { RingLeaseStore, RingLeaseView } from '../ring-store.ts';

const clone = <T>(value: T): T => structuredClone(value);

function apiError(status: number, reason: string, message: string): ApiError {
  return new ApiError({ status, reason, message });
}

/** One member's process: while paused, nothing of it runs (timers, answers, watch events wait in order). */
export class FakeProcess {
  #paused = false;
  #killed = false;
  #queue: Array<() => void> = [];

  get paused(): boolean {
    return this.#paused || this.#killed;
  }

  run(callback: () => void): void {
    if (this.#killed) return;
    if (this.#paused) this.#queue.push(callback);
    else callback();
  }

  pause(): void {
    this.#paused = true;
  }

  /** Wake: everything that fell due while paused runs now, in order. */
  resume(): void {
    if (this.#killed) return;
    this.#paused = false;
    for (const callback of this.#queue.splice(0)) callback();
  }

  /** SIGKILL: nothing of it ever runs again. */
  kill(): void {
    this.#killed = true;
    this.#queue = [];
  }
}

/** A {@link Clock} whose timers run through a {@link FakeProcess}. */
export class ProcessClock implements Clock {
  readonly #base: Clock;
  readonly #process: FakeProcess;

  constructor(base: Clock, process: FakeProcess) {
    this.#base = base;
    this.#process = process;
  }

  now(): number {
    return this.#base.now();
  }

  monotonic(): number {
    return this.#base.monotonic();
  }

  schedule(delayMs: number, callback: () => void, options?: ScheduleOptions): TimerHandle {
    return this.#base.schedule(delayMs, () => this.#process.run(callback), options);
  }
}

type Listener = () => void;

/** The Leases of one ring in one namespace, shared by the members' stores. */
export class FakeLeaseCluster {
  readonly clock: Clock;
  readonly #leases = new Map<string, Lease>();
  #version = 0;
  readonly #views = new Set<FakeView>();
  readonly #writtenAt = new Map<string, number>();
  /** Every write accepted, in order (`create|update|delete name holder held`). */
  readonly writes: string[] = [];

  constructor(clock: Clock) {
    this.clock = clock;
  }

  leases(): Lease[] {
    return [...this.#leases.values()].map(clone);
  }

  lease(name: string): Lease | undefined {
    const lease = this.#leases.get(name);
    return lease === undefined ? undefined : clone(lease);
  }

  /** A store for one member, running through `process` (answers wait while it is paused). */
  store(process: FakeProcess, options: { latencyMs?: () => number } = {}): FakeRingStore {
    return new FakeRingStore(this, process, options.latencyMs ?? (() => 0));
  }

  get(name: string): Lease {
    const lease = this.#leases.get(name);
    if (lease === undefined) throw apiError(404, 'NotFound', `leases "${name}" not found`);
    return clone(lease);
  }

  create(lease: Lease): Lease {
    const name = lease.metadata?.name ?? '';
    if (this.#leases.has(name)) throw apiError(409, 'AlreadyExists', `leases "${name}" already exists`);
    const stored = clone(lease);
    stored.metadata = { ...stored.metadata, resourceVersion: String(++this.#version) };
    this.#leases.set(name, stored);
    this.#record('create', stored);
    return clone(stored);
  }

  update(lease: Lease): Lease {
    const name = lease.metadata?.name ?? '';
    const current = this.#leases.get(name);
    if (current === undefined) throw apiError(404, 'NotFound', `leases "${name}" not found`);
    if (lease.metadata?.resourceVersion !== current.metadata?.resourceVersion) {
      throw apiError(409, 'Conflict', `the object has been modified`);
    }
    const stored = clone(lease);
    stored.metadata = { ...stored.metadata, resourceVersion: String(++this.#version) };
    this.#leases.set(name, stored);
    this.#record('update', stored);
    return clone(stored);
  }

  delete(name: string, resourceVersion: string | undefined): void {
    const current = this.#leases.get(name);
    if (current === undefined) throw apiError(404, 'NotFound', `leases "${name}" not found`);
    if (resourceVersion !== undefined && resourceVersion !== current.metadata?.resourceVersion) {
      throw apiError(409, 'Conflict', 'the ResourceVersion in the precondition does not match');
    }
    this.#leases.delete(name);
    ++this.#version;
    this.#record('delete', current);
  }

  attach(view: FakeView): void {
    this.#views.add(view);
  }

  /** Monotonic time of the last accepted write of `name`. */
  lastWriteAt(name: string): number {
    const at = this.#writtenAt.get(name);
    if (at === undefined) throw new Error(`no write of ${name}`);
    return at;
  }

  #record(operation: string, lease: Lease): void {
    this.#writtenAt.set(lease.metadata?.name ?? '', this.clock.monotonic());
    this.writes.push(
      `${operation} ${lease.metadata?.name} ${lease.spec?.holderIdentity ?? ''} ${lease.metadata?.annotations?.['lasso.cattle.io/shard-held'] ?? ''}`,
    );
    for (const view of this.#views) view.changed();
  }
}

/** A member's informer: a copy of the cluster's Leases, refreshed on every change unless it lags. */
export class FakeView implements RingLeaseView {
  readonly #cluster: FakeLeaseCluster;
  readonly #process: FakeProcess;
  readonly #listeners = new Set<Listener>();
  #leases: Lease[] = [];
  #running = false;
  #lagging = false;

  constructor(cluster: FakeLeaseCluster, process: FakeProcess) {
    this.#cluster = cluster;
    this.#process = process;
    cluster.attach(this);
  }

  /** While lagging, changes are not seen; catching up delivers the latest state. */
  lag(lagging: boolean): void {
    this.#lagging = lagging;
    if (!lagging) this.changed();
  }

  changed(): void {
    if (!this.#running || this.#lagging) return;
    const leases = this.#cluster.leases();
    this.#process.run(() => {
      if (!this.#running) return;
      this.#leases = leases;
      for (const listener of [...this.#listeners]) listener();
    });
  }

  async start(signal: AbortSignal): Promise<void> {
    this.#running = true;
    this.#leases = this.#cluster.leases();
    signal.addEventListener('abort', () => {
      this.#running = false;
    });
  }

  stopped(): Promise<StopResult> {
    return Promise.resolve(drainedResult);
  }

  async whenSynced(signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw signal.reason;
  }

  leases(): readonly Lease[] {
    return this.#leases;
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/**
 * What a call of a member meets: undefined (answered), an error to fail with before the server, or `'lose-answer'`:
 * the server applies it and the answer is lost (the caller sees a connection reset).
 */
export type FakeFault = (
  operation: 'get' | 'create' | 'update' | 'delete' | 'list',
) => Error | 'lose-answer' | undefined;

/** One member's {@link RingLeaseStore} on a {@link FakeLeaseCluster}. */
export class FakeRingStore implements RingLeaseStore {
  readonly view: FakeView;
  readonly #cluster: FakeLeaseCluster;
  readonly #process: FakeProcess;
  readonly #latencyMs: () => number;
  fault: FakeFault | undefined;
  /** Calls made, in order. */
  readonly calls: string[] = [];

  constructor(cluster: FakeLeaseCluster, process: FakeProcess, latencyMs: () => number) {
    this.#cluster = cluster;
    this.#process = process;
    this.#latencyMs = latencyMs;
    this.view = new FakeView(cluster, process);
  }

  /** Apply `operation` at the server after half the latency; answer after the other half, through the process. */
  #call<T>(
    operation: 'get' | 'create' | 'update' | 'delete' | 'list',
    signal: AbortSignal,
    apply: () => T,
  ): Promise<T> {
    this.calls.push(operation);
    const latency = this.#latencyMs();
    return new Promise<T>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      const answer = (): void =>
        this.#process.run(() => {
          signal.removeEventListener('abort', onAbort);
          if (outcome === undefined) return;
          if (outcome.ok) resolve(outcome.value);
          else reject(outcome.error);
        });
      const serve = (): void => {
        const fault = this.fault?.(operation);
        if (fault instanceof Error) outcome = { ok: false, error: fault };
        else {
          try {
            outcome = { ok: true, value: apply() };
          } catch (error) {
            outcome = { ok: false, error };
          }
          if (fault === 'lose-answer') outcome = { ok: false, error: new Error('socket hang up') };
        }
        if (latency <= 0) answer();
        else this.#cluster.clock.schedule(latency / 2, answer);
      };
      if (latency <= 0) queueMicrotask(serve);
      else this.#cluster.clock.schedule(latency / 2, serve);
    });
  }

  get(name: string, signal: AbortSignal): Promise<Lease> {
    return this.#call('get', signal, () => this.#cluster.get(name));
  }

  create(lease: Lease, signal: AbortSignal): Promise<Lease> {
    return this.#call('create', signal, () => this.#cluster.create(lease));
  }

  update(lease: Lease, signal: AbortSignal): Promise<Lease> {
    return this.#call('update', signal, () => this.#cluster.update(lease));
  }

  delete(name: string, resourceVersion: string, signal: AbortSignal): Promise<void> {
    return this.#call('delete', signal, () => this.#cluster.delete(name, resourceVersion));
  }

  list(signal: AbortSignal): Promise<readonly Lease[]> {
    return this.#call('list', signal, () => this.#cluster.leases());
  }
}

/** A 503 as a partitioned member meets it. */
export function unavailable(): ApiError {
  return apiError(503, 'ServiceUnavailable', 'the server is currently unable to handle the request');
}
