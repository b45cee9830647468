// The event recorder in the lifecycle shape: start/stopped/isRunning/close, a restart after a stop, the drain
// bound under its one name and the deprecated alias.
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import type { Event as EventsV1Event } from 'kubernetes-types/events/v1.js';
import { describe, expect, it } from 'vitest';
import { createEventRecorder } from './event-recorder.ts';
import type { EventRecorderClient } from './event-writer.ts';

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace: 'default', name: 'p', uid: 'u1' },
};

// Creates succeed at once, or hang until their signal aborts.
function eventsClient(hang = false): { client: EventRecorderClient; created: EventsV1Event[] } {
  const created: EventsV1Event[] = [];
  const client: EventRecorderClient = {
    create: (_namespace, event, options) => {
      if (hang) {
        return new Promise((_resolve, reject) => {
          options?.signal?.addEventListener('abort', () => reject(options.signal?.reason), {
            once: true,
          });
        });
      }
      created.push(event);
      return Promise.resolve(event);
    },
    patch: () => Promise.reject(new Error('no patch expected')),
  };
  return { client, created };
}

const base = { reportingController: 'example.com/test', reportingInstance: 'test-1' };

describe('event recorder lifecycle', () => {
  it('records from creation, stops on its signal, starts again with a new signal', async () => {
    const clock = new FakeClock();
    const { client, created } = eventsClient();
    const first = new AbortController();
    const recorder = createEventRecorder({ ...base, client, clock, signal: first.signal });
    expect(recorder.isRunning()).toBe(true);
    recorder.event(pod, undefined, 'Normal', 'One', 'Test', 'first');
    await recorder.flush();
    first.abort();
    expect(recorder.isRunning()).toBe(false);
    expect(await recorder.stopped()).toEqual({ drained: true, pending: [] });
    recorder.event(pod, undefined, 'Normal', 'Dropped', 'Test', 'after stop');
    const second = new AbortController();
    await recorder.start(second.signal);
    expect(recorder.isRunning()).toBe(true);
    recorder.event(pod, undefined, 'Normal', 'Two', 'Test', 'second');
    await recorder.flush();
    expect(created.map((event) => event.reason)).toEqual(['One', 'Two']);
    await recorder.close();
    expect(recorder.isRunning()).toBe(false);
    await expect(recorder.start(new AbortController().signal)).rejects.toMatchObject({
      code: 'LASSO_CONFIG_INVALID',
    });
  });

  it('a recorder created without a signal hands control to the first start', async () => {
    const { client } = eventsClient();
    const recorder = createEventRecorder({ ...base, client, clock: new FakeClock() });
    const stop = new AbortController();
    await recorder.start(stop.signal);
    stop.abort();
    expect(recorder.isRunning()).toBe(false);
    await recorder.close();
  });

  it('stopped() says drained: false when gracefulShutdownTimeoutMs passes first', async () => {
    const clock = new FakeClock();
    const { client } = eventsClient(true);
    const logger = createTestLogger();
    const stop = new AbortController();
    const recorder = createEventRecorder({
      ...base,
      client,
      clock,
      logger,
      signal: stop.signal,
      gracefulShutdownTimeoutMs: 1_000,
    });
    recorder.event(pod, undefined, 'Normal', 'Hung', 'Test', 'hangs');
    stop.abort();
    const result = recorder.stopped();
    await clock.advance(1_000);
    expect(await result).toEqual({ drained: false, pending: ['event writes (1)'] });
    await recorder.close();
  });

  it('stopTimeoutMs still works as a deprecated alias, with one warning per process', async () => {
    const clock = new FakeClock();
    const { client } = eventsClient(true);
    const logger = createTestLogger();
    const recorders = [1, 2].map(() =>
      createEventRecorder({ ...base, client, clock, logger, stopTimeoutMs: 500 }),
    );
    expect(logger.find('stopTimeoutMs is deprecated')).toHaveLength(1);
    const [recorder] = recorders;
    recorder?.event(pod, undefined, 'Normal', 'Hung', 'Test', 'hangs');
    const closing = recorder?.close();
    const result = recorder?.stopped();
    await clock.advance(500);
    await closing;
    expect((await result)?.drained).toBe(false);
    await recorders[1]?.close();
  });

  it('rejects a bad gracefulShutdownTimeoutMs naming the option', () => {
    const { client } = eventsClient();
    expect(() => createEventRecorder({ ...base, client, gracefulShutdownTimeoutMs: -1 })).toThrow(
      /gracefulShutdownTimeoutMs/,
    );
  });
});
