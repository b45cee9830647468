// The factory chooses how its informers read the state before watching, per factory and per kind (lasso's
// DefaultDisableWatchList / KindDisableWatchList): the first request of each kind, as the server received it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSharedCacheFactory,
  createSharedClientFactory,
  type SharedCacheFactoryOptions,
} from '../../src/index.ts';
import { collectionOf, type RecordingConfig, startCluster, type TestCluster } from './helpers.ts';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

/** The query of the first GET of `collection`, once the kinds synced. */
async function firstRequests(
  options: SharedCacheFactoryOptions,
  collections: readonly string[],
): Promise<Map<string, URLSearchParams>> {
  const recording: RecordingConfig = await cluster.recordingConfig();
  const clients = createSharedClientFactory(recording.rest);
  const caches = createSharedCacheFactory(clients, options);
  const stop = new AbortController();
  try {
    await caches.forKind({ apiVersion: 'v1', kind: 'ConfigMap' });
    await caches.forKind({ apiVersion: 'v1', kind: 'Secret' });
    await caches.start(stop.signal);
    await caches.whenSynced({ signal: AbortSignal.timeout(20_000) });
    const first = new Map<string, URLSearchParams>();
    for (const request of recording.requests) {
      const collection = collectionOf(request.path);
      if (request.method !== 'GET' || collection === undefined) continue;
      if (!collections.includes(collection) || first.has(collection)) continue;
      first.set(collection, new URLSearchParams(request.path.split('?')[1] ?? ''));
    }
    return first;
  } finally {
    stop.abort();
    await caches.stopped();
    await caches.close();
    await clients.close();
    await recording.close();
  }
}

describe('initial list per factory and per kind', { timeout: 60_000 }, () => {
  it('defaults to a streaming list; \'cached\' lists at "0"; \'consistent\' pages a read at ""', async () => {
    const kinds = ['v1/configmaps', 'v1/secrets'];
    const streaming = await firstRequests({}, kinds);
    for (const kind of kinds) {
      expect(streaming.get(kind)?.get('sendInitialEvents'), kind).toBe('true');
    }
    const chosen = await firstRequests(
      {
        defaultInitialList: 'cached',
        kindInitialList: [[{ apiVersion: 'v1', kind: 'ConfigMap' }, 'consistent']],
      },
      kinds,
    );
    const configMaps = chosen.get('v1/configmaps');
    expect(configMaps?.get('watch')).toBeNull();
    expect(configMaps?.get('resourceVersion') ?? '').toBe('');
    expect(configMaps?.get('limit')).toBe('500');
    const secrets = chosen.get('v1/secrets');
    expect(secrets?.get('watch')).toBeNull();
    expect(secrets?.get('resourceVersion')).toBe('0');
  });

  it('refuses an unknown strategy naming the option', () => {
    const clients = createSharedClientFactory(cluster.admin);
    expect(() =>
      createSharedCacheFactory(clients, { defaultInitialList: 'eager' as never }),
    ).toThrow(/defaultInitialList must be 'streaming', 'cached' or 'consistent'/);
    expect(() =>
      createSharedCacheFactory(clients, {
        kindInitialList: [[{ apiVersion: 'v1', kind: 'Secret' }, 'watchlist' as never]],
      }),
    ).toThrow(/kindInitialList/);
  });
});
