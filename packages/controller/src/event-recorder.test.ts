// Ports the behaviours of client-go tools/events event_broadcaster_test.go and eventseries_test.go (series
// aggregation, recordEvent's create/patch choice, retries) with a FakeClock (own tests, not copies).
import { ApiError } from '@lasso/client';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import type { Event as EventsV1Event } from 'kubernetes-types/events/v1.js';
import { describe, expect, it } from 'vitest';
import { revokedProxy } from './__fixtures__/hostile.ts';
import { maxNoteBytes, microTime, truncateNote } from './event-format.ts';
import { createEventRecorder, type EventRecorderOptions } from './event-recorder.ts';
import type { EventRecorderClient } from './event-writer.ts';

interface Call {
  verb: 'create' | 'patch';
  namespace: string | undefined;
  name: string;
  body: unknown;
  signal: AbortSignal | undefined;
}

/** An in-memory events API: creates refuse duplicates, merge patches need the Event to exist. */
function fakeEventsApi() {
  const calls: Call[] = [];
  const stored = new Map<string, EventsV1Event>();
  const failures: unknown[] = [];
  let hang = false;
  const respond = async <R>(call: Call, answer: () => R): Promise<R> => {
    calls.push(call);
    if (hang) {
      return new Promise<R>((_resolve, reject) => {
        call.signal?.addEventListener('abort', () => reject(call.signal?.reason), { once: true });
      });
    }
    const failure = failures.shift();
    if (failure !== undefined) throw failure;
    return answer();
  };
  const client: EventRecorderClient = {
    create: (namespace, event, options) =>
      respond(
        {
          verb: 'create',
          namespace,
          name: event.metadata?.name ?? '',
          body: event,
          signal: options?.signal,
        },
        () => {
          const key = `${namespace}/${event.metadata?.name}`;
          if (stored.has(key)) throw new ApiError({ status: 409, reason: 'AlreadyExists' });
          const created = { ...event, metadata: { ...event.metadata, resourceVersion: '1' } };
          stored.set(key, created);
          return created;
        },
      ),
    patch: (namespace, name, _type, data, options) =>
      respond({ verb: 'patch', namespace, name, body: data, signal: options?.signal }, () => {
        const existing = stored.get(`${namespace}/${name}`);
        if (existing === undefined) throw new ApiError({ status: 404, reason: 'NotFound' });
        const patched = { ...existing, ...(data as Partial<EventsV1Event>) };
        stored.set(`${namespace}/${name}`, patched);
        return patched;
      }),
  };
  return {
    client,
    calls,
    stored,
    /** The next calls throw these, in order. */
    fail: (...errors: unknown[]) => void failures.push(...errors),
    /** Every later call hangs until its signal aborts. */
    hangFromNowOn: () => {
      hang = true;
    },
  };
}

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-0', namespace: 'shop', uid: 'uid-pod', resourceVersion: '42' },
};
const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', uid: 'uid-node' } };

function setup(overrides: Partial<EventRecorderOptions> = {}) {
  const clock = new FakeClock();
  const api = fakeEventsApi();
  const logger = createTestLogger();
  const recorder = createEventRecorder({
    client: api.client,
    reportingController: 'example.com/shop-controller',
    reportingInstance: 'shop-controller-host-1',
    clock,
    logger,
    ...overrides,
  });
  return { clock, api, logger, recorder };
}

/** The Event body of call `index` (a create's Event or a patch's partial one). */
function sentEvent(calls: readonly Call[], index: number): EventsV1Event {
  const call = calls[index];
  if (call === undefined) throw new Error(`no call ${index}`);
  return call.body as EventsV1Event;
}

const retryConnectionError = (): Error => new Error('socket hang up');

describe('createEventRecorder', () => {
  describe('event()', () => {
    it('creates an Event with client-go names and fields', async () => {
      const { clock, api, recorder } = setup();
      recorder.event(pod, node, 'Normal', 'Scheduled', 'Binding', 'assigned shop/web-0 to node-1');
      await recorder.flush();
      expect(api.calls).toHaveLength(1);
      const call = api.calls[0] as Call;
      expect(call.verb).toBe('create');
      expect(call.namespace).toBe('shop');
      const nanos = BigInt(clock.now()) * 1_000_000n;
      expect(call.body).toEqual({
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: `web-0.${nanos.toString(16)}`, namespace: 'shop' },
        eventTime: '2024-01-01T00:00:00.000000Z',
        regarding: {
          apiVersion: 'v1',
          kind: 'Pod',
          name: 'web-0',
          namespace: 'shop',
          uid: 'uid-pod',
          resourceVersion: '42',
        },
        related: { apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'uid-node' },
        type: 'Normal',
        reason: 'Scheduled',
        action: 'Binding',
        note: 'assigned shop/web-0 to node-1',
        reportingController: 'example.com/shop-controller',
        reportingInstance: 'shop-controller-host-1',
      });
      await recorder.stop();
    });

    it('puts the Event of a cluster-scoped object in the default namespace', async () => {
      const { api, recorder } = setup();
      recorder.event(node, undefined, 'Warning', 'NotReady', 'Check', 'kubelet stopped posting');
      await recorder.flush();
      expect(api.calls[0]?.namespace).toBe('default');
      expect(api.calls[0]?.body).not.toHaveProperty('related');
      await recorder.stop();
    });

    it('returns at once without throwing, whatever the API does', async () => {
      const abort = new AbortController();
      const { api, clock, recorder } = setup({ signal: abort.signal });
      api.hangFromNowOn();
      expect(recorder.event(pod, undefined, 'Normal', 'Started', 'Start', 'x')).toBeUndefined();
      expect(api.calls).toHaveLength(1);
      abort.abort();
      const stopped = recorder.stop();
      await clock.advance(5_000);
      await stopped;
    });

    it('gives Events created in the same millisecond distinct names', async () => {
      const { api, recorder } = setup();
      recorder.event(pod, undefined, 'Normal', 'Pulled', 'Pull', 'image a');
      recorder.event(pod, undefined, 'Normal', 'Pulled', 'Pull', 'image b');
      await recorder.flush();
      const names = api.calls.map((call) => call.name);
      expect(new Set(names).size).toBe(2);
      expect(api.stored.size).toBe(2);
      await recorder.stop();
    });

    it.for([
      { name: 'an unknown type', type: 'Info', reason: 'R', action: 'A', message: /type/ },
      { name: 'an empty reason', type: 'Normal', reason: '', action: 'A', message: /reason/ },
      {
        name: 'a reason over 128 characters',
        type: 'Normal',
        reason: 'r'.repeat(129),
        action: 'A',
        message: /reason/,
      },
      { name: 'an empty action', type: 'Warning', reason: 'R', action: '', message: /action/ },
    ])('logs and drops an event with $name', async ({ type, reason, action, message }) => {
      const { api, logger, recorder } = setup();
      expect(() =>
        recorder.event(pod, undefined, type as 'Normal', reason, action, 'note'),
      ).not.toThrow();
      await recorder.flush();
      expect(api.calls).toEqual([]);
      expect(logger.entries.filter((entry) => entry.level === 'error')).toHaveLength(1);
      expect(logger.entries[0]?.message).toMatch(message);
      await recorder.stop();
    });

    it('logs and drops an event about an object without kind or name', async () => {
      const { api, logger, recorder } = setup();
      recorder.event({ metadata: { name: 'x' } }, undefined, 'Normal', 'R', 'A', 'note');
      recorder.event({ kind: 'Pod', metadata: {} }, undefined, 'Normal', 'R', 'A', 'note');
      await recorder.flush();
      expect(api.calls).toEqual([]);
      expect(logger.find('no kind or no name')).toHaveLength(2);
      await recorder.stop();
    });

    it('records the event without a related object it cannot reference', async () => {
      const { api, recorder } = setup();
      recorder.event(pod, { metadata: {} }, 'Normal', 'R', 'A', 'note');
      await recorder.flush();
      expect(api.calls[0]?.body).not.toHaveProperty('related');
      await recorder.stop();
    });

    it('survives arguments that throw when read', async () => {
      const { api, logger, recorder } = setup();
      const hostile = {
        kind: 'Pod',
        get metadata(): never {
          throw new Error('boom');
        },
      };
      expect(() => recorder.event(hostile, undefined, 'Normal', 'R', 'A', 'n')).not.toThrow();
      expect(api.calls).toEqual([]);
      expect(logger.find('could not be built')).toHaveLength(1);
      await recorder.stop();
    });

    it('cuts a note over 1 KiB to fit, ending in " ..."', async () => {
      const { api, recorder } = setup();
      recorder.event(pod, undefined, 'Warning', 'Failed', 'Sync', 'x'.repeat(5_000));
      await recorder.flush();
      const note = sentEvent(api.calls, 0).note ?? '';
      expect(Buffer.byteLength(note)).toBe(maxNoteBytes);
      expect(note.endsWith(' ...')).toBe(true);
      await recorder.stop();
    });

    it('never logs the note', async () => {
      const { clock, api, logger, recorder } = setup({ maxTries: 2 });
      api.fail(retryConnectionError(), new ApiError({ status: 422, reason: 'Invalid' }));
      recorder.event(pod, undefined, 'Warning', 'Failed', 'Sync', 'password=hunter2');
      recorder.event(pod, undefined, 'Info' as 'Normal', 'Failed', 'Sync', 'password=hunter2');
      await clock.advance(12_500);
      expect(logger.entries.length).toBeGreaterThan(0);
      expect(JSON.stringify(logger.entries)).not.toContain('hunter2');
      await recorder.stop();
    });
  });

  describe('series', () => {
    // TestEventSeriesf: the first occurrence is created, repeats become a series on it.
    it('creates an event once and writes its repeats as a series at the heartbeat', async () => {
      const { clock, api, recorder } = setup();
      recorder.event(pod, undefined, 'Warning', 'BackOff', 'Restart', 'back-off restarting');
      await clock.advance(1_000);
      for (let i = 0; i < 4; i++) {
        recorder.event(pod, undefined, 'Warning', 'BackOff', 'Restart', 'back-off restarting');
        await clock.advance(1_000);
      }
      expect(api.calls.map((call) => call.verb)).toEqual(['create']);
      await clock.advance(30_000 - 5_000);
      expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch']);
      const patch = api.calls[1] as Call;
      expect(patch.name).toBe(api.calls[0]?.name);
      expect(patch.body).toEqual({
        series: { count: 5, lastObservedTime: '2024-01-01T00:00:04.000000Z' },
      });
      const stored = [...api.stored.values()][0];
      expect(stored?.series?.count).toBe(5);
      await recorder.stop();
    });

    it('writes a hot loop as one create and one patch per heartbeat', async () => {
      const { clock, api, recorder } = setup();
      for (let second = 0; second < 60; second++) {
        for (let i = 0; i < 10; i++) {
          recorder.event(pod, undefined, 'Normal', 'Synced', 'Sync', 'synced');
        }
        await clock.advance(1_000);
      }
      await recorder.flush();
      expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch', 'patch']);
      expect(sentEvent(api.calls, 2).series?.count).toBe(600);
      await recorder.stop();
    });

    it('writes nothing at a heartbeat without new occurrences', async () => {
      const { clock, api, recorder } = setup();
      recorder.event(pod, undefined, 'Normal', 'Synced', 'Sync', 'synced');
      recorder.event(pod, undefined, 'Normal', 'Synced', 'Sync', 'synced');
      await clock.advance(30_000);
      await clock.advance(120_000);
      expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch']);
      await recorder.stop();
    });

    it('writes a repeat after a quiet heartbeat at once', async () => {
      const { clock, api, recorder } = setup();
      recorder.event(pod, undefined, 'Normal', 'Synced', 'Sync', 'synced');
      await clock.advance(60_000);
      recorder.event(pod, undefined, 'Normal', 'Synced', 'Sync', 'synced');
      await clock.advance(0);
      expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch']);
      await recorder.stop();
    });

    it.for([
      { name: 'note', change: { note: 'other' } },
      { name: 'reason', change: { reason: 'Other' } },
      { name: 'action', change: { action: 'Other' } },
      { name: 'type', change: { type: 'Warning' as const } },
      { name: 'related object', change: { related: node } },
      {
        name: 'regarding object',
        change: { regarding: { ...pod, metadata: { ...pod.metadata, name: 'web-1' } } },
      },
    ])('keeps events that differ in $name apart', async ({ change }) => {
      const { api, recorder } = setup();
      const base = {
        regarding: pod,
        related: undefined,
        type: 'Normal' as const,
        reason: 'R',
        action: 'A',
        note: 'n',
      };
      for (const args of [base, { ...base, ...change }]) {
        recorder.event(
          args.regarding,
          args.related,
          args.type,
          args.reason,
          args.action,
          args.note,
        );
      }
      await recorder.flush();
      expect(api.calls.map((call) => call.verb)).toEqual(['create', 'create']);
      await recorder.stop();
    });

    it('aggregates events about an object whose resourceVersion changed', async () => {
      const { clock, api, recorder } = setup();
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      const newer = { ...pod, metadata: { ...pod.metadata, resourceVersion: '43' } };
      recorder.event(newer, undefined, 'Normal', 'R', 'A', 'n');
      await clock.advance(30_000);
      expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch']);
      await recorder.stop();
    });

    // finishSeries: after 6 minutes without an occurrence the series is over.
    it('creates a new Event once the series window has passed, and keeps no timer after it', async () => {
      const { clock, api, recorder } = setup();
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      await clock.advance(6 * 60_000);
      expect(clock.pendingTimers()).toBe(0);
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      await recorder.flush();
      expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch', 'create']);
      expect(api.calls[2]?.name).not.toBe(api.calls[0]?.name);
      await recorder.stop();
    });

    // recordEvent: a series whose Event is gone (expired) is created again, with its series.
    it('creates the Event with its series when the patch finds it gone', async () => {
      const { clock, api, recorder } = setup();
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      await recorder.flush();
      api.stored.clear();
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      await clock.advance(30_000);
      expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch', 'create']);
      const recreated = sentEvent(api.calls, 2);
      expect(recreated.series?.count).toBe(2);
      expect(recreated.metadata?.resourceVersion).toBeUndefined();
      await recorder.stop();
    });

    it('patches a series when its first create failed for good', async () => {
      const { clock, api, recorder } = setup();
      api.fail(new ApiError({ status: 403, reason: 'Forbidden' }));
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      await clock.advance(30_000);
      expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch', 'create']);
      expect(api.stored.size).toBe(1);
      await recorder.stop();
    });
  });

  describe('retries', () => {
    it('retries a failed create 10 to 12.5 s later until it succeeds', async () => {
      const { clock, api, logger, recorder } = setup();
      api.fail(retryConnectionError(), new ApiError({ status: 503, reason: 'ServiceUnavailable' }));
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      await clock.advance(9_999);
      expect(api.calls).toHaveLength(1);
      await clock.advance(2_501);
      expect(api.calls).toHaveLength(2);
      await clock.advance(12_500);
      expect(api.calls).toHaveLength(3);
      expect(api.stored.size).toBe(1);
      expect(logger.find('retrying')).toHaveLength(2);
      expect(logger.find('retrying')[0]?.attributes).toMatchObject({
        namespace: 'shop',
        reason: 'R',
        attempt: 1,
        error: 'socket hang up',
      });
      await recorder.stop();
    });

    // attemptRecording: drop after maxTriesPerEvent.
    it('drops an event after 12 tries and logs it', async () => {
      const { clock, api, logger, recorder } = setup();
      api.fail(...Array.from({ length: 20 }, retryConnectionError));
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      await clock.advance(12 * 12_500);
      expect(api.calls).toHaveLength(12);
      expect(logger.find('retry limit reached')).toHaveLength(1);
      await clock.advance(6 * 60_000);
      expect(clock.pendingTimers()).toBe(0);
      await recorder.stop();
    });

    it.for([
      {
        name: 'an invalid Event (422)',
        error: new ApiError({ status: 422, reason: 'Invalid' }),
        log: 'rejected',
      },
      {
        name: 'a forbidden write (403)',
        error: new ApiError({ status: 403, reason: 'Forbidden' }),
        log: 'rejected',
      },
      {
        name: 'a bad request built by the client',
        error: new TypeError('bad name'),
        log: 'could not be sent',
      },
    ])('does not retry $name', async ({ error, log }) => {
      const { clock, api, logger, recorder } = setup();
      api.fail(error);
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      await clock.advance(60_000);
      expect(api.calls).toHaveLength(1);
      expect(logger.find(log)).toHaveLength(1);
      await recorder.stop();
    });

    it('drops and logs an event whose write rejects with a value that throws when inspected', async () => {
      const { clock, api, logger, recorder } = setup();
      api.fail(revokedProxy());
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      await clock.advance(60_000);
      await recorder.flush();
      expect(api.calls).toHaveLength(1);
      expect(logger.find('event dropped: its write failed unexpectedly')).toHaveLength(1);
      // The recorder still works.
      recorder.event(pod, undefined, 'Normal', 'R2', 'A', 'n');
      await recorder.flush();
      expect(api.calls).toHaveLength(2);
      await recorder.stop();
    });

    it('treats an Event that exists already as recorded', async () => {
      const { clock, api, logger, recorder } = setup();
      api.fail(new ApiError({ status: 409, reason: 'AlreadyExists' }));
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      await clock.advance(60_000);
      expect(api.calls).toHaveLength(1);
      expect(logger.entries.filter((entry) => entry.level !== 'debug')).toEqual([]);
      await recorder.stop();
    });

    it('drops new events while too many writes are pending', async () => {
      const abort = new AbortController();
      const { api, clock, logger, recorder } = setup({
        maxPendingWrites: 2,
        signal: abort.signal,
      });
      api.hangFromNowOn();
      for (const note of ['a', 'b', 'c']) recorder.event(pod, undefined, 'Normal', 'R', 'A', note);
      expect(api.calls).toHaveLength(2);
      expect(logger.find('too many writes pending')).toHaveLength(1);
      abort.abort();
      const stopped = recorder.stop();
      await clock.advance(5_000);
      await stopped;
    });
  });

  describe('stop()', () => {
    it('writes the series counts not written yet, then leaves no timer', async () => {
      const { clock, api, recorder } = setup();
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      await recorder.flush();
      await recorder.stop();
      expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch']);
      expect(sentEvent(api.calls, 1).series?.count).toBe(3);
      expect(clock.pendingTimers()).toBe(0);
    });

    it('writes the final count after a write in flight when stopped mid-write', async () => {
      const { clock, api, recorder } = setup();
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      await recorder.stop();
      expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch']);
      expect(clock.pendingTimers()).toBe(0);
    });

    it('drops pending retries and later events', async () => {
      const { clock, api, logger, recorder } = setup();
      api.fail(retryConnectionError());
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      await clock.advance(0);
      expect(clock.pendingTimers()).toBeGreaterThan(0);
      await recorder.stop();
      expect(clock.pendingTimers()).toBe(0);
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'later');
      await clock.advance(60_000);
      expect(api.calls).toHaveLength(1);
      expect(logger.find('the recorder is stopped')).toHaveLength(1);
    });

    it('is idempotent', async () => {
      const { recorder } = setup();
      const first = recorder.stop();
      expect(recorder.stop()).toBe(first);
      await first;
    });
  });

  describe('signal', () => {
    it('writes the final series count when its signal aborts', async () => {
      const abort = new AbortController();
      const { clock, api, recorder } = setup({ signal: abort.signal });
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      await recorder.flush();
      expect(api.calls.map((call) => call.verb)).toEqual(['create']);
      abort.abort(new Error('shutting down'));
      await recorder.stop();
      expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch']);
      expect(sentEvent(api.calls, 1).series?.count).toBe(2);
      expect(clock.pendingTimers()).toBe(0);
    });

    it('writes the final count of a series whose write was in flight when its signal aborted', async () => {
      const abort = new AbortController();
      const { clock, api, recorder } = setup({ signal: abort.signal });
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      abort.abort(new Error('shutting down'));
      await recorder.stop();
      expect(api.calls.map((call) => call.verb)).toEqual(['create', 'patch']);
      expect(sentEvent(api.calls, 1).series?.count).toBe(2);
      expect(clock.pendingTimers()).toBe(0);
    });

    it('gives requests in flight and the final counts stopTimeoutMs, then cancels them', async () => {
      const abort = new AbortController();
      const { clock, api, logger, recorder } = setup({
        signal: abort.signal,
        stopTimeoutMs: 2_000,
      });
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      api.hangFromNowOn();
      recorder.event(pod, undefined, 'Normal', 'Other', 'A', 'n');
      abort.abort(new Error('shutting down'));
      const stopped = recorder.stop();
      await clock.advance(1_999);
      expect(api.calls.map((call) => call.verb)).toEqual(['create', 'create', 'patch']);
      expect(api.calls.some((call) => call.signal?.aborted)).toBe(false);
      await clock.advance(1);
      await stopped;
      expect(api.calls.every((call) => call.signal?.aborted)).toBe(true);
      expect(logger.find('the recorder stop timed out')).toHaveLength(1);
      expect(clock.pendingTimers()).toBe(0);
    });

    it('starts stopped with an aborted signal', async () => {
      const { api, recorder } = setup({ signal: AbortSignal.abort() });
      recorder.event(pod, undefined, 'Normal', 'R', 'A', 'n');
      await recorder.stop();
      expect(api.calls).toEqual([]);
    });
  });

  describe('options', () => {
    it.for([
      { name: 'client', options: { client: {} }, error: TypeError },
      {
        name: 'reportingController',
        options: { reportingController: 'not a name' },
        error: TypeError,
      },
      {
        name: 'reportingInstance',
        options: { reportingInstance: 'i'.repeat(129) },
        error: TypeError,
      },
      { name: 'seriesHeartbeatMs', options: { seriesHeartbeatMs: 0 }, error: RangeError },
      { name: 'seriesWindowMs', options: { seriesWindowMs: Number.NaN }, error: RangeError },
      { name: 'maxTries', options: { maxTries: 1.5 }, error: RangeError },
      { name: 'stopTimeoutMs', options: { stopTimeoutMs: -1 }, error: RangeError },
    ])('throws naming options.$name when it is invalid', ({ name, options, error }) => {
      expect(() => setup(options as Partial<EventRecorderOptions>)).toThrow(error);
      expect(() => setup(options as Partial<EventRecorderOptions>)).toThrow(`options.${name}`);
    });
  });
});

describe('microTime', () => {
  it('formats epoch ms with six fractional digits', () => {
    expect(microTime(Date.UTC(2024, 4, 6, 7, 8, 9, 123))).toBe('2024-05-06T07:08:09.123000Z');
    expect(microTime(Date.UTC(2024, 0, 1) + 0.5)).toBe('2024-01-01T00:00:00.000500Z');
  });
});

describe('truncateNote', () => {
  it('keeps a note that fits', () => {
    expect(truncateNote('a'.repeat(maxNoteBytes))).toBe('a'.repeat(maxNoteBytes));
  });

  it('never splits a multi-byte character', () => {
    const note = truncateNote('€'.repeat(500));
    expect(Buffer.byteLength(note)).toBeLessThanOrEqual(maxNoteBytes);
    expect(note).toBe(`${'€'.repeat(340)} ...`);
  });
});
