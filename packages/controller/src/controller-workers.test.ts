// The worker count as a controller option: `start(signal)` (lasso's `start(signal, workers)` with the count
// omitted) runs the `workers` option's count, default 1; a count passed to start wins.
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { createTestInformer } from './__fixtures__/test-informer.ts';
import { createController } from './controller.ts';
import type { ControllerOptions } from './controller-types.ts';

async function startedWorkers(options: ControllerOptions, workers?: number): Promise<unknown> {
  const logger = createTestLogger();
  const informer = createTestInformer();
  informer.sync();
  const controller = createController(
    'v1, Kind=ConfigMap',
    informer,
    () => {},
    () => {},
    {
      clock: new FakeClock(),
      logger,
      ...options,
    },
  );
  const stop = new AbortController();
  try {
    await controller.start(stop.signal, workers);
    expect(controller.isRunning()).toBe(true);
    return logger.find('controller started')[0]?.attributes.workers;
  } finally {
    stop.abort();
    await controller.close();
  }
}

describe('controller workers option', () => {
  it('start(signal) runs one worker by default', async () => {
    expect(await startedWorkers({})).toBe(1);
  });

  it('start(signal) runs the workers option', async () => {
    expect(await startedWorkers({ workers: 4 })).toBe(4);
  });

  it('a count passed to start wins over the option', async () => {
    expect(await startedWorkers({ workers: 4 }, 2)).toBe(2);
  });

  it.each([0, 1.5, Number.NaN, -1])('rejects workers: %s naming the option', (workers) => {
    const informer = createTestInformer();
    expect(() =>
      createController(
        'v1, Kind=ConfigMap',
        informer,
        () => {},
        () => {},
        { workers },
      ),
    ).toThrow(/workers must be an integer >= 1/);
    expect(() =>
      createController(
        'v1, Kind=ConfigMap',
        informer,
        () => {},
        () => {},
        { workers },
      ),
    ).toThrow(RangeError);
  });
});
