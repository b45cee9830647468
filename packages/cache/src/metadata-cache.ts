// Metadata-only informers: client-go's metadata informer (k8s.io/client-go/metadata/metadatainformer) and kube-rs's
// PartialObjectMeta. The list and watch ask for PartialObjectMetadata, so the store holds only metadata.
import type {
  KubeObjectLike,
  ListOptions,
  ObjectList,
  ObjectMeta,
  WatchEvent,
  WatchOptions,
} from '@lasso/client';
import { type CacheClient, type CacheOptions, createCache } from './cache.ts';
import type { SharedIndexInformer } from './shared-informer.ts';

/**
 * What a metadata-only cache stores: `apiVersion: 'meta.k8s.io/v1'`, `kind: 'PartialObjectMetadata'` and the
 * object's `metadata` (labels, annotations, owner references, finalizers...), no spec or status.
 */
export interface PartialObjectMetadata extends KubeObjectLike {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?: ObjectMeta | undefined;
}

/** The part of `@lasso/client`'s `Client` a metadata cache uses: list and watch with `asMetadata`. */
export interface MetadataCacheClient extends Omit<CacheClient<KubeObjectLike>, 'list' | 'watch'> {
  list(
    namespace: string | undefined,
    options?: ListOptions,
  ): Promise<ObjectList<PartialObjectMetadata>>;
  watch(
    namespace: string | undefined,
    options?: WatchOptions,
  ): AsyncIterable<WatchEvent<PartialObjectMetadata>>;
}

/**
 * `client` with every list and watch asking for metadata only (`asMetadata: true`): the server answers
 * `PartialObjectMetadataList` and `PartialObjectMetadata` watch events.
 *
 * @example
 * ```ts
 * declare const configMaps: Client;
 * const metadataOnly = metadataCacheClient(configMaps);
 * const list = await metadataOnly.list('default');
 * console.log(list.items.map((item) => item.metadata?.labels));
 * ```
 */
export function metadataCacheClient(
  client: MetadataCacheClient,
): CacheClient<PartialObjectMetadata> {
  if (typeof client?.list !== 'function' || typeof client.watch !== 'function') {
    throw new TypeError('metadataCacheClient: client must have list and watch');
  }
  return {
    gvr: client.gvr,
    kind: client.kind,
    namespaced: client.namespaced,
    list: (namespace, options = {}) => client.list(namespace, { ...options, asMetadata: true }),
    watch: (namespace, options = {}) => client.watch(namespace, { ...options, asMetadata: true }),
  };
}

/**
 * {@link createCache} holding metadata only: the informer lists and watches `client`'s resource with the
 * `PartialObjectMetadata` Accept header, so a program can watch every kind of a group without holding specs or
 * statuses (client-go's metadata informer). Keys, namespace index and options are those of `createCache`; the
 * default name is `createCache`'s with ` (metadata)` appended. The server must serve PartialObjectMetadata
 * (kube-apiserver does since 1.15).
 *
 * @example
 * ```ts
 * declare const secrets: Client;
 * const informer = createMetadataCache(secrets, { resyncMs: 0 });
 * informer.addEventHandler({ onAdd: (secret) => console.log(secret.metadata?.name, secret.metadata?.labels) });
 * const stop = new AbortController();
 * await informer.start(stop.signal);
 * await informer.whenSynced();
 * stop.abort();
 * await informer.stopped();
 * ```
 */
export function createMetadataCache(
  client: MetadataCacheClient,
  options: CacheOptions<PartialObjectMetadata> = {},
): SharedIndexInformer<PartialObjectMetadata> {
  const { group, version } = client.gvr;
  const name =
    options.name ?? `${group ? `${group}/` : ''}${version}, Kind=${client.kind} (metadata)`;
  return createCache(metadataCacheClient(client), { ...options, name });
}
