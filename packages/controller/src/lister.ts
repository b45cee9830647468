// Lister: typed reads of a controller's cache by namespace and name, label selector or index, so handlers never
// build `namespace/name` keys (client-go's generated listers, lasso's generated Cache interfaces).
import { type IndexerReader, namespaceIndex } from '@lasso/cache';
import type { KubeObjectLike } from '@lasso/client';
import { compileLabelSelector, type LabelSelectorInput } from './label-selector.ts';

/**
 * Reads of the objects a controller's informer holds (the cache, not the API server: what the last event
 * said). Every read returns the cached objects themselves: copy before changing one.
 */
export interface Lister<T> {
  /**
   * The cached object `namespace/name` (`namespace` `''` for a cluster-scoped kind), or undefined when the cache
   * holds none.
   */
  get(namespace: string, name: string): T | undefined;
  /**
   * The cached objects of `namespace` (every namespace when undefined or `''`) whose labels match
   * `labelSelector` (a string such as `'app=web,tier in (a,b)'` or a metav1 `LabelSelector`; undefined matches
   * all). Throws a RangeError for a selector that does not parse.
   */
  list(namespace?: string, labelSelector?: LabelSelectorInput): T[];
  /** The cached objects whose index `indexName` holds `value`; throws when the informer has no such index. */
  byIndex(indexName: string, value: string): T[];
}

/** A {@link Lister} over the indexer `indexer()` returns (read at every call, so it can be built lazily). */
export function createLister<T extends KubeObjectLike>(
  indexer: () => IndexerReader<T>,
  where: string,
): Lister<T> {
  return {
    get(namespace, name) {
      if (typeof namespace !== 'string' || typeof name !== 'string') {
        throw new TypeError(`${where}: get(namespace, name) takes two strings`);
      }
      return indexer().getByKey(namespace === '' ? name : `${namespace}/${name}`);
    },
    list(namespace, labelSelector) {
      if (namespace !== undefined && typeof namespace !== 'string') {
        throw new TypeError(`${where}: list namespace must be a string or undefined`);
      }
      const matches = compileLabelSelector(labelSelector, `${where}: list`);
      const store = indexer();
      let objects: T[];
      if (namespace === undefined || namespace === '') objects = store.list();
      else if (namespaceIndex in store.getIndexers()) {
        objects = store.byIndex(namespaceIndex, namespace);
      } else {
        objects = store.list().filter((object) => object.metadata?.namespace === namespace);
      }
      return objects.filter((object) => matches(object.metadata?.labels));
    },
    byIndex(indexName, value) {
      return indexer().byIndex(indexName, value);
    },
  };
}
