// FakeListerWatcher: an in-memory API for one resource, with history, pagination and faults, for reflector tests.
import {
  ApiError,
  type KubeObject,
  type KubeObjectLike,
  type ListOptions,
  type ObjectList,
  type WatchEvent,
  type WatchOptions,
} from '@lasso/client';
import { abortReason } from '@lasso/core';
import type { ListerWatcher } from '../lister-watcher.ts';
import { metaNamespaceKeyFunc } from '../store.ts';

/** One watch opened on a {@link FakeListerWatcher}: push events into it, end it or fail it. */
export class FakeWatch<T extends KubeObjectLike = KubeObject> {
  /** The options the reflector sent. */
  readonly options: WatchOptions;
  #queue: Array<{ event: WatchEvent<T> } | { end: true } | { error: unknown }> = [];
  #wake: (() => void) | undefined;
  #closed = false;

  constructor(options: WatchOptions) {
    this.options = options;
  }

  /** True once the consumer stopped iterating (or the watch ended, failed or was aborted). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Deliver an event (any shape: tests use it for malformed events too). */
  push(event: WatchEvent<T> | { type: string; object: unknown }): void {
    this.#queue.push({ event: event as WatchEvent<T> });
    this.#wake?.();
  }

  /** End the stream normally (a server timeout). */
  end(): void {
    this.#queue.push({ end: true });
    this.#wake?.();
  }

  /** Make the pending or next `next()` throw `error` (an ERROR event, a reset connection...). */
  fail(error: unknown): void {
    this.#queue.push({ error });
    this.#wake?.();
  }

  /** @internal */
  async *iterate(
    signal: AbortSignal | undefined,
    onClose: () => void,
  ): AsyncGenerator<WatchEvent<T>> {
    try {
      for (;;) {
        const item = this.#queue.shift();
        if (item !== undefined) {
          if ('event' in item) yield item.event;
          else if ('end' in item) return;
          else throw item.error;
          continue;
        }
        if (signal?.aborted) throw abortReason(signal);
        await new Promise<void>((resolve) => {
          const onAbort = (): void => resolve();
          this.#wake = () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          };
          signal?.addEventListener('abort', onAbort, { once: true });
        });
        this.#wake = undefined;
      }
    } finally {
      this.#closed = true;
      onClose();
    }
  }
}

/** Options of {@link FakeListerWatcher}. */
export interface FakeListerWatcherOptions<T> {
  /** Objects present at the start (resourceVersions are assigned). */
  objects?: T[] | undefined;
  /**
   * How a watch with `sendInitialEvents` (a streaming list) is answered: `'refuse'` (default) with 422 Invalid, as
   * kube-apiserver before 1.27 or with the `WatchList` feature gate off does; `'serve'` as KEP-3157 says (the
   * objects as ADDED, then with bookmarks the `k8s.io/initial-events-end` bookmark, then changes); `'ignore'` as a
   * server that does not know the option (a plain watch: history replayed, no end bookmark).
   */
  streamingLists?: 'refuse' | 'serve' | 'ignore' | undefined;
  /**
   * Serve lists at resourceVersion `"0"` whole, ignoring `limit`, as kube-apiserver's watch cache does. Default
   * false (every list honours `limit`, as when etcd serves).
   */
  watchCache?: boolean | undefined;
}

/**
 * A {@link ListerWatcher} backed by an in-memory object set with a resourceVersion counter and an event
 * history, so a watch from any retained resourceVersion replays what it missed, as the API server does.
 * Lists honour `limit`/`continue`. Faults: `failNextList`, `failNextWatch`, `expireHistory` (410 for older
 * versions and continue tokens), and per-watch `end`/`fail`/`push` through {@link FakeWatch}.
 *
 * @example
 * ```ts
 * const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });
 * const fake = new FakeListerWatcher({ objects: [configMap('a')] });
 * const informer = createSharedIndexInformer(fake, { clock });
 * await informer.start(signal);
 * const watch = await fake.nextWatch();
 * fake.create(configMap('b')); // delivered to the open watch as ADDED
 * ```
 */
export class FakeListerWatcher<T extends KubeObjectLike = KubeObject> implements ListerWatcher<T> {
  /** Every list call, in order. */
  readonly listCalls: ListOptions[] = [];
  /** Every watch call, in order (recorded when iteration starts, as the real client sends the request). */
  readonly watchCalls: WatchOptions[] = [];
  /** Every watch call with `sendInitialEvents` (a streaming list), refused or not, in order. */
  readonly streamingCalls: WatchOptions[] = [];
  readonly #streamingLists: 'refuse' | 'serve' | 'ignore';
  readonly #watchCache: boolean;
  #resourceVersion = 1;
  #expiredBefore = 0;
  readonly #objects = new Map<string, T>();
  #history: Array<{ resourceVersion: number; event: WatchEvent<T> }> = [];
  readonly #listFaults: unknown[] = [];
  readonly #watchFaults: unknown[] = [];
  readonly #open = new Set<FakeWatch<T>>();
  #watchWaiters: Array<(watch: FakeWatch<T>) => void> = [];
  #unclaimed: FakeWatch<T>[] = [];

  constructor(options: FakeListerWatcherOptions<T> = {}) {
    this.#streamingLists = options.streamingLists ?? 'refuse';
    this.#watchCache = options.watchCache ?? false;
    for (const object of options.objects ?? []) this.create(object);
  }

  /** The current resourceVersion. */
  resourceVersion(): string {
    return String(this.#resourceVersion);
  }

  /** Current objects (copies). */
  objects(): T[] {
    return [...this.#objects.values()].map((object) => structuredClone(object));
  }

  /** Store a new object and send ADDED to open watches; returns the stored copy. */
  create(object: T): T {
    return this.#write('ADDED', object);
  }

  /** Replace an object and send MODIFIED. */
  modify(object: T): T {
    return this.#write('MODIFIED', object);
  }

  /** Delete an object (by object or key) and send DELETED with its last state. */
  remove(objectOrKey: T | string): void {
    const key = metaNamespaceKeyFunc(objectOrKey);
    const existing = this.#objects.get(key);
    if (existing === undefined) throw new RangeError(`FakeListerWatcher.remove: ${key} not found`);
    this.#objects.delete(key);
    const resourceVersion = ++this.#resourceVersion;
    const object = withResourceVersion(existing, resourceVersion);
    this.#record(resourceVersion, { type: 'DELETED', object });
  }

  /** Send a BOOKMARK at the current resourceVersion to every open watch that asked for bookmarks. */
  sendBookmarks(): void {
    for (const watch of this.#open) {
      if (watch.options.allowWatchBookmarks) {
        watch.push({
          type: 'BOOKMARK',
          object: { metadata: { resourceVersion: this.resourceVersion() } } as T,
        });
      }
    }
  }

  /** Forget all history: watches and continue tokens from an older resourceVersion get 410 Expired. */
  expireHistory(): void {
    this.#expiredBefore = this.#resourceVersion;
    this.#history = [];
  }

  /** The next `count` list calls throw `error`. */
  failNextList(error: unknown, count = 1): void {
    for (let i = 0; i < count; i++) this.#listFaults.push(error);
  }

  /** The next `count` watches throw `error` from their first `next()`. */
  failNextWatch(error: unknown, count = 1): void {
    for (let i = 0; i < count; i++) this.#watchFaults.push(error);
  }

  /** Watches currently being iterated. */
  openWatches(): FakeWatch<T>[] {
    return [...this.#open];
  }

  /** End every open watch normally. */
  closeWatches(): void {
    for (const watch of this.#open) watch.end();
  }

  /** Resolves with the next watch the consumer starts iterating (or one started and not yet claimed). */
  nextWatch(): Promise<FakeWatch<T>> {
    const unclaimed = this.#unclaimed.shift();
    if (unclaimed !== undefined) return Promise.resolve(unclaimed);
    return new Promise((resolve) => this.#watchWaiters.push(resolve));
  }

  async list(options: ListOptions): Promise<ObjectList<T>> {
    this.listCalls.push({ ...options });
    if (this.#listFaults.length > 0) throw this.#listFaults.shift();
    let offset = 0;
    let snapshot = this.#resourceVersion;
    if (options.continue) {
      const [version, start] = options.continue.split(':').map(Number) as [number, number];
      if (version < this.#expiredBefore) throw gone('the provided continue parameter is too old');
      snapshot = version;
      offset = start;
    }
    const keys = [...this.#objects.keys()].sort();
    const cached = this.#watchCache && !options.continue && options.resourceVersion === '0';
    const limit = options.limit && options.limit > 0 && !cached ? options.limit : keys.length;
    const page = keys.slice(offset, offset + limit);
    const next = offset + page.length;
    const metadata: ObjectList<T>['metadata'] = { resourceVersion: String(snapshot) };
    if (next < keys.length) {
      metadata.continue = `${snapshot}:${next}`;
      metadata.remainingItemCount = keys.length - next;
    }
    return {
      apiVersion: 'v1',
      kind: 'List',
      metadata,
      items: page.map((key) => structuredClone(this.#objects.get(key) as T)),
    };
  }

  watch(options: WatchOptions): AsyncIterable<WatchEvent<T>> {
    return {
      [Symbol.asyncIterator]: () => this.#startWatch(options)[Symbol.asyncIterator](),
    };
  }

  #startWatch(options: WatchOptions): AsyncGenerator<WatchEvent<T>> {
    const { signal, ...recorded } = options;
    const streaming = options.sendInitialEvents !== undefined;
    if (streaming) {
      this.streamingCalls.push(recorded);
      if (this.#streamingLists === 'refuse') return refuseStreaming();
    }
    this.watchCalls.push(recorded);
    const watch = new FakeWatch<T>(options);
    const fault = this.#watchFaults.shift();
    const from = Number(options.resourceVersion || '0');
    if (fault !== undefined) {
      watch.fail(fault);
    } else if (streaming && this.#streamingLists === 'serve' && options.sendInitialEvents) {
      if (options.resourceVersion && from < this.#expiredBefore) {
        watch.fail(gone(`too old resource version: ${from} (${this.#expiredBefore})`));
      } else {
        for (const key of [...this.#objects.keys()].sort()) {
          watch.push({ type: 'ADDED', object: structuredClone(this.#objects.get(key) as T) });
        }
        if (options.allowWatchBookmarks) {
          watch.push({
            type: 'BOOKMARK',
            object: {
              metadata: {
                resourceVersion: this.resourceVersion(),
                annotations: { 'k8s.io/initial-events-end': 'true' },
              },
            } as unknown as T,
          });
        }
        this.#open.add(watch);
      }
    } else {
      if (options.resourceVersion && from < this.#expiredBefore) {
        watch.fail(gone(`too old resource version: ${from} (${this.#expiredBefore})`));
      } else {
        for (const entry of this.#history) {
          if (entry.resourceVersion > from) watch.push(structuredClone(entry.event));
        }
        this.#open.add(watch);
      }
    }
    const waiter = this.#watchWaiters.shift();
    if (waiter !== undefined) waiter(watch);
    else this.#unclaimed.push(watch);
    return watch.iterate(signal, () => this.#open.delete(watch));
  }

  #write(type: 'ADDED' | 'MODIFIED', input: T): T {
    const key = metaNamespaceKeyFunc(input);
    if (type === 'ADDED' && this.#objects.has(key)) {
      throw new RangeError(`FakeListerWatcher.create: ${key} already exists`);
    }
    if (type === 'MODIFIED' && !this.#objects.has(key)) {
      throw new RangeError(`FakeListerWatcher.modify: ${key} not found`);
    }
    const resourceVersion = ++this.#resourceVersion;
    const object = withResourceVersion(input, resourceVersion);
    this.#objects.set(key, object);
    this.#record(resourceVersion, { type, object });
    return structuredClone(object);
  }

  #record(resourceVersion: number, event: WatchEvent<T>): void {
    this.#history.push({ resourceVersion, event });
    for (const watch of this.#open) watch.push(structuredClone(event));
  }
}

function withResourceVersion<T extends KubeObjectLike>(object: T, resourceVersion: number): T {
  const copy = structuredClone(object);
  copy.metadata = { ...copy.metadata, resourceVersion: String(resourceVersion) };
  return copy;
}

/** kube-apiserver 1.27+ with the WatchList feature gate off (the same 422 Invalid ListOptions shape). */
// biome-ignore lint/correctness/useYield: refuses before the first event
async function* refuseStreaming(): AsyncGenerator<never> {
  throw new ApiError({
    status: 422,
    reason: 'Invalid',
    message:
      'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
  });
}

function gone(message: string): ApiError {
  return new ApiError({ status: 410, reason: 'Expired', message });
}
