// A hand-driven informer for unit tests: the test adds, updates and deletes objects and decides when the
// informer has synced, so every controller rule can be driven without a lister-watcher.
import {
  createIndexer,
  DeletedFinalStateUnknown,
  type EventHandlerRegistration,
  metaNamespaceKeyFunc,
  type ResourceEventHandler,
  type SharedIndexInformer,
} from '@lasso/cache';
import type { KubeObject } from '@lasso/client';
import { drainedResult } from '@lasso/core';

/** A SharedIndexInformer whose events and sync the test triggers. */
export interface TestInformer extends SharedIndexInformer<KubeObject> {
  add(object: KubeObject): void;
  update(object: KubeObject): void;
  /** Delete by object; `tombstone` delivers a DeletedFinalStateUnknown as a relist would. */
  delete(object: KubeObject, options?: { tombstone?: boolean }): void;
  /** Mark the informer synced (resolves every `whenSynced`). */
  sync(): void;
  /** How many handlers were added. */
  handlerCount(): number;
}

export function configMap(
  name: string,
  options: {
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    data?: Record<string, string>;
  } = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: options.namespace ?? 'ns',
      resourceVersion: options.resourceVersion ?? '1',
      uid: options.uid ?? `uid-${name}`,
    },
    data: options.data ?? {},
  };
}

export function createTestInformer(name = 'v1, Kind=ConfigMap'): TestInformer {
  const indexer = createIndexer<KubeObject>();
  const handlers: Array<ResourceEventHandler<KubeObject>> = [];
  let synced = false;
  let waiters: Array<() => void> = [];
  const each = (call: (handler: ResourceEventHandler<KubeObject>) => void): void => {
    for (const handler of handlers) call(handler);
  };
  return {
    name,
    addEventHandler(handler): EventHandlerRegistration {
      handlers.push(handler);
      return { hasSynced: () => synced, remove: () => {} };
    },
    getStore: () => indexer,
    getIndexer: () => indexer,
    addIndexers: (indexers) => indexer.addIndexers(indexers),
    setTransform: () => {},
    setWatchErrorHandler: () => {},
    run: async () => {},
    start: async () => {},
    stopped: async () => drainedResult,
    close: async () => {},
    [Symbol.asyncDispose]: async () => {},
    isRunning: () => synced,
    hasSynced: () => synced,
    whenSynced: (options = {}) => {
      if (synced) return Promise.resolve();
      const { signal } = options;
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<void>((resolve, reject) => {
        const onAbort = (): void => reject(signal?.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    },
    lastSyncResourceVersion: () => '',
    isStopped: () => false,
    add(object) {
      indexer.add(object);
      each((handler) => void handler.onAdd?.(object, !synced));
    },
    update(object) {
      const old = indexer.get(object) ?? object;
      indexer.update(object);
      each((handler) => void handler.onUpdate?.(old, object));
    },
    delete(object, options = {}) {
      indexer.delete(object);
      const delivered = options.tombstone
        ? new DeletedFinalStateUnknown(metaNamespaceKeyFunc(object), object)
        : object;
      each((handler) => void handler.onDelete?.(delivered));
    },
    sync() {
      synced = true;
      const pending = waiters;
      waiters = [];
      for (const resolve of pending) resolve();
    },
    handlerCount: () => handlers.length,
  };
}
