// Shared setup of the reflector's unit tests (reflector.test.ts, list-strategy.test.ts, cache.test.ts): a Reflector
// over a FakeListerWatcher, driven by a FakeClock, with a test logger and metrics, and a run stopped on demand. Not
// exported, not shipped (the package's `files` and build take `src` only).
import type { KubeObject } from '@lasso/client';
import { createTestLogger, createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import type { WatchError } from '../src/errors.ts';
import { Reflector } from '../src/reflector.ts';
import type { ReflectorOptions } from '../src/reflector-options.ts';
import { createStore } from '../src/store.ts';
import {
  FakeListerWatcher,
  type FakeListerWatcherOptions,
} from '../src/testing/fake-lister-watcher.ts';

/**
 * Starts a reflector named `test` (random 0, every watch error recorded) over a fake serving `objects`;
 * `prepare` sees the fake before the run starts. `stop()` aborts the run and awaits it.
 */
export function runReflector(
  objects: KubeObject[],
  options: ReflectorOptions = {},
  fakeOptions: FakeListerWatcherOptions<KubeObject> = {},
  prepare: (fake: FakeListerWatcher) => void = () => {},
) {
  const clock = new FakeClock();
  const fake = new FakeListerWatcher({ objects, ...fakeOptions });
  prepare(fake);
  const store = createStore();
  const logger = createTestLogger();
  const metrics = createTestMetricsProvider();
  const errors: WatchError[] = [];
  const reflector = new Reflector(fake, store, {
    name: 'test',
    clock,
    logger,
    metrics,
    random: () => 0,
    watchErrorHandler: (error) => errors.push(error),
    ...options,
  });
  const stop = startRun(reflector);
  return {
    clock,
    fake,
    store,
    logger,
    metrics,
    errors,
    reflector,
    /** The value of the counter `name` of this reflector. */
    counter: (name: string) => metrics.value(name, { name: 'test' }),
    settle: () => clock.advance(0),
    stop,
  };
}

/** Runs `runnable` (a reflector) until the returned function aborts it; that one awaits its end. */
export function startRun(runnable: {
  run(options: { signal: AbortSignal }): Promise<void>;
}): () => Promise<void> {
  const controller = new AbortController();
  const running = runnable.run({ signal: controller.signal });
  return async () => {
    controller.abort();
    await running;
  };
}
