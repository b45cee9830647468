import type { SharedControllerFactory } from '@lasso/factory';
import { describe, expect, it } from 'vitest';
import { createDynamicController } from './dynamic-controller.ts';

// Enough of a factory for construction (nothing runs).
const factory = {
  sharedCacheFactory: () => ({
    sharedClientFactory: () => ({ transport: {} }),
  }),
} as unknown as SharedControllerFactory;
const discovery = {
  discover: async () => ({ groups: [], resources: [], failed: new Map() }),
  invalidate() {},
};

describe('createDynamicController options', () => {
  it.for([
    ['debounceMs', { debounceMs: -1 }, RangeError],
    ['workers', { workers: 0 }, RangeError],
    ['workers', { workers: 1.5 }, RangeError],
    ['gracefulShutdownTimeoutMs', { gracefulShutdownTimeoutMs: Number.NaN }, RangeError],
    ['refreshRetry.initialMs', { refreshRetry: { initialMs: 0 } }, RangeError],
    ['syncTimeoutMs', { syncTimeoutMs: 0 }, RangeError],
    ['syncTimeoutMs', { syncTimeoutMs: Number.NaN }, RangeError],
    ['rateLimiter', { rateLimiter: 5 }, TypeError],
    ['discovery', { discovery: {} }, TypeError],
  ] as const)('names %s when it is bad', ([name, options, type]) => {
    expect(() => createDynamicController(factory, { discovery, ...options } as never)).toThrow(
      expect.objectContaining({ constructor: type, message: expect.stringContaining(name) }),
    );
  });

  it('rejects something that is not a factory', () => {
    expect(() => createDynamicController({} as SharedControllerFactory)).toThrow(TypeError);
  });

  it('checks onChange arguments and ignores a registration whose signal already aborted', () => {
    const dynamic = createDynamicController(factory, { discovery });
    const signal = new AbortController().signal;
    const handler = () => {};
    expect(() => dynamic.onChange(signal, '', () => true, handler)).toThrow(/name/);
    expect(() => dynamic.onChange(signal, 'x', {} as never, handler)).toThrow(/matcher/);
    expect(() => dynamic.onChange(signal, 'x', () => true, 1 as never)).toThrow(/handler/);
    expect(() => dynamic.onChange({} as AbortSignal, 'x', () => true, handler)).toThrow(/signal/);
    expect(() => dynamic.onChange(AbortSignal.abort(), 'x', () => true, handler)).not.toThrow();
  });

  it('refuses on-demand reads while not running, and a start after close', async () => {
    const dynamic = createDynamicController(factory, { discovery });
    const gvk = { group: '', version: 'v1', kind: 'ConfigMap' };
    await expect(dynamic.list(gvk)).rejects.toMatchObject({ code: 'LASSO_DYNAMIC_NOT_RUNNING' });
    expect(dynamic.isRunning()).toBe(false);
    expect(await dynamic.stopped()).toEqual({ drained: true, pending: [] });
    await dynamic.close();
    await expect(dynamic.start(new AbortController().signal)).rejects.toMatchObject({
      code: 'LASSO_DYNAMIC_CLOSED',
    });
    await expect(dynamic.enqueueAfter(gvk, 'ns', 'a', Number.NaN)).rejects.toThrow(RangeError);
  });
});
