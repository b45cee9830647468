import { describe, expect, it } from 'vitest';
import * as api from './index.ts';
import * as testing from './testing/index.ts';

describe('public API', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "CacheNotSyncedError",
        "DeletedFinalStateUnknown",
        "DeltaFIFO",
        "Reflector",
        "WatchError",
        "cacheStaleness",
        "createBackoff",
        "createCache",
        "createClientListerWatcher",
        "createCompactTransform",
        "createIndexer",
        "createInternTable",
        "createMetadataCache",
        "createShardFilterSource",
        "createSharedIndexInformer",
        "createStore",
        "defaultCacheResyncMs",
        "defaultResyncMsFromEnv",
        "dropManagedFields",
        "indexerView",
        "isDeletedFinalStateUnknown",
        "metaNamespaceIndexFunc",
        "metaNamespaceKeyFunc",
        "metadataCacheClient",
        "namespaceIndex",
        "resyncDefaultEnvName",
        "splitMetaNamespaceKey",
        "stalenessMetricNames",
        "waitForCacheSync",
      ]
    `);
    expect(Object.keys(testing).sort()).toMatchInlineSnapshot(`
      [
        "FakeListerWatcher",
        "FakeWatch",
      ]
    `);
  });
});
