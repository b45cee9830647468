// Watch events in bursts (every event of one body chunk at once, as @lasso/client decodes them): the informer's
// guarantees hold across and inside bursts: per-key order with old and new objects, isolated handlers, failures in
// the middle of a burst, staleness after it, the request released on stop. The fake offers `watchBatches` (as
// @lasso/client's Client does) beside its events, and the reflector reads the batches: every event of one batch is
// applied in one step.
import {
  ApiError,
  isGone,
  type KubeObject,
  type ListOptions,
  type ObjectList,
  type WatchEvent,
  type WatchOptions,
} from '@lasso/client';
import { isLassoError } from '@lasso/core';
import { createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import type { WatchError } from './errors.ts';
import type { ListerWatcher } from './lister-watcher.ts';
import { createSharedIndexInformer, type SharedIndexInformer } from './shared-informer.ts';
import { stalenessMetricNames } from './staleness.ts';

function cm(name: string, resourceVersion: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: 'ns', name, resourceVersion },
  };
}
const modified = (name: string, rv: string): WatchEvent<KubeObject> => ({
  type: 'MODIFIED',
  object: cm(name, rv),
});

type Step = { batch: unknown[] } | { error: unknown } | { end: true };

/** One watch whose body the test writes batch by batch; read through its events or its batch view. */
class BatchWatch {
  readonly options: WatchOptions;
  returned = false;
  /** Which views the consumer read. */
  batchViewTaken = false;
  eventReads = 0;
  readonly #steps: Step[] = [];
  #wake: (() => void) | undefined;
  #batches: AsyncIterator<unknown[]> | undefined;

  constructor(options: WatchOptions) {
    this.options = options;
  }

  push(...batch: unknown[]): void {
    this.#steps.push({ batch });
    this.#wake?.();
  }

  fail(error: unknown): void {
    this.#steps.push({ error });
    this.#wake?.();
  }

  iterator(): AsyncIterator<WatchEvent<KubeObject>> {
    const batches: AsyncIterator<unknown[]> = {
      next: async () => {
        const signal = this.options.signal as AbortSignal;
        for (;;) {
          if (signal.aborted) throw signal.reason;
          const step = this.#steps.shift();
          if (step !== undefined) {
            if ('batch' in step) return { done: false, value: step.batch };
            if ('error' in step) throw step.error;
            return { done: true, value: undefined };
          }
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
            signal.addEventListener('abort', () => resolve(), { once: true });
          });
        }
      },
      return: async () => {
        this.returned = true;
        return { done: true, value: undefined };
      },
    };
    // The events view: the batches' events one by one (what a Client's event iterator does).
    let current: unknown[] = [];
    let index = 0;
    const events: AsyncIterator<WatchEvent<KubeObject>> = {
      next: async () => {
        this.eventReads++;
        while (index >= current.length) {
          const step = await batches.next();
          if (step.done === true) return { done: true, value: undefined };
          current = step.value;
          index = 0;
        }
        return { done: false, value: current[index++] as WatchEvent<KubeObject> };
      },
      return: async () => (batches.return?.() ?? { done: true, value: undefined }) as never,
    };
    this.#batches = batches;
    return events;
  }

  /** The batch view (what a Client's `watchBatches` gives). */
  batchIterator(): AsyncIterator<WatchEvent<KubeObject>[]> {
    this.iterator();
    this.batchViewTaken = true;
    return this.#batches as AsyncIterator<WatchEvent<KubeObject>[]>;
  }
}

class BatchListerWatcher implements ListerWatcher<KubeObject> {
  lists = 0;
  readonly watches: BatchWatch[] = [];
  #watchWaiters: Array<(watch: BatchWatch) => void> = [];

  readonly #objects: KubeObject[];

  constructor(objects: KubeObject[]) {
    this.#objects = objects;
  }

  async list(_options: ListOptions): Promise<ObjectList<KubeObject>> {
    this.lists++;
    return {
      apiVersion: 'v1',
      kind: 'List',
      metadata: { resourceVersion: '10' },
      items: this.#objects,
    };
  }

  watchBatches(options: WatchOptions): AsyncIterable<WatchEvent<KubeObject>[]> {
    const watch = this.#open(options);
    if (watch === undefined) return { [Symbol.asyncIterator]: () => refused() };
    return { [Symbol.asyncIterator]: () => watch.batchIterator() };
  }

  watch(options: WatchOptions): AsyncIterable<WatchEvent<KubeObject>> {
    const watch = this.#open(options);
    if (watch === undefined) return { [Symbol.asyncIterator]: () => refused() };
    return { [Symbol.asyncIterator]: () => watch.iterator() };
  }

  #open(options: WatchOptions): BatchWatch | undefined {
    // A server without streaming lists (KEP-3157) refuses them: the reflector lists instead.
    if ((options as { sendInitialEvents?: boolean }).sendInitialEvents === true) {
      return undefined;
    }
    const watch = new BatchWatch(options);
    this.watches.push(watch);
    for (const waiter of this.#watchWaiters.splice(0)) waiter(watch);
    return watch;
  }

  nextWatch(): Promise<BatchWatch> {
    return new Promise((resolve) => this.#watchWaiters.push(resolve));
  }
}

/** A streaming list refused as a server without KEP-3157 refuses it. */
function refused<V>(): AsyncIterator<V> {
  const refusal = new ApiError({ status: 422, reason: 'Invalid', message: 'no sendInitialEvents' });
  return { next: () => Promise.reject(refusal) };
}

/** Let the informer's loops run until `done()` holds (bounded: a stuck pipeline fails the expectation). */
async function until(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1_000 && !done(); turn++) await new Promise(setImmediate);
  expect(done()).toBe(true);
}

async function started(objects: KubeObject[] = [cm('a', '1'), cm('b', '2')]) {
  const lw = new BatchListerWatcher(objects);
  const metrics = createTestMetricsProvider();
  const errors: WatchError[] = [];
  const clock = new FakeClock();
  const informer: SharedIndexInformer<KubeObject> = createSharedIndexInformer(lw, {
    clock,
    random: () => 0,
    metrics,
    name: 'batches',
    watchErrorHandler: (error) => errors.push(error),
  });
  const updates: string[] = [];
  informer.addEventHandler({
    onUpdate: (old, object) =>
      void updates.push(
        `${object.metadata?.name}:${old.metadata?.resourceVersion}->${object.metadata?.resourceVersion}`,
      ),
  });
  const controller = new AbortController();
  const firstWatch = lw.nextWatch();
  await informer.start(controller.signal);
  await informer.whenSynced();
  const watch = await firstWatch;
  const stop = async (): Promise<void> => {
    controller.abort();
    await informer.stopped();
  };
  return { lw, clock, informer, metrics, errors, updates, watch, stop };
}

const rvOf = (informer: SharedIndexInformer<KubeObject>, key: string) =>
  informer.getStore().getByKey(key)?.metadata?.resourceVersion;

describe('watch events in bursts', () => {
  it("reads the client's batch view, never its events one by one", async () => {
    const { informer, updates, watch, stop } = await started();
    watch.push(modified('a', '11'), modified('b', '12'), modified('a', '13'));
    await until(() => updates.length === 3);
    expect(watch.batchViewTaken).toBe(true);
    expect(watch.eventReads).toBe(0);
    expect(rvOf(informer, 'ns/a')).toBe('13');
    await stop();
    expect(watch.returned).toBe(true); // the batch view's return() released the request
  });

  it('applies the events of a batch in order, with old and new objects, across batch boundaries', async () => {
    const { informer, updates, watch, stop } = await started();
    watch.push(modified('a', '11'), modified('b', '12'), modified('a', '13'));
    watch.push(modified('a', '14'));
    await until(() => updates.length === 4);
    // Per key, in order, each with the object it replaced (the DeltaFIFO pops a key's queued deltas together).
    expect(updates.filter((u) => u.startsWith('a:'))).toEqual(['a:1->11', 'a:11->13', 'a:13->14']);
    expect(updates.filter((u) => u.startsWith('b:'))).toEqual(['b:2->12']);
    expect(rvOf(informer, 'ns/a')).toBe('14');
    expect(informer.lastSyncResourceVersion()).toBe('14');
    await stop();
  });

  it('records staleness once the batch is applied, at its last resourceVersion', async () => {
    const { metrics, updates, watch, stop } = await started();
    watch.push(modified('a', '11'), modified('b', '12'), {
      type: 'BOOKMARK',
      object: cm('', '15'),
    });
    await until(() => updates.length === 2);
    expect(metrics.value(stalenessMetricNames.resourceVersion, { name: 'batches' })).toBe(15);
    await stop();
  });

  it('keeps a handler that is busy while a batch arrives from delaying the store or other handlers', async () => {
    const { informer, updates, watch, stop } = await started();
    const slowSeen: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    informer.addEventHandler({
      onUpdate: async (_old, object) => {
        slowSeen.push(`${object.metadata?.name}@${object.metadata?.resourceVersion}`);
        await gate;
      },
    });
    watch.push(modified('a', '11'), modified('b', '12'));
    await until(() => updates.length === 2 && slowSeen.length === 1);
    // The slow handler is inside its first call; a second batch arrives meanwhile.
    watch.push(modified('a', '13'), modified('b', '14'));
    await until(() => updates.length === 4);
    expect(rvOf(informer, 'ns/a')).toBe('13');
    expect(rvOf(informer, 'ns/b')).toBe('14');
    expect(slowSeen).toEqual(['a@11']);
    release();
    await until(() => slowSeen.length === 4);
    expect(slowSeen).toEqual(['a@11', 'b@12', 'a@13', 'b@14']);
    await stop();
  });

  it('stores the events before a malformed one in the middle of a batch, then reports it and relists', async () => {
    const { lw, clock, informer, errors, watch, stop } = await started();
    const relisted = lw.nextWatch();
    watch.push(modified('a', '11'), { type: 'MODIFIED', object: null }, modified('b', '13'));
    await until(() => errors.length === 1);
    expect(rvOf(informer, 'ns/a')).toBe('11');
    expect(rvOf(informer, 'ns/b')).toBe('2');
    expect(informer.lastSyncResourceVersion()).toBe('11');
    await clock.advance(1_000); // the backoff, then the relist
    await relisted;
    expect(errors).toHaveLength(1);
    expect(errors[0]?.phase).toBe('event');
    expect(errors[0]?.willRelist).toBe(true);
    expect(isLassoError(errors[0]?.cause, 'LASSO_WATCH_DECODE')).toBe(true);
    expect(lw.lists).toBe(2);
    // The relist replaced the store with the server's state (the list still says a@1, b@2).
    await until(() => rvOf(informer, 'ns/a') === '1');
    expect(rvOf(informer, 'ns/b')).toBe('2');
    await stop();
  });

  it('applies the events before an ERROR event in a batch, then fails the watch with its status', async () => {
    const { lw, updates, errors, watch, stop } = await started();
    const relisted = lw.nextWatch();
    watch.push(
      modified('a', '11'),
      {
        type: 'ERROR',
        object: {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 410,
          reason: 'Expired',
          message: 'gone',
        },
      },
      modified('b', '13'),
    );
    await relisted;
    expect(updates).toEqual(['a:1->11']);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.phase).toBe('watch');
    expect(isGone(errors[0]?.cause)).toBe(true);
    expect(errors[0]?.resourceVersion).toBe('11');
    await stop();
  });

  it('reports an error thrown by the batch iterator after the batches before it', async () => {
    const { lw, updates, errors, watch, stop } = await started();
    watch.push(modified('a', '11'));
    watch.fail(new ApiError({ status: 500, message: 'boom' }));
    await until(() => errors.length === 1);
    expect(lw.watches).toHaveLength(1); // relisted only after the backoff (the FakeClock is not advanced)
    await stop();
    expect(updates).toEqual(['a:1->11']);
    expect(errors.map((e) => [e.phase, e.willRelist, e.resourceVersion])).toEqual([
      ['watch', true, '11'],
    ]);
  });

  it('releases the watch when the informer stops', async () => {
    const { watch, stop } = await started();
    await stop();
    expect(watch.returned).toBe(true);
  });
});
