// Ports the intent of rancher/lasso pkg/controller/sharedhandler_test.go: order, object hand-over, error
// aggregation, ErrIgnore, unregistration on abort and the recent-deletion guard.
import type { KubeObject } from '@lasso/client';
import { createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { revokedProxy, throwingGetter } from './__fixtures__/hostile.ts';
import { configMap } from './__fixtures__/test-informer.ts';
import { ErrIgnore, HandlerError, RetryAfterError } from './errors.ts';
import { createSharedHandler, recentDeletionMemoryMs } from './shared-handler.ts';

function setup() {
  const clock = new FakeClock();
  const metrics = createTestMetricsProvider();
  const shared = createSharedHandler<KubeObject>({
    controllerName: 'v1, Resource=configmaps',
    clock,
    metrics,
  });
  const stop = new AbortController();
  return { clock, metrics, shared, signal: stop.signal, stop };
}

function finalized(name: string): KubeObject {
  const object = configMap(name);
  return {
    ...object,
    metadata: { ...object.metadata, deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: [] },
  };
}

describe('createSharedHandler', () => {
  it('runs handlers in registration order, passing on each returned object that has a uid', async () => {
    const t = setup();
    const seen: string[] = [];
    t.shared.register(t.signal, 'first', (_key, object) => {
      seen.push(`first:${(object?.data as { step?: string } | undefined)?.step}`);
      return configMap('a', { data: { step: '2' } });
    });
    t.shared.register(t.signal, 'second', (_key, object) => {
      seen.push(`second:${(object?.data as { step?: string } | undefined)?.step}`);
      // No uid: not passed on.
      return { metadata: { name: 'a' }, data: { step: 'ignored' } };
    });
    t.shared.register(t.signal, 'third', async (_key, object) => {
      seen.push(`third:${(object?.data as { step?: string } | undefined)?.step}`);
    });
    await t.shared.onChange('ns/a', configMap('a', { data: { step: '1' } }));
    expect(seen).toEqual(['first:1', 'second:2', 'third:2']);
    expect(t.shared.names()).toEqual(['first', 'second', 'third']);
  });

  it('runs the remaining handlers after one fails and aggregates the failures in order', async () => {
    const t = setup();
    const ran: string[] = [];
    t.shared.register(t.signal, 'a', () => {
      ran.push('a');
      throw new Error('first failure');
    });
    t.shared.register(t.signal, 'b', () => {
      ran.push('b');
    });
    t.shared.register(t.signal, 'c', async () => {
      ran.push('c');
      throw 'second failure';
    });
    const error = await t.shared
      .onChange('ns/x', configMap('x'))
      .catch((caught: unknown) => caught);
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(error).toBeInstanceOf(HandlerError);
    expect((error as HandlerError).message).toBe(
      'handler a: first failure, handler c: second failure',
    );
    expect((error as HandlerError).failures.map((failure) => failure.handler)).toEqual(['a', 'c']);
    expect((error as HandlerError).code).toBe('LASSO_HANDLER_FAILED');
  });

  it('runs the remaining handlers after one throws a revoked Proxy, and reports it as a failure', async () => {
    const t = setup();
    const ran: string[] = [];
    t.shared.register(t.signal, 'hostile', () => {
      ran.push('hostile');
      throw revokedProxy();
    });
    t.shared.register(t.signal, 'next', () => {
      ran.push('next');
    });
    const error = await t.shared
      .onChange('ns/x', configMap('x'))
      .catch((caught: unknown) => caught);
    expect(ran).toEqual(['hostile', 'next']);
    expect(error).toBeInstanceOf(HandlerError);
    expect((error as HandlerError).failures.map((failure) => failure.handler)).toEqual(['hostile']);
    expect((error as HandlerError).message).toMatch(/^handler hostile: /);
  });

  it('fails a handler whose returned value cannot be read, and still runs the next one', async () => {
    const t = setup();
    const ran: string[] = [];
    t.shared.register(t.signal, 'revoked', () => {
      ran.push('revoked');
      return revokedProxy() as never;
    });
    t.shared.register(t.signal, 'getter', () => {
      ran.push('getter');
      return throwingGetter('metadata') as never;
    });
    t.shared.register(t.signal, 'next', (_key, object) => {
      ran.push(`next ${object?.metadata?.name}`);
    });
    const error = await t.shared
      .onChange('ns/x', configMap('x'))
      .catch((caught: unknown) => caught);
    expect(ran).toEqual(['revoked', 'getter', 'next x']);
    expect((error as HandlerError).failures.map((failure) => failure.handler)).toEqual([
      'revoked',
      'getter',
    ]);
  });

  it('passes returned objects along sync and async handlers alike, in order', async () => {
    const t = setup();
    const seen: string[] = [];
    const step = (name: string, from: string) => (_key: string, object: KubeObject | undefined) => {
      seen.push(`${name} got ${object?.metadata?.name}`);
      return configMap(from);
    };
    t.shared.register(t.signal, 'sync-1', step('sync-1', 'one'));
    t.shared.register(t.signal, 'async-2', async (key, object) =>
      step('async-2', 'two')(key, object),
    );
    t.shared.register(t.signal, 'sync-3', step('sync-3', 'three'));
    t.shared.register(t.signal, 'last', (_key, object) => {
      seen.push(`last got ${object?.metadata?.name}`);
    });
    await t.shared.onChange('ns/x', configMap('x'));
    expect(seen).toEqual(['sync-1 got x', 'async-2 got one', 'sync-3 got two', 'last got three']);
  });

  it('does not count ErrIgnore (or errors caused by it) as a failure', async () => {
    const t = setup();
    t.shared.register(t.signal, 'a', () => {
      throw ErrIgnore;
    });
    t.shared.register(t.signal, 'b', () => {
      throw new Error('wrapped', { cause: ErrIgnore });
    });
    await expect(t.shared.onChange('ns/x', configMap('x'))).resolves.toBeUndefined();
    const labels = {
      controller_name: 'v1, Resource=configmaps',
      handler_name: 'a',
      has_error: 'false',
    };
    expect(t.metrics.value('lasso_controller_total_handler_execution', labels)).toBe(1);
  });

  it('counts executions and reconcile time per handler and outcome', async () => {
    const t = setup();
    let fail = true;
    t.shared.register(t.signal, 'h', async () => {
      await t.clock.advance(0);
      if (fail) throw new Error('x');
    });
    await t.shared.onChange('ns/x', configMap('x')).catch(() => {});
    fail = false;
    await t.shared.onChange('ns/x', configMap('x'));
    const base = { controller_name: 'v1, Resource=configmaps', handler_name: 'h' };
    expect(
      t.metrics.value('lasso_controller_total_handler_execution', { ...base, has_error: 'true' }),
    ).toBe(1);
    expect(
      t.metrics.value('lasso_controller_total_handler_execution', { ...base, has_error: 'false' }),
    ).toBe(1);
    expect(
      t.metrics.observations('lasso_controller_reconcile_time_seconds', {
        ...base,
        has_error: 'false',
      }),
    ).toHaveLength(1);
  });

  it('unregisters a handler when its signal aborts, without disturbing a run in progress', async () => {
    const t = setup();
    const scoped = new AbortController();
    const ran: string[] = [];
    t.shared.register(t.signal, 'remover', () => {
      ran.push('remover');
      scoped.abort();
    });
    t.shared.register(scoped.signal, 'scoped', () => {
      ran.push('scoped');
    });
    t.shared.register(t.signal, 'last', () => {
      ran.push('last');
    });
    await t.shared.onChange('ns/x', configMap('x'));
    // Removed mid-run: skipped from then on, and the handler after it still ran.
    expect(ran).toEqual(['remover', 'last']);
    expect(t.shared.names()).toEqual(['remover', 'last']);
    // The name is free again.
    t.shared.register(t.signal, 'scoped', () => {});
  });

  it('registers nothing under an already-aborted signal', async () => {
    const t = setup();
    t.stop.abort();
    t.shared.register(t.signal, 'late', () => {
      throw new Error('must not run');
    });
    expect(t.shared.names()).toEqual([]);
    await t.shared.onChange('ns/x', configMap('x'));
  });

  it.for([
    {
      name: 'a predicate that is not one',
      error: TypeError,
      call: (t: ReturnType<typeof setup>) =>
        t.shared.register(t.signal, 'b', () => {}, { predicates: [() => true] as never }),
    },
    {
      name: 'predicates that are not an array',
      error: TypeError,
      call: (t: ReturnType<typeof setup>) =>
        t.shared.register(t.signal, 'b', () => {}, { predicates: {} as never }),
    },
    {
      name: 'an empty name',
      error: RangeError,
      call: (t: ReturnType<typeof setup>) => t.shared.register(t.signal, '', () => {}),
    },
    {
      name: 'a name that is not a string',
      error: TypeError,
      call: (t: ReturnType<typeof setup>) => t.shared.register(t.signal, 7 as never, () => {}),
    },
    {
      name: 'a non-function handler',
      error: TypeError,
      call: (t: ReturnType<typeof setup>) => t.shared.register(t.signal, 'b', 42 as never),
    },
    {
      name: 'a missing signal',
      error: TypeError,
      call: (t: ReturnType<typeof setup>) => t.shared.register(undefined as never, 'b', () => {}),
    },
  ])('refuses $name', ({ call, error }) => {
    const t = setup();
    t.shared.register(t.signal, 'a', () => {});
    expect(() => call(t)).toThrow(error);
  });

  it('skips a stale copy of a finalized object for a minute, retrying it after 10 s', async () => {
    const t = setup();
    let runs = 0;
    t.shared.register(t.signal, 'finalizer', (_key, object) => {
      runs++;
      // The handler removes the last finalizer and returns what the server answered.
      return object?.metadata?.deletionTimestamp ? finalized('a') : object;
    });
    const deleting = {
      ...configMap('a'),
      metadata: {
        ...configMap('a').metadata,
        deletionTimestamp: '2024-01-01T00:00:00Z',
        finalizers: ['x/y'],
      },
    };
    await t.shared.onChange('ns/a', deleting);
    expect(runs).toBe(1);
    // The informer has not seen the removal yet and hands the old copy again.
    const error = await t.shared.onChange('ns/a', deleting).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RetryAfterError);
    expect((error as RetryAfterError).delayMs).toBe(10_000);
    expect(runs).toBe(1);
    // Another object (another uid) is not affected.
    await t.shared.onChange('ns/b', {
      ...deleting,
      metadata: { ...deleting.metadata, uid: 'other' },
    });
    expect(runs).toBe(2);
    await t.clock.advance(recentDeletionMemoryMs);
    await t.shared.onChange('ns/a', deleting);
    expect(runs).toBe(3);
  });

  it('refuses an empty controller name with a RangeError naming it', () => {
    expect(() => createSharedHandler({ controllerName: '' })).toThrow(RangeError);
    expect(() => createSharedHandler({ controllerName: '' })).toThrow(/controllerName/);
  });
});
