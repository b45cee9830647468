// Ports the intent of rancher/lasso pkg/controller/sharedcontroller.go and transaction.go: the deferred
// controller, start errors, replay on late registration, and transactions.
import { metaNamespaceIndexFunc } from '@lasso/cache';
import type { Client, KubeObject } from '@lasso/client';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createRecorder } from './__fixtures__/recorder.ts';
import { configMap, createTestInformer } from './__fixtures__/test-informer.ts';
import { createController } from './controller.ts';
import { createHandlerTransaction } from './handler-transaction.ts';
import { predicate, resourceVersionChangedPredicate } from './predicates.ts';
import { ControllerInitError, createSharedController } from './shared-controller.ts';

const stops: AbortController[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop.abort();
});

let nextName = 0;
const fakeClient = { kind: 'ConfigMap' } as unknown as Client<KubeObject>;

function setup(options: { fail?: unknown } = {}) {
  const clock = new FakeClock();
  const logger = createTestLogger();
  const informer = createTestInformer();
  let builds = 0;
  const shared = createSharedController<KubeObject>({
    name: 'v1, Resource=configmaps',
    client: fakeClient,
    clock,
    logger,
    createController: (handler) => {
      builds++;
      if (options.fail !== undefined) throw options.fail;
      return createController('v1, Kind=ConfigMap', informer, () => {}, handler, { clock, logger });
    },
  });
  const stop = new AbortController();
  stops.push(stop);
  return {
    clock,
    logger,
    informer,
    shared,
    stop,
    signal: stop.signal,
    builds: () => builds,
    settle: () => clock.advance(0),
  };
}

describe('createSharedController', () => {
  it('builds nothing for client(), and nothing is started for a controller nobody used', async () => {
    const t = setup();
    expect(t.shared.client()).toBe(fakeClient);
    await t.shared.start(t.signal, 1);
    expect(t.builds()).toBe(0);
    expect(t.informer.handlerCount()).toBe(0);
    expect(t.shared.isRunning()).toBe(false);
  });

  it.for([
    {
      name: 'registerHandler',
      use: (s: ReturnType<typeof setup>) =>
        s.shared.registerHandler(s.signal, `h${nextName++}`, () => {}),
    },
    { name: 'enqueue', use: (s: ReturnType<typeof setup>) => s.shared.enqueue('ns', 'a') },
    {
      name: 'enqueueAfter',
      use: (s: ReturnType<typeof setup>) => s.shared.enqueueAfter('ns', 'a', 5),
    },
    { name: 'enqueueKey', use: (s: ReturnType<typeof setup>) => s.shared.enqueueKey('ns/a') },
    { name: 'informer', use: (s: ReturnType<typeof setup>) => void s.shared.informer() },
  ])('builds the controller once, on the first $name', ({ use }) => {
    const t = setup();
    use(t);
    use(t);
    t.shared.enqueueKey('ns/b');
    expect(t.builds()).toBe(1);
    expect(t.informer.handlerCount()).toBe(1);
  });

  it('builds nothing for a registration whose signal (or transaction signal) already aborted', async () => {
    const t = setup();
    const gone = new AbortController();
    gone.abort();
    t.shared.registerHandler(gone.signal, 'never', () => {});
    t.shared.registerHandler(createHandlerTransaction(gone.signal), 'never-either', () => {});
    await t.shared.start(t.signal, 1);
    expect(t.builds()).toBe(0);
    expect(t.informer.handlerCount()).toBe(0);
  });

  it('runs registered handlers in order on every key', async () => {
    const t = setup();
    const first = createRecorder();
    const second = createRecorder();
    t.shared.registerHandler(t.signal, 'first', (key, object) => first.handler(key, object));
    t.shared.registerHandler(t.signal, 'second', (key, object) => second.handler(key, object));
    t.informer.add(configMap('a'));
    t.informer.sync();
    await t.shared.start(t.signal, 2);
    await second.until((calls) => calls.length === 1);
    expect(first.keys()).toEqual(['ns/a']);
  });

  it('replays every cached key, without rate limiting, to a handler registered after the cache synced', async () => {
    const t = setup();
    const early = createRecorder();
    t.shared.registerHandler(t.signal, 'early', (key, object) => early.handler(key, object));
    t.informer.add(configMap('a'));
    t.informer.add(configMap('b'));
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    await early.until((calls) => calls.length === 2);
    const late = createRecorder();
    t.shared.registerHandler(t.signal, 'late', (key, object) => late.handler(key, object));
    await late.until((calls) => calls.length === 2);
    expect(late.keys().sort()).toEqual(['ns/a', 'ns/b']);
  });

  it('makes start reject with the construction error, logs it, and turns enqueues into no-ops', async () => {
    const t = setup({ fail: new Error('the server could not find the requested resource') });
    t.shared.enqueue('ns', 'a');
    t.shared.registerHandler(t.signal, 'h', () => {});
    const error = await t.shared.start(t.signal, 1).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ControllerInitError);
    expect((error as Error).message).toBe(
      'controller v1, Resource=configmaps: the server could not find the requested resource',
    );
    expect(t.shared.startError()).toBe(error);
    expect(() => t.shared.informer()).toThrow(ControllerInitError);
    expect(t.logger.entries.some((entry) => entry.level === 'warn')).toBe(true);
  });

  it('unregisters a handler when its signal aborts', async () => {
    const t = setup();
    const scoped = new AbortController();
    const recorder = createRecorder();
    t.shared.registerHandler(scoped.signal, 'scoped', (key, object) =>
      recorder.handler(key, object),
    );
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    t.shared.enqueueKey('ns/a');
    await recorder.until((calls) => calls.length === 1);
    scoped.abort();
    t.shared.enqueueKey('ns/b');
    await t.settle();
    expect(recorder.keys()).toEqual(['ns/a']);
  });

  it('throws a RangeError for an empty handler name', () => {
    const t = setup();
    expect(() => t.shared.registerHandler(t.signal, '', () => {})).toThrow(RangeError);
    expect(() => t.shared.registerHandler(t.signal, '', () => {})).toThrow(
      /name must not be empty/,
    );
  });

  it('throws a RangeError for an empty controller name', () => {
    expect(() =>
      createSharedController({
        name: '',
        client: fakeClient,
        createController: () => ({}) as never,
      }),
    ).toThrow(RangeError);
  });

  it.for([
    {
      name: 'a non-function handler',
      call: (t: ReturnType<typeof setup>) => t.shared.registerHandler(t.signal, 'h', null as never),
    },
    {
      name: 'a missing signal',
      call: (t: ReturnType<typeof setup>) => t.shared.registerHandler({} as never, 'h', () => {}),
    },
  ])('throws a TypeError for $name', ({ call }) => {
    expect(() => call(setup())).toThrow(TypeError);
  });

  it('accepts a handler name registered twice, runs both and warns once', async () => {
    const t = setup();
    const ran: string[] = [];
    t.shared.registerHandler(t.signal, 'h', () => void ran.push('first'));
    t.shared.registerHandler(t.signal, 'h', () => void ran.push('second'));
    const warnings = t.logger.entries.filter((entry) => entry.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(/already registered; both run/);
    expect(warnings[0]?.attributes).toMatchObject({ handler: 'h' });
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    t.shared.enqueueKey('ns/a');
    await t.settle();
    expect(ran).toEqual(['first', 'second']);
  });
});

describe('createSharedController: predicates', () => {
  const labelled = (name: string, app: string, resourceVersion = '1') => {
    const object = configMap(name, { resourceVersion });
    return { ...object, metadata: { ...object.metadata, labels: { app } } };
  };
  const webOnly = predicate<KubeObject>(({ object }) => object.metadata?.labels?.app === 'web');

  it('filters informer events before they are enqueued, never enqueueKey', async () => {
    const t = setup();
    const seen: string[] = [];
    t.shared.registerHandler(t.signal, 'web', (key) => void seen.push(key), {
      predicates: [webOnly],
    });
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    t.informer.add(labelled('web-1', 'web'));
    t.informer.add(labelled('db-1', 'db'));
    t.shared.enqueueKey('ns/db-1');
    await t.settle();
    expect(seen).toEqual(['ns/web-1', 'ns/db-1']);
    // A resync (same resourceVersion) passes webOnly but not resourceVersionChangedPredicate.
    const strict = setup();
    const strictSeen: string[] = [];
    strict.shared.registerHandler(strict.signal, 'strict', (key) => void strictSeen.push(key), {
      predicates: [webOnly, resourceVersionChangedPredicate],
    });
    strict.informer.sync();
    await strict.shared.start(strict.signal, 1);
    strict.informer.add(labelled('web-1', 'web'));
    await strict.settle();
    strict.informer.update(labelled('web-1', 'web'));
    strict.informer.update(labelled('web-1', 'web', '2'));
    await strict.settle();
    expect(strictSeen).toEqual(['ns/web-1', 'ns/web-1']);
  });

  it('enqueues an event when one handler accepts it, and then runs every handler', async () => {
    const t = setup();
    const ran: string[] = [];
    t.shared.registerHandler(t.signal, 'web', (key) => void ran.push(`web ${key}`), {
      predicates: [webOnly],
    });
    const db = new AbortController();
    t.shared.registerHandler(db.signal, 'db', (key) => void ran.push(`db ${key}`), {
      predicates: [predicate(({ object }) => object.metadata?.labels?.app === 'db')],
    });
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    t.informer.add(labelled('web-1', 'web'));
    t.informer.add(labelled('cache-1', 'cache'));
    t.informer.add(labelled('db-1', 'db'));
    await t.settle();
    expect(ran).toEqual(['web ns/web-1', 'db ns/web-1', 'web ns/db-1', 'db ns/db-1']);
    // Once the db handler is gone, its predicate no longer lets db events in.
    db.abort();
    ran.length = 0;
    t.informer.add(labelled('db-2', 'db'));
    await t.settle();
    expect(ran).toEqual([]);
  });

  it('hands predicates each event with its type, old object and delete state', async () => {
    const t = setup();
    const events: string[] = [];
    const record = predicate<KubeObject>((event) => {
      const version = (object: KubeObject) => object.metadata?.resourceVersion;
      if (event.type === 'update') {
        events.push(`update ${version(event.oldObject)}->${version(event.object)}`);
      } else if (event.type === 'delete') {
        events.push(`delete ${version(event.object)} unknown=${event.finalStateUnknown}`);
      } else {
        events.push(`create ${version(event.object)}`);
      }
      return true;
    });
    t.shared.registerHandler(t.signal, 'h', () => {}, { predicates: [record] });
    t.informer.add(configMap('a', { resourceVersion: '1' }));
    t.informer.update(configMap('a', { resourceVersion: '2' }));
    t.informer.delete(configMap('a', { resourceVersion: '2' }));
    t.informer.add(configMap('b', { resourceVersion: '3' }));
    t.informer.delete(configMap('b', { resourceVersion: '3' }), { tombstone: true });
    expect(events).toEqual([
      'create 1',
      'update 1->2',
      'delete 2 unknown=false',
      'create 3',
      'delete 3 unknown=true',
    ]);
  });

  it('lets every event in while one handler has no predicates', async () => {
    const t = setup();
    const ran: string[] = [];
    t.shared.registerHandler(t.signal, 'web', (key) => void ran.push(`web ${key}`), {
      predicates: [webOnly],
    });
    t.shared.registerHandler(t.signal, 'all', (key) => void ran.push(`all ${key}`));
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    t.informer.add(labelled('db-1', 'db'));
    await t.settle();
    expect(ran).toEqual(['web ns/db-1', 'all ns/db-1']);
  });

  it('filters again once the last handler without predicates is gone, and not before one joins', async () => {
    const t = setup();
    const ran: string[] = [];
    t.shared.registerHandler(t.signal, 'web', (key) => void ran.push(`web ${key}`), {
      predicates: [webOnly],
    });
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    t.informer.add(labelled('db-1', 'db'));
    await t.settle();
    expect(ran).toEqual([]);
    const all = new AbortController();
    t.shared.registerHandler(all.signal, 'all', (key) => void ran.push(`all ${key}`));
    await t.settle();
    ran.length = 0; // the replay of the cached keys to the late handler
    t.informer.add(labelled('db-2', 'db'));
    await t.settle();
    expect(ran).toEqual(['web ns/db-2', 'all ns/db-2']);
    all.abort();
    ran.length = 0;
    t.informer.add(labelled('db-3', 'db'));
    t.informer.add(labelled('web-1', 'web'));
    await t.settle();
    expect(ran).toEqual(['web ns/web-1']);
  });

  it('lets an event in when a predicate throws, and warns', async () => {
    const t = setup();
    const ran: string[] = [];
    const broken = predicate<KubeObject>(() => {
      throw new Error('bad predicate');
    }, 'broken');
    t.shared.registerHandler(t.signal, 'h', (key) => void ran.push(key), { predicates: [broken] });
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    t.informer.add(configMap('a'));
    await t.settle();
    expect(ran).toEqual(['ns/a']);
    expect(t.logger.entries.find((entry) => entry.level === 'warn')?.attributes).toMatchObject({
      handler: 'h',
      predicate: 'broken',
      error: 'bad predicate',
    });
  });
});

describe('createSharedController: context and lister', () => {
  it('passes the reconcile context to every handler', async () => {
    const t = setup();
    const signals: AbortSignal[] = [];
    t.shared.registerHandler(
      t.signal,
      'a',
      (_key, _object, { signal }) => void signals.push(signal),
    );
    t.shared.registerHandler(t.signal, 'b', (_key, _object, context) => {
      signals.push(context.signal);
      expect(context.key).toBe('ns/a');
    });
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    t.shared.enqueueKey('ns/a');
    await t.settle();
    expect(signals).toHaveLength(2);
    expect(signals[0]).toBe(signals[1]);
  });

  it('reads the cache by namespace and name, namespace and labels, and index', () => {
    const t = setup();
    const object = (name: string, namespace: string, app: string) => {
      const base = configMap(name, { namespace });
      return { ...base, metadata: { ...base.metadata, labels: { app } } };
    };
    t.informer.add(object('web', 'a', 'web'));
    t.informer.add(object('db', 'a', 'db'));
    t.informer.add(object('web', 'b', 'web'));
    const names = (objects: KubeObject[]) =>
      objects.map((item) => `${item.metadata?.namespace}/${item.metadata?.name}`).sort();
    expect(t.shared.get('a', 'web')?.metadata?.labels).toEqual({ app: 'web' });
    expect(t.shared.get('a', 'missing')).toBeUndefined();
    expect(names(t.shared.list())).toEqual(['a/db', 'a/web', 'b/web']);
    expect(names(t.shared.list('a'))).toEqual(['a/db', 'a/web']);
    expect(names(t.shared.list(undefined, 'app=web'))).toEqual(['a/web', 'b/web']);
    expect(names(t.shared.list('', { matchLabels: { app: 'db' } }))).toEqual(['a/db']);
    // With the namespace index (what createCache adds for a namespaced kind) the same answers.
    t.informer.addIndexers({ namespace: metaNamespaceIndexFunc as never });
    expect(names(t.shared.list('a', 'app in (web,db)'))).toEqual(['a/db', 'a/web']);
    t.informer.addIndexers({ app: (item) => [item.metadata?.labels?.app ?? ''] });
    expect(names(t.shared.byIndex('app', 'web'))).toEqual(['a/web', 'b/web']);
    expect(() => t.shared.byIndex('nope', 'x')).toThrow();
    expect(() => t.shared.list('a', 'app ~ web')).toThrow(RangeError);
    expect(t.builds()).toBe(1);
  });

  it('gets a cluster-scoped object by name with namespace ""', () => {
    const t = setup();
    const base = configMap('node-1');
    const { namespace: _namespace, ...metadata } = base.metadata ?? {};
    t.informer.add({ ...base, metadata });
    expect(t.shared.get('', 'node-1')?.metadata?.name).toBe('node-1');
  });

  it('throws the construction error from a read', () => {
    const t = setup({ fail: new Error('no such kind') });
    expect(() => t.shared.get('a', 'b')).toThrow(ControllerInitError);
    expect(() => t.shared.list()).toThrow(/no such kind/);
  });

  it('builds nothing once closed: registrations and enqueues are no-ops, start rejects', async () => {
    const t = setup();
    await t.shared.close();
    t.shared.registerHandler(t.signal, 'late', () => {});
    t.shared.enqueueKey('ns/a');
    expect(t.builds()).toBe(0);
    await expect(t.shared.start(t.signal, 1)).rejects.toThrow(/is closed/);
    expect(t.logger.entries.filter((entry) => entry.level === 'warn')).toEqual([]);
  });

  it('closes the controller it built; stopped() is drained', async () => {
    const t = setup();
    t.shared.registerHandler(t.signal, 'h', () => {});
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    await t.shared.close();
    expect(t.shared.isRunning()).toBe(false);
    await expect(t.shared.stopped()).resolves.toEqual({ drained: true, pending: [] });
    await expect(t.shared.start(t.signal, 1)).rejects.toThrow(/closed/);
  });
});

describe('createHandlerTransaction', () => {
  it('applies held registrations on commit, in order', async () => {
    const t = setup();
    const transaction = createHandlerTransaction(t.signal);
    const order: string[] = [];
    t.shared.registerHandler(transaction, 'one', () => void order.push('one'));
    t.shared.registerHandler(transaction, 'two', () => void order.push('two'));
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    t.shared.enqueueKey('ns/a');
    await t.settle();
    expect(order).toEqual([]);
    transaction.commit();
    t.shared.enqueueKey('ns/b');
    await t.settle();
    expect(order).toEqual(['one', 'two']);
    // After commit, registrations under it apply at once.
    t.shared.registerHandler(transaction, 'three', () => void order.push('three'));
    t.shared.enqueueKey('ns/c');
    await t.settle();
    expect(order).toEqual(['one', 'two', 'one', 'two', 'three']);
  });

  it('drops held registrations on rollback', async () => {
    const t = setup();
    const transaction = createHandlerTransaction(t.signal);
    const ran: string[] = [];
    t.shared.registerHandler(transaction, 'dropped', () => void ran.push('dropped'));
    transaction.rollback();
    t.shared.registerHandler(transaction, 'after', () => void ran.push('after'));
    transaction.commit();
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    t.shared.enqueueKey('ns/a');
    await t.settle();
    expect(ran).toEqual([]);
  });

  it('unregisters committed handlers when the transaction signal aborts', async () => {
    const t = setup();
    const scope = new AbortController();
    const transaction = createHandlerTransaction(scope.signal);
    const ran: string[] = [];
    t.shared.registerHandler(transaction, 'h', () => void ran.push('h'));
    transaction.commit();
    scope.abort();
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    t.shared.enqueueKey('ns/a');
    await t.settle();
    expect(ran).toEqual([]);
  });

  it('applies every held registration on commit even when one throws, then rethrows the first error', async () => {
    const t = setup();
    const transaction = createHandlerTransaction(t.signal);
    const ran: string[] = [];
    t.shared.registerHandler(t.signal, 'taken', () => void ran.push('taken'));
    // The predicates are checked when the registration applies, at commit.
    t.shared.registerHandler(transaction, 'broken', () => void ran.push('broken'), {
      predicates: [42 as never],
    });
    t.shared.registerHandler(transaction, 'free', () => void ran.push('free'));
    expect(() => transaction.commit()).toThrow(TypeError);
    expect(t.builds()).toBe(1);
    t.informer.sync();
    await t.shared.start(t.signal, 1);
    t.shared.enqueueKey('ns/a');
    await t.settle();
    // The registration after the failing one took effect; the broken one did not.
    expect(ran).toEqual(['taken', 'free']);
  });

  it('refuses a missing signal', () => {
    expect(() => createHandlerTransaction(undefined as never)).toThrow(TypeError);
  });
});
