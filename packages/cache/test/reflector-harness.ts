// Shared setup of the reflector's unit tests (reflector.test.ts, list-strategy.test.ts): a Reflector over a
// FakeListerWatcher, driven by a FakeClock, with a test logger and metrics. Not exported, not shipped (the package's
// `files` and build take `src` only).
import type { KubeObject } from '@lasso/client';
import { createTestLogger, createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import type { WatchError } from '../src/errors.ts';
import { Reflector, type ReflectorOptions } from '../src/reflector.ts';
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
  const controller = new AbortController();
  const running = reflector.run({ signal: controller.signal });
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
    stop: async () => {
      controller.abort();
      await running;
    },
  };
}
