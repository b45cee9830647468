// Behaviours of client-go tools/leaderelection (leaderelection_test.go: TestTryAcquireOrRenew, TestReleaseLease,
// TestNewLeaderElector's checks) on an in-memory Lease store with injectable faults and a FakeClock.
import { ApiError } from '@lasso/client';
import {
  type Clock,
  isLassoError,
  type ScheduleOptions,
  sleep,
  type TimerHandle,
} from '@lasso/core';
import {
  createTestLogger,
  createTestMetricsProvider,
  FakeClock,
  type TestLogger,
} from '@lasso/core/testing';
import fc from 'fast-check';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { describe, expect, it } from 'vitest';
import {
  createLeaderElector,
  type LeaderElectionOptions,
  runWithLeaderElection,
} from './leader-election.ts';
import {
  type LeaderCallbacks,
  type LeaderElector,
  LeadershipLostError,
} from './leader-elector-api.ts';
import type { LeaseClient } from './lease-lock.ts';

const namespace = 'kube-system';
const leaseName = 'operator';

/** What a call of the fake client does instead of answering at once. */
type Fault =
  | { kind: 'fail' }
  | { kind: 'block' }
  | { kind: 'lost' }
  | { kind: 'delay'; ms: number; apply: 'before' | 'after' };
type Operation = 'get' | 'create' | 'update';

/**
 * One Lease in memory with kube-apiserver's optimistic concurrency (resourceVersion checks, 404, 409) and a
 * `faults` hook that can fail a call (500), block it until its signal aborts, apply a write and then fail
 * (a lost response), or answer after a delay on the FakeClock.
 */
class FakeLeaseStore {
  readonly clock: Clock;
  lease: Lease | undefined;
  /** Every write that reached the store, in order: [monotonic ms, caller, holderIdentity]. */
  readonly writes: Array<[number, string, string]> = [];
  faults: (call: { operation: Operation; caller: string }) => Fault | undefined = () => undefined;
  #version = 0;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  /** Put a record in place as another process would (no faults). */
  seed(spec: NonNullable<Lease['spec']>): void {
    this.lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { namespace, name: leaseName, resourceVersion: String(++this.#version) },
      spec: { ...spec },
    };
  }

  get holder(): string | undefined {
    return this.lease?.spec?.holderIdentity;
  }

  client(caller: string): LeaseClient {
    const call = <T>(operation: Operation, signal: AbortSignal | undefined, apply: () => T) =>
      this.#call(caller, operation, signal, apply);
    return {
      get: (_ns, _name, options = {}) => call('get', options.signal, () => this.#get()),
      create: (_ns, object, options = {}) =>
        call('create', options.signal, () => this.#create(caller, object)),
      update: (_ns, object, options = {}) =>
        call('update', options.signal, () => this.#update(caller, object)),
    };
  }

  async #call<T>(
    caller: string,
    operation: Operation,
    signal: AbortSignal | undefined,
    apply: () => T,
  ): Promise<T> {
    signal?.throwIfAborted();
    const fault = this.faults({ operation, caller });
    if (fault === undefined) {
      await Promise.resolve();
      return apply();
    }
    switch (fault.kind) {
      case 'fail':
        throw new ApiError({ status: 500, reason: 'InternalError', message: 'injected failure' });
      case 'lost':
        apply();
        throw new ApiError({ status: 504, reason: 'Timeout', message: 'injected lost answer' });
      case 'block':
        return new Promise<T>((_, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      case 'delay': {
        let outcome: { value: T } | { error: unknown } | undefined;
        const run = (): void => {
          try {
            outcome = { value: apply() };
          } catch (error) {
            outcome = { error };
          }
        };
        if (fault.apply === 'before') run();
        await new Promise<void>((resolve, reject) => {
          const onAbort = (): void => {
            timer.cancel();
            reject(signal?.reason);
          };
          const timer = this.clock.schedule(fault.ms, () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          });
          signal?.addEventListener('abort', onAbort, { once: true });
        });
        if (outcome === undefined) run();
        if (outcome !== undefined && 'error' in outcome) throw outcome.error;
        return (outcome as { value: T }).value;
      }
    }
  }

  #get(): Lease {
    if (this.lease === undefined) throw new ApiError({ status: 404, reason: 'NotFound' });
    return structuredClone(this.lease);
  }

  #create(caller: string, object: Lease): Lease {
    if (this.lease !== undefined) throw new ApiError({ status: 409, reason: 'AlreadyExists' });
    return this.#store(caller, object);
  }

  #update(caller: string, object: Lease): Lease {
    if (this.lease === undefined) throw new ApiError({ status: 404, reason: 'NotFound' });
    if (object.metadata?.resourceVersion !== this.lease.metadata?.resourceVersion) {
      throw new ApiError({
        status: 409,
        reason: 'Conflict',
        message: 'the object has been modified; please apply your changes to the latest version',
      });
    }
    return this.#store(caller, object);
  }

  #store(caller: string, object: Lease): Lease {
    const metadata = { ...object.metadata, resourceVersion: String(++this.#version) };
    this.lease = structuredClone({ ...object, metadata });
    this.writes.push([this.clock.monotonic(), caller, object.spec?.holderIdentity ?? '']);
    return structuredClone(this.lease);
  }
}

interface Candidate {
  readonly elector: LeaderElector;
  readonly controller: AbortController;
  /** Timeline of callbacks: `started@ms`, `aborted@ms`, `stopped@ms`, `new:<id>`. */
  readonly events: string[];
  readonly logger: TestLogger;
  /** The signal given to onStartedLeading, once called. */
  leading: AbortSignal | undefined;
  readonly done: Promise<void>;
}

/** Start an elector for `identity` on `store`, recording its callbacks. */
function candidate(
  store: FakeLeaseStore,
  identity: string,
  options: Partial<LeaderElectionOptions> = {},
  callbacks: Partial<LeaderCallbacks> = {},
): Candidate {
  const { clock } = store;
  const controller = new AbortController();
  const logger = createTestLogger();
  const events: string[] = [];
  const self: { leading: AbortSignal | undefined } = { leading: undefined };
  const elector = createLeaderElector(
    {
      client: store.client(identity),
      namespace,
      name: leaseName,
      identity,
      signal: controller.signal,
      clock,
      logger,
      random: () => 0,
      ...options,
    },
    {
      onStartedLeading: (signal) => {
        self.leading = signal;
        events.push(`started@${clock.monotonic()}`);
        return new Promise<void>((resolve) => {
          signal.addEventListener(
            'abort',
            () => {
              events.push(`aborted@${clock.monotonic()}`);
              resolve();
            },
            { once: true },
          );
        });
      },
      onStoppedLeading: () => events.push(`stopped@${clock.monotonic()}`),
      onNewLeader: (leader) => events.push(`new:${leader}`),
      ...callbacks,
    },
  );
  const done = elector.run();
  return Object.assign(self, { elector, controller, events, logger, done });
}

describe('createLeaderElector', () => {
  describe('run()', () => {
    // TestTryAcquireOrRenew "acquire from no object".
    it('creates the lease and leads when none exists', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      const metrics = createTestMetricsProvider();
      const a = candidate(store, 'a', { metrics });
      await clock.advance(0);
      expect(a.events).toEqual(['new:a', 'started@0']);
      expect(a.elector.isLeader()).toBe(true);
      expect(a.elector.getLeader()).toBe('a');
      expect(store.lease?.spec).toMatchObject({
        holderIdentity: 'a',
        leaseDurationSeconds: 15,
        leaseTransitions: 0,
        renewTime: '2024-01-01T00:00:00.000000Z',
        acquireTime: '2024-01-01T00:00:00.000000Z',
      });
      expect(metrics.value('leader_election_master_status', { name: leaseName })).toBe(1);
      a.controller.abort();
      await a.done;
      expect(a.events).toEqual(['new:a', 'started@0', 'aborted@0', 'stopped@0']);
      expect(a.elector.isLeader()).toBe(false);
      expect(metrics.value('leader_election_master_status', { name: leaseName })).toBe(0);
      expect(clock.pendingTimers()).toBe(0);
    });

    // TestTryAcquireOrRenew "don't acquire from led, acked object".
    it('does not take a lease another candidate holds and renews', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      const a = candidate(store, 'a');
      await clock.advance(0);
      const b = candidate(store, 'b');
      await clock.advance(60_000);
      expect(b.events).toEqual(['new:a']);
      expect(b.elector.isLeader()).toBe(false);
      expect(b.elector.getLeader()).toBe('a');
      expect(store.holder).toBe('a');
      a.controller.abort();
      b.controller.abort();
      await Promise.all([a.done, b.done]);
      expect(clock.pendingTimers()).toBe(0);
    });

    // TestTryAcquireOrRenew "acquire from led, unacked object": expiry counts on our clock from when we
    // first saw the record, never from its renewTime.
    it('takes over a lease that has not changed for leaseDuration since it first saw it', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      store.seed({
        holderIdentity: 'gone',
        leaseDurationSeconds: 15,
        leaseTransitions: 3,
        renewTime: '2020-01-01T00:00:00.000000Z',
        acquireTime: '2020-01-01T00:00:00.000000Z',
      });
      const a = candidate(store, 'a');
      await clock.advance(14_000);
      expect(a.events).toEqual(['new:gone']);
      expect(a.elector.getLeader()).toBe('gone');
      // Attempts at 0, 2 s, ... 14 s see an unexpired lease; the one at 16 s takes it.
      await clock.advance(2_000);
      expect(a.events).toEqual(['new:gone', 'new:a', 'started@16000']);
      expect(store.lease?.spec).toMatchObject({ holderIdentity: 'a', leaseTransitions: 4 });
      a.controller.abort();
      await a.done;
    });

    it('restarts the wait whenever the record changes', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      const renew = (): void =>
        store.seed({
          holderIdentity: 'other',
          leaseDurationSeconds: 15,
          renewTime: new Date(clock.now()).toISOString(),
        });
      renew();
      const a = candidate(store, 'a');
      for (let second = 0; second < 60; second += 10) {
        await clock.advance(10_000);
        renew();
      }
      expect(a.events).toEqual(['new:other']);
      await clock.advance(18_000);
      expect(a.events).toEqual(['new:other', 'new:a', 'started@78000']);
      a.controller.abort();
      await a.done;
    });

    it('acquires at once a lease that was released (empty holder)', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      store.seed({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 1 });
      const a = candidate(store, 'a');
      await clock.advance(0);
      expect(a.events).toEqual(['new:a', 'started@0']);
      expect(store.lease?.spec?.leaseTransitions).toBe(2);
      a.controller.abort();
      await a.done;
    });

    it('lets exactly one of two candidates that start together win the race (409)', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      const a = candidate(store, 'a');
      const b = candidate(store, 'b');
      await clock.advance(20_000);
      expect([a.elector.isLeader(), b.elector.isLeader()].sort()).toEqual([false, true]);
      expect(store.writes.filter(([, , holder]) => holder !== store.holder)).toEqual([]);
      a.controller.abort();
      b.controller.abort();
      await Promise.all([a.done, b.done]);
    });

    it('renews every retryPeriod with the same acquireTime', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      const metrics = createTestMetricsProvider();
      const a = candidate(store, 'a', { metrics });
      await clock.advance(10_000);
      expect(store.writes.map(([at]) => at)).toEqual([0, 2_000, 4_000, 6_000, 8_000, 10_000]);
      expect(store.lease?.spec).toMatchObject({
        acquireTime: '2024-01-01T00:00:00.000000Z',
        renewTime: '2024-01-01T00:00:10.000000Z',
      });
      // Renewals write on the version they wrote last, without reading first.
      expect(metrics.value('leader_election_slowpath_total', { name: leaseName })).toBe(0);
      expect(a.events).toEqual(['new:a', 'started@0']);
      a.controller.abort();
      await a.done;
    });

    it('reads the lease again when a renewal conflicts, and keeps leading', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      const metrics = createTestMetricsProvider();
      const a = candidate(store, 'a', { metrics });
      await clock.advance(1_000);
      // Someone bumps the resourceVersion without changing the record (e.g. a label edit).
      store.seed({ ...store.lease?.spec });
      await clock.advance(1_000);
      expect(metrics.value('leader_election_slowpath_total', { name: leaseName })).toBe(1);
      expect(store.holder).toBe('a');
      expect(a.elector.isLeader()).toBe(true);
      a.controller.abort();
      await a.done;
    });

    it.for<{ name: string; fault: Fault }>([
      { name: 'fail', fault: { kind: 'fail' } },
      { name: 'hang', fault: { kind: 'block' } },
    ])(
      'stops leading renewDeadline after the last renewal when renewals $name, before a rival can acquire',
      async ({ fault }) => {
        const clock = new FakeClock();
        const store = new FakeLeaseStore(clock);
        const metrics = createTestMetricsProvider();
        const a = candidate(store, 'a', { metrics });
        await clock.advance(0);
        const b = candidate(store, 'b');
        // The last renewal that gets through is sent at 4 s.
        await clock.advance(4_000);
        store.faults = ({ caller }) => (caller === 'a' ? fault : undefined);
        await clock.advance(9_999);
        expect(a.elector.isLeader()).toBe(true);
        await clock.advance(1);
        expect(a.leading?.aborted).toBe(true);
        expect(a.leading?.reason).toBeInstanceOf(LeadershipLostError);
        expect(isLassoError(a.leading?.reason, 'LASSO_LEADERSHIP_LOST')).toBe(true);
        expect(a.events).toEqual(['new:a', 'started@0', 'aborted@14000', 'stopped@14000']);
        expect(a.elector.isLeader()).toBe(false);
        expect(metrics.value('leader_election_master_status', { name: leaseName })).toBe(0);
        // Like client-go's RunOrDie, run() ends once leadership is lost.
        await a.done;
        expect(a.logger.find('not renewed within 10000 ms')).toHaveLength(1);
        // b saw a's 4 s renewal at 4 s (same instant, after it) and takes over 15 s later.
        await clock.advance(10_000);
        expect(b.events).toEqual(['new:a', 'new:b', 'started@20000']);
        expect(store.lease?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
        b.controller.abort();
        await b.done;
        expect(clock.pendingTimers()).toBe(0);
      },
    );

    it('counts the renew deadline from when a renewal was sent, not from when it was answered', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      const a = candidate(store, 'a');
      await clock.advance(0);
      const b = candidate(store, 'b');
      await clock.advance(1_000);
      // a's renewal at 2 s is stored at once but answered 7 s later; every later call of a fails.
      let first = true;
      store.faults = ({ caller }) => {
        if (caller !== 'a') return undefined;
        if (!first) return { kind: 'fail' };
        first = false;
        return { kind: 'delay', ms: 7_000, apply: 'before' };
      };
      // b saw the 2 s record at 2 s and may take over from 17 s; a must be gone by 12 s.
      await clock.advance(20_000);
      expect(a.events).toEqual(['new:a', 'started@0', 'aborted@12000', 'stopped@12000']);
      expect(b.events).toEqual(['new:a', 'new:b', 'started@18000']);
      b.controller.abort();
      await Promise.all([a.done, b.done]);
    });

    it('stops leading at once when a renewal finds another holder', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      const a = candidate(store, 'a');
      await clock.advance(1_000);
      store.seed({ holderIdentity: 'usurper', leaseDurationSeconds: 15 });
      await clock.advance(1_000);
      expect(a.events).toEqual([
        'new:a',
        'started@0',
        'new:usurper',
        'aborted@2000',
        'stopped@2000',
      ]);
      expect(a.logger.find('leader lease taken by usurper')).toHaveLength(1);
      await a.done;
      expect(store.holder).toBe('usurper');
    });

    // TestReleaseLease.
    it('releases the lease on abort with releaseOnCancel, after the work has stopped', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      const a = candidate(
        store,
        'a',
        { releaseOnCancel: true },
        {
          // Work that needs 500 ms to wind down after its signal aborts.
          onStartedLeading: (signal) =>
            new Promise<void>((resolve) => {
              signal.addEventListener('abort', () => clock.schedule(500, resolve), { once: true });
            }),
        },
      );
      await clock.advance(0);
      const b = candidate(store, 'b');
      await clock.advance(3_000);
      a.controller.abort();
      await clock.advance(499);
      expect(store.holder).toBe('a');
      await clock.advance(1);
      expect(store.lease?.spec).toMatchObject({
        holderIdentity: '',
        leaseDurationSeconds: 1,
        renewTime: '2024-01-01T00:00:03.500000Z',
        leaseTransitions: 0,
      });
      await a.done;
      expect(a.events).toEqual(['new:a', 'stopped@3500']);
      // b's next attempt (every 2 s) takes the released lease without waiting out leaseDuration.
      await clock.advance(2_000);
      expect(b.events).toEqual(['new:a', 'new:b', 'started@4000']);
      b.controller.abort();
      await b.done;
      expect(clock.pendingTimers()).toBe(0);
    });

    it('leaves the lease in place on abort without releaseOnCancel', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      const a = candidate(store, 'a');
      await clock.advance(0);
      const b = candidate(store, 'b');
      await clock.advance(2_000);
      a.controller.abort();
      await a.done;
      expect(store.holder).toBe('a');
      await clock.advance(14_000);
      expect(b.elector.isLeader()).toBe(false);
      await clock.advance(2_000);
      expect(b.elector.isLeader()).toBe(true);
      b.controller.abort();
      await b.done;
    });

    it('does not release a lease that another candidate holds by then', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      const a = candidate(store, 'a', { releaseOnCancel: true });
      await clock.advance(1_000);
      store.seed({ holderIdentity: 'c', leaseDurationSeconds: 15 });
      a.controller.abort();
      await a.done;
      expect(store.holder).toBe('c');
      expect(a.logger.find('leader lease released')).toEqual([]);
    });

    it('stops acquiring when its signal aborts and never calls onStoppedLeading', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      store.seed({ holderIdentity: 'other', leaseDurationSeconds: 15 });
      const a = candidate(store, 'a');
      await clock.advance(5_000);
      a.controller.abort();
      await a.done;
      expect(a.events).toEqual(['new:other']);
      expect(clock.pendingTimers()).toBe(0);
    });

    it('bounds a hung acquire request by renewDeadline and tries again', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      let hung = 0;
      store.faults = () => (hung++ === 0 ? { kind: 'block' } : undefined);
      const a = candidate(store, 'a');
      await clock.advance(9_999);
      expect(a.elector.isLeader()).toBe(false);
      // Timed out at 10 s, retried 2 s later.
      await clock.advance(2_001);
      expect(a.events).toEqual(['new:a', 'started@12000']);
      a.controller.abort();
      await a.done;
    });

    it('jitters acquire attempts by up to 120 % of retryPeriod', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      store.seed({ holderIdentity: 'other', leaseDurationSeconds: 15 });
      let gets = 0;
      store.faults = ({ operation }) => {
        if (operation === 'get') gets++;
        return undefined;
      };
      const a = candidate(store, 'a', { random: () => 0.5 });
      // Attempts at 0, 3.2 s, 6.4 s.
      await clock.advance(6_400);
      expect(gets).toBe(3);
      a.controller.abort();
      await a.done;
    });

    it('resolves at once, without a request, when its signal is already aborted', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      let calls = 0;
      store.faults = () => {
        calls++;
        return undefined;
      };
      const a = candidate(store, 'a', { signal: AbortSignal.abort() });
      await a.done;
      expect(calls).toBe(0);
      expect(a.events).toEqual([]);
    });

    it('returns the same promise when called again', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      const a = candidate(store, 'a');
      expect(a.elector.run()).toBe(a.done);
      a.controller.abort();
      await a.done;
    });

    it('logs a hostile throw from onStartedLeading and keeps leading', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      // An Error whose message getter throws: formatting it must not throw.
      const hostile = Object.create(Error.prototype, {
        message: {
          get() {
            throw new Error('no message for you');
          },
        },
      });
      const a = candidate(
        store,
        'a',
        {},
        {
          onStartedLeading: () => {
            throw hostile;
          },
          onStoppedLeading: () => {
            throw hostile;
          },
          onNewLeader: () => {
            throw 'not even an error';
          },
        },
      );
      await clock.advance(4_000);
      expect(a.elector.isLeader()).toBe(true);
      expect(store.writes).toHaveLength(3);
      expect(a.logger.find('onStartedLeading failed')[0]?.attributes.error).toBeTypeOf('string');
      expect(a.logger.find('onNewLeader failed')[0]?.attributes).toMatchObject({
        error: 'not even an error',
      });
      a.controller.abort();
      await a.done;
      expect(a.logger.find('onStoppedLeading failed')).toHaveLength(1);
    });

    it('logs a rejection of onStartedLeading and keeps leading', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      const a = candidate(
        store,
        'a',
        {},
        { onStartedLeading: () => Promise.reject(new Error('controller crashed')) },
      );
      await clock.advance(2_000);
      expect(a.elector.isLeader()).toBe(true);
      expect(a.logger.find('onStartedLeading failed')[0]?.attributes).toMatchObject({
        error: 'controller crashed',
      });
      a.controller.abort();
      await a.done;
    });
  });

  describe('options', () => {
    const client: LeaseClient = new FakeLeaseStore(new FakeClock()).client('x');
    const valid: LeaderElectionOptions = { client, namespace, name: leaseName, identity: 'x' };
    const callbacks: LeaderCallbacks = { onStartedLeading: () => {}, onStoppedLeading: () => {} };

    it.for<{
      name: string;
      options: Partial<LeaderElectionOptions>;
      error: typeof Error;
      match: RegExp;
    }>([
      { name: 'empty identity', options: { identity: '' }, error: RangeError, match: /identity/ },
      {
        name: 'missing namespace',
        options: { namespace: undefined as never },
        error: TypeError,
        match: /namespace/,
      },
      { name: 'empty name', options: { name: '' }, error: RangeError, match: /name/ },
      {
        name: 'missing client',
        options: { client: undefined as never },
        error: TypeError,
        match: /client/,
      },
      {
        name: 'zero leaseDurationMs',
        options: { leaseDurationMs: 0 },
        error: RangeError,
        match: /leaseDurationMs/,
      },
      {
        name: 'NaN renewDeadlineMs',
        options: { renewDeadlineMs: Number.NaN },
        error: RangeError,
        match: /renewDeadlineMs/,
      },
      {
        name: 'negative retryPeriodMs',
        options: { retryPeriodMs: -1 },
        error: RangeError,
        match: /retryPeriodMs/,
      },
      {
        name: 'leaseDurationMs not above renewDeadlineMs',
        options: { leaseDurationMs: 10_000, renewDeadlineMs: 10_000 },
        error: RangeError,
        match: /leaseDurationMs \(10000\) must be greater than renewDeadlineMs/,
      },
      {
        name: 'renewDeadlineMs not above 1.2 * retryPeriodMs',
        options: { renewDeadlineMs: 2_400, retryPeriodMs: 2_000 },
        error: RangeError,
        match: /renewDeadlineMs \(2400\) must be greater than retryPeriodMs \* 1.2/,
      },
      {
        name: 'non-boolean releaseOnCancel',
        options: { releaseOnCancel: 'yes' as never },
        error: TypeError,
        match: /releaseOnCancel/,
      },
      {
        name: 'non-signal signal',
        options: { signal: {} as never },
        error: TypeError,
        match: /signal/,
      },
    ])('throws a $error.name naming the option for $name', ({ options, error, match }) => {
      expect(() => createLeaderElector({ ...valid, ...options }, callbacks)).toThrow(error);
      expect(() => createLeaderElector({ ...valid, ...options }, callbacks)).toThrow(match);
    });

    it('throws a TypeError for missing callbacks', () => {
      expect(() => createLeaderElector(valid, undefined as never)).toThrow(TypeError);
      expect(() => createLeaderElector(valid, { onStoppedLeading: () => {} } as never)).toThrow(
        /onStartedLeading/,
      );
      expect(() => createLeaderElector(valid, { onStartedLeading: () => {} } as never)).toThrow(
        /onStoppedLeading/,
      );
      expect(() => createLeaderElector(valid, { ...callbacks, onNewLeader: 1 as never })).toThrow(
        /onNewLeader/,
      );
    });

    it('accepts the client-go defaults and short durations that keep the order', () => {
      expect(() => createLeaderElector(valid, callbacks)).not.toThrow();
      expect(() =>
        createLeaderElector(
          { ...valid, leaseDurationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 200 },
          callbacks,
        ),
      ).not.toThrow();
    });

    it('writes the lease duration in whole seconds, rounded up', async () => {
      const clock = new FakeClock();
      const store = new FakeLeaseStore(clock);
      const a = candidate(store, 'a', {
        leaseDurationMs: 1_500,
        renewDeadlineMs: 1_000,
        retryPeriodMs: 200,
      });
      await clock.advance(0);
      expect(store.lease?.spec?.leaseDurationSeconds).toBe(2);
      a.controller.abort();
      await a.done;
    });
  });
});

describe('runWithLeaderElection', () => {
  it('runs an elector until its signal aborts', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore(clock);
    const controller = new AbortController();
    const seen: string[] = [];
    const done = runWithLeaderElection(
      {
        client: store.client('a'),
        namespace,
        name: leaseName,
        identity: 'a',
        signal: controller.signal,
        clock,
      },
      {
        onStartedLeading: (signal) => {
          seen.push('started');
          signal.addEventListener('abort', () => seen.push('aborted'));
        },
        onStoppedLeading: () => seen.push('stopped'),
      },
    );
    await clock.advance(0);
    controller.abort();
    await done;
    expect(seen).toEqual(['started', 'aborted', 'stopped']);
  });

  it('throws synchronously on bad options', () => {
    expect(() =>
      runWithLeaderElection({} as never, {
        onStartedLeading: () => {},
        onStoppedLeading: () => {},
      }),
    ).toThrow(TypeError);
  });
});

/**
 * A FakeClock that can also stand still while time passes, as a process does when it is paused (SIGSTOP, a
 * blocked event loop, a frozen VM): {@link PausableClock.pause} moves time without firing anything, then
 * fires every overdue timer in deadline order, all at the wake-up time, as Node does on waking.
 */
class PausableClock implements Clock {
  readonly fake = new FakeClock();
  #skewMs = 0;
  #sequence = 0;
  readonly #timers = new Set<{
    at: number;
    sequence: number;
    fire: () => void;
    options: ScheduleOptions | undefined;
    handle: TimerHandle;
  }>();

  now(): number {
    return this.fake.now() + this.#skewMs;
  }

  monotonic(): number {
    return this.fake.monotonic() + this.#skewMs;
  }

  schedule(delayMs: number, callback: () => void, options?: ScheduleOptions): TimerHandle {
    const delay = Number.isNaN(delayMs) ? 0 : Math.max(0, delayMs);
    const timer = {
      at: this.monotonic() + delay,
      sequence: this.#sequence++,
      fire: (): void => {
        this.#timers.delete(timer);
        callback();
      },
      options,
      handle: this.fake.schedule(delay, () => timer.fire(), options),
    };
    this.#timers.add(timer);
    return {
      cancel: () => {
        timer.handle.cancel();
        this.#timers.delete(timer);
      },
    };
  }

  advance(ms: number): Promise<void> {
    return this.fake.advance(ms);
  }

  pendingTimers(): number {
    return this.fake.pendingTimers();
  }

  /** Move time by `ms` without firing or re-arming anything: the process has woken, no timer has run yet. */
  jump(ms: number): void {
    this.#skewMs += ms;
  }

  /** Sleep `ms` without running anything, then wake: overdue timers fire in deadline order. */
  async pause(ms: number): Promise<void> {
    this.#skewMs += ms;
    const timers = [...this.#timers].sort((x, y) => x.at - y.at || x.sequence - y.sequence);
    for (const timer of timers) {
      timer.handle.cancel();
      timer.handle = this.fake.schedule(
        Math.max(0, timer.at - this.monotonic()),
        () => timer.fire(),
        timer.options,
      );
    }
    await this.fake.advance(0);
  }
}

describe('leadership fencing', () => {
  /**
   * `a` leads; its work writes through the store every `periodMs` with the signal it was given, logging
   * `call:<caller>:<operation>@ms` and `aborted@ms` in one timeline.
   */
  function leaderWithWork(
    clock: PausableClock,
    periodMs: number,
    options: Partial<LeaderElectionOptions> = {},
  ) {
    const store = new FakeLeaseStore(clock);
    const timeline: string[] = [];
    store.faults = ({ operation, caller }) => {
      timeline.push(`call:${caller}:${operation}@${clock.monotonic()}`);
      return undefined;
    };
    const client = store.client('a');
    const a = candidate(store, 'a', options, {
      onStartedLeading: async (signal) => {
        signal.addEventListener('abort', () => timeline.push(`aborted@${clock.monotonic()}`));
        a.leading = signal;
        // A reconcile loop guarded by the lease: every call carries the leadership signal.
        while (!signal.aborted) {
          try {
            await sleep(clock, periodMs, { signal });
            const lease = await client.get(namespace, leaseName, { signal });
            await client.update(namespace, lease, { signal });
          } catch {
            return;
          }
        }
      },
    });
    return { store, timeline, a };
  }

  it('paused past its lease then resumed: the signal aborts before any further client call', async () => {
    const clock = new PausableClock();
    // The guarded work's next step (5 s) falls due after the elector's next renewal (4 s).
    const { store, timeline, a } = leaderWithWork(clock, 5_000);
    await clock.advance(2_500);
    expect(a.elector.isLeader()).toBe(true);
    // Renewed at 0 and 2 s. Paused at 2.5 s for 30 s; meanwhile another replica takes the expired lease.
    const before = timeline.length;
    store.seed({ ...store.lease?.spec, holderIdentity: 'b', leaseTransitions: 1 });
    await clock.pause(30_000);
    expect(a.leading?.aborted).toBe(true);
    expect(a.leading?.reason).toBeInstanceOf(LeadershipLostError);
    // Aborted first thing on waking: no renewal attempt (it would have read b's lease first), no call of the work.
    expect(timeline.slice(before)).toEqual(['aborted@32500']);
    expect(a.logger.find('not renewed within 10000 ms')).toHaveLength(1);
    await clock.advance(60_000);
    expect(timeline.slice(before)).toEqual(['aborted@32500']);
    await a.done;
    expect(store.holder).toBe('b');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('does not trust a renewal answered after the deadline (paused with it in flight)', async () => {
    const clock = new PausableClock();
    const store = new FakeLeaseStore(clock);
    const a = candidate(store, 'a');
    await clock.advance(0);
    // The renewal of 2 s is stored and answered 1 s later; the process sleeps from 2.5 s for 20 s.
    store.faults = ({ caller }) =>
      caller === 'a' ? { kind: 'delay', ms: 1_000, apply: 'before' } : undefined;
    await clock.advance(2_500);
    await clock.pause(20_000);
    expect(a.leading?.aborted).toBe(true);
    expect(a.events).toEqual(['new:a', 'started@0', 'aborted@22500', 'stopped@22500']);
    await a.done;
  });

  it('isLeader() reads the clock: past the deadline it aborts leadership before any timer runs', async () => {
    const clock = new PausableClock();
    const store = new FakeLeaseStore(clock);
    const a = candidate(store, 'a');
    await clock.advance(1_000);
    // Woken after 20 s, but none of the overdue timers has run yet: the first code to run asks.
    clock.jump(20_000);
    expect(a.leading?.aborted).toBe(false);
    expect(a.elector.isLeader()).toBe(false);
    expect(a.leading?.aborted).toBe(true);
    expect(a.leading?.reason).toBeInstanceOf(LeadershipLostError);
    await clock.pause(0);
    await a.done;
    expect(a.events).toEqual(['new:a', 'started@0', 'aborted@21000', 'stopped@21000']);
    expect(store.writes).toHaveLength(1);
  });
});

describe('lifecycle', () => {
  function elector(
    store: FakeLeaseStore,
    clock: FakeClock,
    options: Partial<LeaderElectionOptions> = {},
  ) {
    const events: string[] = [];
    const elector = createLeaderElector(
      {
        client: store.client('a'),
        namespace,
        name: leaseName,
        identity: 'a',
        clock,
        logger: createTestLogger(),
        random: () => 0,
        ...options,
      },
      {
        onStartedLeading: (signal) =>
          new Promise<void>((resolve) => {
            events.push(`started@${clock.monotonic()}`);
            signal.addEventListener('abort', () => resolve(), { once: true });
          }),
        onStoppedLeading: () => events.push(`stopped@${clock.monotonic()}`),
      },
    );
    return { elector, events };
  }

  it('starts with a signal, settles stopped() drained, and starts again on the same object', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore(clock);
    const { elector: e, events } = elector(store, clock, { releaseOnCancel: true });
    expect(e.isRunning()).toBe(false);
    await expect(e.stopped()).resolves.toEqual({ drained: true, pending: [] });
    const first = new AbortController();
    await e.start(first.signal);
    await e.start(first.signal);
    expect(e.isRunning()).toBe(true);
    await clock.advance(0);
    expect(e.isLeader()).toBe(true);
    first.abort();
    await expect(e.stopped()).resolves.toEqual({ drained: true, pending: [] });
    expect(e.isRunning()).toBe(false);
    expect(store.holder).toBe('');
    const second = new AbortController();
    await e.start(second.signal);
    await clock.advance(0);
    expect(e.isLeader()).toBe(true);
    expect(events).toEqual(['started@0', 'stopped@0', 'started@0']);
    await e.close();
    expect(e.isRunning()).toBe(false);
    expect(e.isLeader()).toBe(false);
    await expect(e.start(new AbortController().signal)).rejects.toThrow(/closed/);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('campaigns again after leadership was lost', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore(clock);
    const { elector: e, events } = elector(store, clock);
    const stop = new AbortController();
    await e.start(stop.signal);
    await clock.advance(1_000);
    store.seed({ holderIdentity: 'usurper', leaseDurationSeconds: 15 });
    await clock.advance(1_000);
    await e.stopped();
    expect(e.isRunning()).toBe(false);
    await e.start(stop.signal);
    // The usurper never renews: its lease expires 15 s after this candidate saw it.
    await clock.advance(16_000);
    expect(events).toEqual(['started@0', 'stopped@2000', 'started@18000']);
    stop.abort();
    await e.stopped();
  });

  it('bounds the wait for onStartedLeading by gracefulShutdownTimeoutMs and keeps the lease', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore(clock);
    const logger = createTestLogger();
    const e = createLeaderElector(
      {
        client: store.client('a'),
        namespace,
        name: leaseName,
        identity: 'a',
        clock,
        logger,
        releaseOnCancel: true,
        gracefulShutdownTimeoutMs: 5_000,
      },
      { onStartedLeading: () => new Promise<void>(() => {}), onStoppedLeading: () => {} },
    );
    const stop = new AbortController();
    await e.start(stop.signal);
    await clock.advance(0);
    stop.abort();
    const result = e.stopped();
    await clock.advance(5_000);
    await expect(result).resolves.toEqual({ drained: false, pending: ['onStartedLeading'] });
    // Work that did not stop must not run beside a successor: the lease is not released.
    expect(store.holder).toBe('a');
    expect(logger.find('still running after the graceful shutdown timeout')).toHaveLength(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('run() is one campaign on the signal option; close() ends it and await using closes', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore(clock);
    const { elector: e } = elector(store, clock);
    const done = e.run();
    expect(e.run()).toBe(done);
    await clock.advance(0);
    expect(e.isLeader()).toBe(true);
    await e.close();
    await done;
    {
      await using scoped = elector(store, clock).elector;
      await scoped.start(new AbortController().signal);
      expect(scoped.isRunning()).toBe(true);
    }
    expect(clock.pendingTimers()).toBe(0);
  });

  it('refuses a start signal that is not an AbortSignal and a bad gracefulShutdownTimeoutMs', async () => {
    const clock = new FakeClock();
    const store = new FakeLeaseStore(clock);
    await expect(elector(store, clock).elector.start({} as never)).rejects.toThrow(TypeError);
    expect(() => elector(store, clock, { gracefulShutdownTimeoutMs: -1 })).toThrow(
      /gracefulShutdownTimeoutMs/,
    );
  });
});

/** A small seeded PRNG (mulberry32) so each property run is reproducible from its seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const faultArbitrary: fc.Arbitrary<Fault | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'fail' }) },
  { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'block' }) },
  { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'lost' }) },
  {
    weight: 1,
    arbitrary: fc.record<Fault & { kind: 'delay' }>({
      kind: fc.constant('delay'),
      ms: fc.integer({ min: 0, max: 12_000 }),
      apply: fc.constantFrom('before', 'after'),
    }),
  },
);

/** A window of time in which every call of one candidate meets the same fault (a partition, a slow link). */
interface Outage {
  caller: 'a' | 'b';
  startMs: number;
  durationMs: number;
  fault: Fault;
}

const outageArbitrary: fc.Arbitrary<Outage> = fc.record({
  caller: fc.constantFrom('a', 'b'),
  startMs: fc.integer({ min: 0, max: 40_000 }),
  durationMs: fc.integer({ min: 0, max: 25_000 }),
  fault: faultArbitrary.filter((fault): fault is Fault => fault !== undefined),
});

/** Durations that pass client-go's checks, down to a lease barely longer than the renew deadline. */
const timingArbitrary = fc
  .integer({ min: 500, max: 2_000 })
  .chain((retryPeriodMs) =>
    fc
      .integer({ min: Math.floor(retryPeriodMs * 1.2) + 1, max: 12_000 })
      .chain((renewDeadlineMs) =>
        fc
          .integer({ min: renewDeadlineMs + 1, max: renewDeadlineMs + 8_000 })
          .map((leaseDurationMs) => ({ retryPeriodMs, renewDeadlineMs, leaseDurationMs })),
      ),
  );

describe('leader election (property)', () => {
  it('never has two leaders at once, whatever the faults, restarts and releases', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(faultArbitrary, { minLength: 1, maxLength: 64 }),
        fc.array(outageArbitrary, { maxLength: 6 }),
        timingArbitrary,
        fc.array(fc.integer({ min: 1, max: 4_000 }), { minLength: 10, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        fc.integer(),
        async (faults, outages, timing, steps, cancels, seed) => {
          const clock = new FakeClock();
          const store = new FakeLeaseStore(clock);
          let call = 0;
          store.faults = ({ caller }) => {
            const now = clock.monotonic();
            const outage = outages.find(
              (o) => o.caller === caller && o.startMs <= now && now < o.startMs + o.durationMs,
            );
            return outage?.fault ?? faults[call++ % faults.length];
          };
          const random = seeded(seed);
          const leaders = new Map<string, AbortSignal>();
          const violations: string[] = [];
          const check = (who: string): void => {
            const others = [...leaders].filter(([id, s]) => id !== who && !s.aborted);
            if (others.length > 0) {
              violations.push(
                `${who} leads beside ${others.map(([id]) => id)} at ${clock.monotonic()}`,
              );
            }
          };
          const stopAll = new AbortController();
          const controllers = new Set<AbortController>();
          let cancelIndex = 0;
          // Each identity campaigns again (a new elector, as a restarted pod) whenever its run ends.
          const campaign = async (identity: string): Promise<void> => {
            while (!stopAll.signal.aborted) {
              const controller = new AbortController();
              controllers.add(controller);
              const releaseOnCancel = cancels[cancelIndex++ % cancels.length] ?? false;
              await createLeaderElector(
                {
                  client: store.client(identity),
                  namespace,
                  name: leaseName,
                  identity,
                  signal: AbortSignal.any([stopAll.signal, controller.signal]),
                  releaseOnCancel,
                  ...timing,
                  clock,
                  random,
                },
                {
                  onStartedLeading: (signal) => {
                    check(identity);
                    leaders.set(identity, signal);
                    return new Promise<void>((resolve) => {
                      signal.addEventListener('abort', () => resolve(), { once: true });
                    });
                  },
                  onStoppedLeading: () => {},
                },
              ).run();
              controllers.delete(controller);
            }
          };
          const runs = [campaign('a'), campaign('b')];
          for (const [index, step] of steps.entries()) {
            await clock.advance(step);
            const leading = [...leaders].filter(([, s]) => !s.aborted).map(([id]) => id);
            if (leading.length > 1) violations.push(`both lead at ${clock.monotonic()}`);
            // Now and then a leader is cancelled (as on a rollout): it releases or not, then campaigns again.
            if (cancels[index % cancels.length] && index % 5 === 4) {
              for (const controller of controllers) controller.abort();
            }
          }
          stopAll.abort();
          await clock.runAll();
          await Promise.all(runs);
          expect(violations).toEqual([]);
          expect(clock.pendingTimers()).toBe(0);
        },
      ),
      { numRuns: 50, seed: 1_500 },
    );
  });
});
