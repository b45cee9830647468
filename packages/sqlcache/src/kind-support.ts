// What the factory's kinds share, whether a Reflector writes straight into the SqlStore or a SharedIndexInformer
// keeps it: the transform before storing, watches that end with the kind's run, the read-only view handed out.
import { dropManagedFields, indexerView, type ListerWatcher } from '@lasso/cache';
import type { KubeObjectLike, WatchEvent } from '@lasso/client';
import { anySignal } from '@lasso/core';
import type { ListOptions } from './list-options.ts';
import type { SqlStore, SqlStoreReader } from './store-api.ts';
import type { SqlWatchOptions } from './watch-history.ts';

/** `metadata.managedFields` dropped, then the caller's transform. */
export function leanTransform<T extends KubeObjectLike>(
  transform: ((object: T) => T) | undefined,
): (object: T) => T {
  return (object) => {
    const lean = dropManagedFields(object);
    return transform === undefined ? lean : transform(lean);
  };
}

/**
 * `listerWatcher` whose watches also end when the signal `stop()` gives at watch time aborts. The reflector
 * links its own watch signal to the run signal only once the watch has started, so an abort landing between the
 * end of a list and the start of the watch would leave the watch open until its inactivity deadline (minutes).
 */
export function stoppableWatches<T extends KubeObjectLike>(
  listerWatcher: ListerWatcher<T>,
  stop: () => AbortSignal | undefined,
): ListerWatcher<T> {
  return {
    list: (options) => listerWatcher.list(options),
    watch: (options) => ({
      [Symbol.asyncIterator]: (): AsyncIterator<WatchEvent<T>> => {
        const combined = anySignal([options.signal, stop()]);
        const iterator = listerWatcher
          .watch({ ...options, signal: combined.signal })
          [Symbol.asyncIterator]();
        return {
          next: async () => {
            try {
              const result = await iterator.next();
              if (result.done) combined.dispose();
              return result;
            } catch (error) {
              combined.dispose();
              throw error;
            }
          },
          return: async (value?: unknown) => {
            combined.dispose();
            return (await iterator.return?.(value)) ?? { done: true, value: undefined };
          },
        };
      },
    }),
  };
}

/** A frozen read-only view of the store `current()` returns at each call (the kind's store after a rebuild). */
export function readerOf<T>(current: () => SqlStore<T>): SqlStoreReader<T> {
  return Object.freeze({
    ...indexerView(current),
    get gvk() {
      return current().gvk;
    },
    get tableName() {
      return current().tableName;
    },
    get indexedFields() {
      return current().indexedFields;
    },
    get schemaHash() {
      return current().schemaHash;
    },
    listByOptions: (options?: ListOptions) => current().listByOptions(options),
    resourceVersion: () => current().resourceVersion(),
    watch: (options?: SqlWatchOptions) => current().watch(options),
  });
}
