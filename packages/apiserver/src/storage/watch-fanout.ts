// Watches at the storage layer, as kube's storage watch (the cacher) sends them: the state or the history
// after a resourceVersion, then every commit to one key that the watch's predicate selects, each turned into
// the event a client sees (a modified object that leaves the selection is DELETED to it); and the open
// watches of one server, so a resource no longer served can end them. What to select, in which version to
// send it and the bookmarks are the registry's (registry/watch.ts).
import { errorMessage } from '@lasso/core';
import { failure } from '../apimachinery/status.ts';
import { CompactedError, type HistoryEvent, type KubeObject, type Store } from './store.ts';

/** A running watch: stop it, or ask it to send a bookmark now. */
export interface WatchControl {
  stop(): void;
  bookmark(): void;
}

/** What a watch request streams. */
export interface WatchPlan {
  timeoutMs: number | undefined;
  bookmarks: boolean;
  /** Storage key watched (watches end when their CRD is deleted). */
  key: string;
  start(send: (event: unknown) => void, end: () => void): WatchControl;
}

/** What a storage watch selects, and where it starts. */
export interface StorageWatch {
  /** The storage key of the resource watched. */
  key: string;
  /** Only this namespace; undefined: every namespace. */
  namespace: string | undefined;
  /** 'now': only what is committed from here on; 'state': the stored objects first; a number: the history after it. */
  from: 'now' | 'state' | number;
  /** The selection predicate: true for an object the watch selects. */
  matches(object: KubeObject): boolean;
}

/** Where a storage watch delivers. */
export interface WatchSink {
  /** One selected change (the stored object, in the storage version). */
  emit(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject): void;
  /** A raw event: the ERROR that ends a watch. */
  send(event: unknown): void;
  /** The watch ends (after an ERROR). */
  end(): void;
  /** The stored objects of a watch `from: 'state'` have all been emitted. */
  stateSent?(): void;
}

/** The storage a watch reads. */
export type WatchableStore = Pick<Store, 'snapshot' | 'eventsAfter' | 'subscribe'>;

/** The open watches of one server. */
export class WatchFanout {
  readonly #watches = new Set<{ key: string; end: () => void }>();

  /** End every watch of storage key `key` (its resource is no longer served). */
  endAll(key: string): void {
    for (const watch of [...this.#watches]) if (watch.key === key) watch.end();
  }

  /**
   * Start a watch of `store`; it runs until stopped, or until it ends itself with an ERROR. Undefined when
   * it ended as it started (its history is compacted: a 410 ERROR was sent).
   */
  open(store: WatchableStore, watch: StorageWatch, sink: WatchSink): { stop(): void } | undefined {
    const { key, namespace } = watch;
    const deliver = (event: HistoryEvent): void => {
      try {
        route(event);
      } catch (error) {
        // Never let one watch break the commit that notified it: end this watch with an error.
        sink.send({ type: 'ERROR', object: failure(500, 'InternalError', errorMessage(error)) });
        sink.end();
      }
    };
    const route = (event: HistoryEvent): void => {
      if (event.key !== key) return;
      if (namespace !== undefined && event.namespace !== namespace) return;
      const now = watch.matches(event.object);
      if (event.type === 'ADDED') {
        if (now) sink.emit('ADDED', event.object);
        return;
      }
      if (event.type === 'DELETED') {
        const before = event.previous === undefined ? now : watch.matches(event.previous);
        if (before) sink.emit('DELETED', event.object);
        return;
      }
      const before = event.previous === undefined ? false : watch.matches(event.previous);
      if (before && now) sink.emit('MODIFIED', event.object);
      else if (now) sink.emit('ADDED', event.object);
      else if (before) sink.emit('DELETED', event.object);
    };
    let backlog: HistoryEvent[] = [];
    if (watch.from === 'now') {
      // Nothing before now: only what is committed from here on.
    } else if (watch.from === 'state') {
      // emit copies each object: read the stored ones in place.
      for (const object of store.snapshot(key).objects(namespace)) {
        if (watch.matches(object)) sink.emit('ADDED', object);
      }
      sink.stateSent?.();
    } else {
      try {
        backlog = store.eventsAfter(watch.from);
      } catch (error) {
        if (!(error instanceof CompactedError)) throw error;
        sink.send({
          type: 'ERROR',
          object: failure(
            410,
            'Expired',
            `too old resource version: ${error.requested} (${error.oldest})`,
          ),
        });
        sink.end();
        return undefined;
      }
    }
    for (const event of backlog) deliver(event);
    const unsubscribe = store.subscribe(deliver);
    const entry = { key, end: sink.end };
    this.#watches.add(entry);
    return {
      stop: () => {
        unsubscribe();
        this.#watches.delete(entry);
      },
    };
  }
}
