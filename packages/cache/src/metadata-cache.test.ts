import type { KubeObject, ListOptions, ObjectList, WatchEvent, WatchOptions } from '@lasso/client';
import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import {
  createMetadataCache,
  type MetadataCacheClient,
  metadataCacheClient,
} from './metadata-cache.ts';
import { FakeListerWatcher } from './testing/fake-lister-watcher.ts';

interface Call {
  verb: 'list' | 'watch';
  options: ListOptions | WatchOptions | undefined;
}

function fakeClient(objects: KubeObject[]) {
  const backend = new FakeListerWatcher({ objects });
  const calls: Call[] = [];
  const client: MetadataCacheClient & { calls: Call[] } = {
    gvr: { group: '', version: 'v1', resource: 'secrets' },
    kind: 'Secret',
    namespaced: true,
    calls,
    list(_namespace, options): Promise<ObjectList> {
      calls.push({ verb: 'list', options });
      return backend.list(options ?? {});
    },
    watch(_namespace, options): AsyncIterable<WatchEvent> {
      calls.push({ verb: 'watch', options });
      return backend.watch(options ?? {});
    },
  };
  return client;
}

describe('createMetadataCache', () => {
  it('lists and watches with asMetadata, under a name that says metadata', async () => {
    const clock = new FakeClock();
    const client = fakeClient([
      {
        apiVersion: 'meta.k8s.io/v1',
        kind: 'PartialObjectMetadata',
        metadata: { namespace: 'team', name: 'token', labels: { a: 'b' } },
      },
    ]);
    const informer = createMetadataCache(client, { clock, random: () => 0, resyncMs: 0 });
    expect(informer.name).toBe('v1, Kind=Secret (metadata)');
    expect(client.calls).toEqual([]); // deferred: nothing before start
    const stop = new AbortController();
    await informer.start(stop.signal);
    await informer.whenSynced();
    expect(informer.getStore().getByKey('team/token')?.metadata?.labels).toEqual({ a: 'b' });
    // The streaming list (refused by the fake, as by servers without the WatchList feature), then the list.
    expect(client.calls[0]).toMatchObject({
      verb: 'watch',
      options: { asMetadata: true, sendInitialEvents: true },
    });
    expect(client.calls[1]).toMatchObject({ verb: 'list', options: { asMetadata: true } });
    stop.abort();
    await informer.stopped();
    expect(client.calls.every((call) => call.options?.asMetadata === true)).toBe(true);
  });

  it('keeps the options a caller passed and rejects a client without list and watch', async () => {
    const client = fakeClient([]);
    await metadataCacheClient(client).list('team', { labelSelector: 'a=b' });
    expect(client.calls[0]?.options).toMatchObject({ labelSelector: 'a=b', asMetadata: true });
    const stop = new AbortController();
    metadataCacheClient(client).watch('team', { resourceVersion: '1', signal: stop.signal });
    expect(client.calls[1]).toMatchObject({ verb: 'watch', options: { asMetadata: true } });
    expect(() => metadataCacheClient({} as MetadataCacheClient)).toThrow(TypeError);
  });
});
