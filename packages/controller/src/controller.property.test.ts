// Property: whatever the interleaving of informer events, enqueues, handler failures, slow handlers,
// registrations, stops and restarts on the same queue, no key is ever handled twice at once, and once everything settles every handler's last successful
// call for each key saw that key's final state (client-go's "no lost updates" for a controller).
import type { KubeObject } from '@lasso/client';
import { sleep } from '@lasso/core';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { exponentialFailureRateLimiter } from '@lasso/workqueue';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configMap, createTestInformer } from './__fixtures__/test-informer.ts';
import { createController } from './controller.ts';
import { createSharedController } from './shared-controller.ts';

const names = ['a', 'b', 'c'] as const;

type Command =
  | { type: 'write'; name: (typeof names)[number] }
  | { type: 'delete'; name: (typeof names)[number]; tombstone: boolean }
  | { type: 'enqueue'; name: (typeof names)[number]; how: 'key' | 'rateLimited' | 'after' }
  | { type: 'fail'; count: number }
  | { type: 'slow'; delayMs: number }
  | { type: 'register' }
  | { type: 'stop' }
  | { type: 'start'; workers: number }
  | { type: 'advance'; ms: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ type: fc.constant('write' as const), name: fc.constantFrom(...names) }),
  fc.record({
    type: fc.constant('delete' as const),
    name: fc.constantFrom(...names),
    tombstone: fc.boolean(),
  }),
  fc.record({
    type: fc.constant('enqueue' as const),
    name: fc.constantFrom(...names),
    how: fc.constantFrom('key' as const, 'rateLimited' as const, 'after' as const),
  }),
  fc.record({ type: fc.constant('fail' as const), count: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ type: fc.constant('slow' as const), delayMs: fc.integer({ min: 0, max: 50 }) }),
  fc.record({ type: fc.constant('register' as const) }),
  fc.record({ type: fc.constant('stop' as const) }),
  fc.record({ type: fc.constant('start' as const), workers: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ type: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 200 }) }),
);

async function run(commands: Command[], workers: number): Promise<void> {
  const clock = new FakeClock();
  const informer = createTestInformer();
  const shared = createSharedController<KubeObject>({
    name: 'v1, Resource=configmaps',
    client: {} as never,
    clock,
    logger: createTestLogger(),
    createController: (handler) =>
      createController('v1, Kind=ConfigMap', informer, () => {}, handler, {
        clock,
        rateLimiter: exponentialFailureRateLimiter({ baseDelayMs: 5, maxDelayMs: 1_000 }),
        logger: createTestLogger(),
      }),
  });
  const stop = new AbortController();
  // The run's signal (a leader's), apart from the handlers' registration signal.
  let leading = new AbortController();
  let starts: Array<Promise<void>> = [];
  const state = new Map<string, KubeObject | undefined>();
  const active = new Set<string>();
  let overlaps = 0;
  let failuresLeft = 0;
  let slowMs = 0;
  // handler name -> key -> resourceVersion seen last ('deleted' for undefined)
  const lastSeen = new Map<string, Map<string, string>>();
  // handler name -> keys it must end up seeing: those cached when it registered (replayed to it) and those
  // written since. A key deleted before a handler registered, and never written again, is unknown to it.
  const known = new Map<string, Set<string>>();
  let version = 1;
  const register = (name: string): void => {
    lastSeen.set(name, new Map());
    known.set(
      name,
      new Set([...state].filter(([, object]) => object !== undefined).map(([n]) => `ns/${n}`)),
    );
    shared.registerHandler(stop.signal, name, async (key, object) => {
      if (active.has(`${name}:${key}`)) overlaps++;
      active.add(`${name}:${key}`);
      try {
        if (slowMs > 0) await sleep(clock, slowMs);
        if (failuresLeft > 0) {
          failuresLeft--;
          throw new Error('injected failure');
        }
        // Only a successful call counts as having seen the state: a failed one must be retried.
        lastSeen.get(name)?.set(key, object?.metadata?.resourceVersion ?? 'deleted');
      } finally {
        active.delete(`${name}:${key}`);
      }
    });
  };
  register('h0');
  informer.sync();
  await shared.start(leading.signal, workers);
  for (const [index, step] of commands.entries()) {
    switch (step.type) {
      case 'write': {
        const object = configMap(step.name, { resourceVersion: String(++version) });
        if (state.get(step.name) === undefined) informer.add(object);
        else informer.update(object);
        state.set(step.name, object);
        for (const keys of known.values()) keys.add(`ns/${step.name}`);
        break;
      }
      case 'delete': {
        const current = state.get(step.name);
        if (current !== undefined) informer.delete(current, { tombstone: step.tombstone });
        state.set(step.name, undefined);
        break;
      }
      case 'enqueue':
        if (step.how === 'key') shared.enqueueKey(`ns/${step.name}`);
        else if (step.how === 'rateLimited') shared.enqueue('ns', step.name);
        else shared.enqueueAfter('ns', step.name, 30);
        break;
      case 'fail':
        failuresLeft += step.count;
        break;
      case 'slow':
        slowMs = step.delayMs;
        break;
      case 'register':
        register(`h${index + 1}`);
        break;
      case 'stop':
        leading.abort();
        break;
      case 'start':
        // Not awaited: a restart waits for the previous stop, which waits for handlers sleeping on the clock.
        if (leading.signal.aborted) leading = new AbortController();
        starts.push(shared.start(leading.signal, step.workers).catch(() => {}));
        break;
      case 'advance':
        await clock.advance(step.ms);
        break;
    }
  }
  // Let everything settle: running again, no more failures, and enough fake time for every backoff and delay.
  if (leading.signal.aborted) {
    leading = new AbortController();
    starts.push(shared.start(leading.signal, workers));
  }
  failuresLeft = 0;
  for (let round = 0; round < 20; round++) await clock.advance(1_000);
  await Promise.all(starts);
  starts = [];
  expect(shared.isRunning()).toBe(true);
  expect(overlaps).toBe(0);
  for (const [handler, seen] of lastSeen) {
    for (const name of names) {
      const key = `ns/${name}`;
      if (!known.get(handler)?.has(key)) continue;
      const final = state.get(name);
      expect({ handler, key, seen: seen.get(key) }).toEqual({
        handler,
        key,
        seen: final?.metadata?.resourceVersion ?? 'deleted',
      });
    }
  }
  leading.abort();
  stop.abort();
  expect(await shared.stopped()).toEqual({ drained: true, pending: [] });
  await shared.close();
}

describe('controller (property)', () => {
  it('never runs one key twice at once and ends with every handler on each key’s final state', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), run),
      { numRuns: 300, seed: 424242 },
    );
  });
});
