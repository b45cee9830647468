// Watch errors as client-go answers them (reflector.go: isWatchErrorRetriable, handleListWatch): 429 and a refused
// connection resume the watch, every other failure ends the watch session and relists after the backoff; a resource
// that cannot be watched (405, watchable: false) is listed on an interval; a 403 is logged once per outage.
import { ApiError, type KubeObject } from '@lasso/client';
import { LassoError } from '@lasso/core';
import { describe, expect, it } from 'vitest';
import { runReflector } from '../test/reflector-harness.ts';
import { Reflector } from './reflector.ts';
import type { ReflectorOptions } from './reflector-options.ts';
import { createStore } from './store.ts';
import { FakeListerWatcher } from './testing/fake-lister-watcher.ts';
import { isConnectionRefused, watchFailureAction } from './watch-errors.ts';

function cm(name: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name }, data };
}

function setup(
  count = 0,
  options: ReflectorOptions = {},
  prepare: (fake: FakeListerWatcher) => void = () => {},
) {
  const objects = Array.from({ length: count }, (_, i) => cm(`cm-${i}`));
  return runReflector(objects, options, {}, prepare);
}

/** kube-apiserver's 405 for a watch of a resource without the `watch` verb. */
const methodNotAllowed = () =>
  ApiError.fromStatus({
    apiVersion: 'v1',
    kind: 'Status',
    status: 'Failure',
    code: 405,
    reason: 'MethodNotAllowed',
    message: 'the server does not allow this method on the requested resource',
    details: {},
  });

/** kube-apiserver's 403, as the client builds it (the request named in front of the server's message). */
const forbidden = (verb: 'list' | 'watch') =>
  ApiError.fromStatus(
    {
      apiVersion: 'v1',
      kind: 'Status',
      status: 'Failure',
      code: 403,
      reason: 'Forbidden',
      message: `configmaps is forbidden: User "alice" cannot ${verb} resource "configmaps" in API group "" in the namespace "ns"`,
      details: { kind: 'configmaps' },
    },
    403,
    undefined,
    {
      verb,
      resource: 'configmaps',
      group: '',
      namespace: 'ns',
      path: '/api/v1/namespaces/ns/configmaps',
    },
  );

const refused = () =>
  new LassoError(
    'LASSO_CONNECTION_FAILED',
    'watch configmaps: connection failed (ECONNREFUSED): connect ECONNREFUSED 127.0.0.1:6443',
    {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), {
        code: 'ECONNREFUSED',
      }),
    },
  );

describe('watch errors', () => {
  it.for([
    { name: 'a 500', error: () => new ApiError({ status: 500, message: 'etcd is sad' }) },
    { name: 'a 503', error: () => new ApiError({ status: 503 }) },
    { name: 'a 401', error: () => new ApiError({ status: 401 }) },
    { name: 'a 404', error: () => new ApiError({ status: 404 }) },
    {
      name: 'a connection reset before any event',
      error: () =>
        new LassoError(
          'LASSO_CONNECTION_FAILED',
          'watch configmaps: connection failed (ECONNRESET)',
        ),
    },
  ])('relists after the backoff when the watch fails with $name', async ({ error }) => {
    const t = setup(1);
    (await t.fake.nextWatch()).fail(error());
    // A write while the watch is down reaches the store through the relist.
    t.fake.create(cm('b'));
    await t.settle();
    expect(t.reflector.state()).toBe('backoff');
    expect(t.errors[0]).toMatchObject({ phase: 'watch-start', willRelist: true, retryInMs: 800 });
    await t.clock.advance(799);
    expect(t.fake.listCalls).toHaveLength(1);
    await t.clock.advance(1);
    const next = await t.fake.nextWatch();
    expect(t.fake.listCalls.map((call) => call.resourceVersion)).toEqual(['0', '2']);
    expect(t.store.listKeys().sort()).toEqual(['ns/b', 'ns/cm-0']);
    expect(next.options.resourceVersion).toBe('3');
    expect(t.logger.find('watch failed, relisting')).toHaveLength(1);
    await t.stop();
  });

  it.for([
    { name: 'a 429', error: () => new ApiError({ status: 429, message: 'too many requests' }) },
    { name: 'a refused connection', error: refused },
    {
      name: 'a refused connection (a bare Node error)',
      error: () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    },
  ])(
    'retries the watch after the backoff without relisting when it fails with $name',
    async ({ error }) => {
      const t = setup(1);
      for (const delayMs of [800, 1600]) {
        (await t.fake.nextWatch()).fail(error());
        await t.settle();
        expect(t.reflector.state()).toBe('backoff');
        await t.clock.advance(delayMs);
      }
      const resumed = await t.fake.nextWatch();
      expect(resumed.options.resourceVersion).toBe('2');
      expect(t.fake.listCalls).toHaveLength(1);
      expect(t.errors.map((e) => [e.willRelist, e.retryInMs])).toEqual([
        [false, 800],
        [false, 1600],
      ]);
      expect(t.logger.find('watch failed, resuming')).toHaveLength(2);
      await t.stop();
    },
  );

  it('resumes without relisting when an open stream breaks after events (client-go ends it as an EOF)', async () => {
    const t = setup(1);
    const watch = await t.fake.nextWatch();
    t.fake.create(cm('b'));
    await t.settle();
    watch.fail(
      new LassoError('LASSO_CONNECTION_FAILED', 'watch configmaps: connection failed (ECONNRESET)'),
    );
    await t.settle();
    expect(t.errors[0]).toMatchObject({ phase: 'watch', willRelist: false });
    await t.clock.advance(800);
    expect((await t.fake.nextWatch()).options.resourceVersion).toBe('3');
    expect(t.fake.listCalls).toHaveLength(1);
    await t.stop();
  });

  describe('a resource that cannot be watched', () => {
    it('switches to listing every 30 s after a 405, with one log line and a gauge, and keeps the store current', async () => {
      const t = setup(2);
      (await t.fake.nextWatch()).fail(methodNotAllowed());
      await t.settle();
      expect(t.reflector.state()).toBe('polling');
      expect(t.metrics.value('lasso_reflector_polling', { name: 'test' })).toBe(1);
      expect(t.errors[0]).toMatchObject({
        phase: 'watch-start',
        willRelist: true,
        retryInMs: 30_000,
      });
      // Exactly one line says it, at warn: not also a "watch failed" (the other line above it is the fake's refusal
      // of streaming lists).
      const lines = t.logger.entries.filter(
        (entry) => entry.level !== 'debug' && !entry.message.includes('streaming list'),
      );
      expect(lines).toEqual([
        expect.objectContaining({
          level: 'warn',
          message: expect.stringMatching(/does not allow watching.*listing every 30000 ms/),
        }),
      ]);
      // A create, an update and a delete during the interval.
      t.fake.create(cm('new'));
      t.fake.modify(cm('cm-0', { changed: 'yes' }));
      t.fake.remove('ns/cm-1');
      await t.clock.advance(29_999);
      expect(t.fake.listCalls).toHaveLength(1);
      await t.clock.advance(1);
      expect(t.fake.listCalls.map((call) => call.resourceVersion)).toEqual(['0', '']);
      expect(t.store.listKeys().sort()).toEqual(['ns/cm-0', 'ns/new']);
      expect(t.store.getByKey('ns/cm-0')?.data).toEqual({ changed: 'yes' });
      expect(t.reflector.state()).toBe('polling');
      await t.clock.advance(30_000);
      expect(t.fake.listCalls).toHaveLength(3);
      // Never watched again, never said again.
      expect(t.fake.watchCalls).toHaveLength(1);
      expect(t.logger.find('listing every')).toHaveLength(1);
      expect(t.counter('lasso_reflector_relists_total')).toBe(2);
      await t.stop();
      expect(t.clock.pendingTimers()).toBe(0);
    });

    it('never watches nor streams a resource configured with watchable: false, listing every pollIntervalMs', async () => {
      const t = setup(1, { watchable: false, pollIntervalMs: 5_000 });
      await t.settle();
      expect(t.store.size()).toBe(1);
      expect(t.reflector.state()).toBe('polling');
      t.fake.create(cm('b'));
      await t.clock.advance(5_000);
      expect(t.store.size()).toBe(2);
      await t.clock.advance(5_000);
      expect(t.fake.listCalls.map((call) => call.resourceVersion)).toEqual(['', '', '']);
      expect(t.fake.watchCalls).toEqual([]);
      expect(t.fake.streamingCalls).toEqual([]);
      expect(t.metrics.value('lasso_reflector_polling', { name: 'test' })).toBe(1);
      expect(t.logger.find('listing every 5000 ms')).toEqual([
        expect.objectContaining({ level: 'info' }),
      ]);
      await t.stop();
    });

    it("lists on the interval a resource whose list has no resourceVersion (kube-apiserver's componentstatuses)", async () => {
      const t = setup(1, {}, (fake) => {
        const list = fake.list.bind(fake);
        fake.list = async (options) => {
          const page = await list(options);
          return { ...page, metadata: {} };
        };
      });
      await t.settle();
      expect(t.store.size()).toBe(1);
      expect(t.reflector.state()).toBe('polling');
      expect(t.errors).toEqual([]);
      expect(t.logger.find('listing every 30000 ms')).toEqual([
        expect.objectContaining({
          level: 'warn',
          message: expect.stringMatching(/no resourceVersion to watch from/),
        }),
      ]);
      t.fake.create(cm('b'));
      await t.clock.advance(30_000);
      expect(t.store.size()).toBe(2);
      expect(t.fake.watchCalls).toEqual([]);
      await t.stop();
    });

    it('retries a failed poll after the backoff, then polls on the interval again', async () => {
      const t = setup(1, { watchable: false });
      await t.settle();
      t.fake.failNextList(new ApiError({ status: 503 }));
      await t.clock.advance(30_000);
      expect(t.reflector.state()).toBe('backoff');
      expect(t.errors[0]).toMatchObject({ phase: 'list', retryInMs: 800 });
      t.fake.create(cm('b'));
      await t.clock.advance(800);
      expect(t.store.size()).toBe(2);
      expect(t.reflector.state()).toBe('polling');
      await t.clock.advance(29_999);
      expect(t.fake.listCalls).toHaveLength(3);
      await t.clock.advance(1);
      expect(t.fake.listCalls).toHaveLength(4);
      await t.stop();
    });
  });

  describe('403 Forbidden', () => {
    it('relists after the backoff when the watch is forbidden, logging it once per outage with verb, resource and user', async () => {
      const t = setup(1);
      for (const delayMs of [800, 1600, 3200]) {
        (await t.fake.nextWatch()).fail(forbidden('watch'));
        t.fake.create(cm(`during-${delayMs}`));
        await t.settle();
        await t.clock.advance(delayMs);
      }
      const allowed = await t.fake.nextWatch();
      // Every write of the error window reached the store through the relists.
      expect(t.store.size()).toBe(4);
      expect(t.fake.listCalls).toHaveLength(4);
      expect(t.errors.map((e) => [e.phase, e.willRelist, e.retryInMs])).toEqual([
        ['watch-start', true, 800],
        ['watch-start', true, 1600],
        ['watch-start', true, 3200],
      ]);
      const warnings = t.logger.entries.filter((entry) => entry.level === 'warn');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toBe(
        'forbidden: alice may not watch configmaps; retrying with backoff, not saying it again until it succeeds',
      );
      expect(warnings[0]?.attributes).toMatchObject({
        verb: 'watch',
        resource: 'configmaps',
        namespace: 'ns',
        user: 'alice',
      });
      expect(t.counter('lasso_reflector_errors_total')).toBe(3);
      // The watch works again: said once, at info.
      t.fake.create(cm('after'));
      await t.settle();
      expect(t.logger.find('allowed again')).toEqual([
        expect.objectContaining({ level: 'info', message: 'watch allowed again after a 403' }),
      ]);
      // A new outage is said again.
      allowed.fail(forbidden('watch'));
      await t.settle();
      expect(t.logger.find('forbidden:')).toHaveLength(2);
      await t.stop();
    });

    it('logs a forbidden list once per outage and retries it with the backoff', async () => {
      const t = setup(1, {}, (fake) => fake.failNextList(forbidden('list'), 3));
      for (const delayMs of [800, 1600, 3200]) {
        await t.settle();
        expect(t.reflector.state()).toBe('backoff');
        await t.clock.advance(delayMs);
      }
      await t.fake.nextWatch();
      expect(t.store.size()).toBe(1);
      expect(t.logger.find('forbidden:')).toEqual([
        expect.objectContaining({
          level: 'warn',
          attributes: expect.objectContaining({ verb: 'list', user: 'alice' }),
        }),
      ]);
      expect(t.logger.find('still forbidden')).toHaveLength(2);
      expect(t.logger.find('list allowed again')).toHaveLength(1);
      await t.stop();
    });

    it('says who was refused only as the server named it, never from the credentials', async () => {
      const t = setup(1);
      (await t.fake.nextWatch()).fail(
        new ApiError({ status: 403, reason: 'Forbidden', message: 'nope' }),
      );
      await t.settle();
      expect(t.logger.find('forbidden:')[0]?.attributes).toMatchObject({
        user: 'unknown (the server did not name it)',
        resource: 'test',
      });
      await t.stop();
    });
  });

  it('rejects a bad pollIntervalMs and watchable', () => {
    const fake = new FakeListerWatcher();
    expect(() => new Reflector(fake, createStore(), { pollIntervalMs: 0 })).toThrow(RangeError);
    expect(() => new Reflector(fake, createStore(), { pollIntervalMs: 0 })).toThrow(
      /pollIntervalMs/,
    );
    expect(
      () => new Reflector(fake, createStore(), { watchable: 'no' as unknown as boolean }),
    ).toThrow(TypeError);
  });

  it('classifies without throwing on hostile values', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
      },
    );
    expect(isConnectionRefused(hostile)).toBe(false);
    expect(watchFailureAction(hostile, false)).toBe('relist');
    expect(isConnectionRefused(new AggregateError([refused()]))).toBe(true);
    expect(watchFailureAction(new Error('x'), true)).toBe('resume');
  });
});
