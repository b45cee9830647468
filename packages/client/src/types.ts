// Wire types shared by every layer above the client: object metadata, lists, watch events, GVK/GVR.
// `.js`, never `.d.ts`: the bundled declarations drop `type`, and consumers with skipLibCheck: false
// then fail on a value import of a declaration file (TS2846).
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** A group/version/resource, e.g. `{ group: 'apps', version: 'v1', resource: 'deployments' }`. Core group is `''`. */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** A group/version/kind, e.g. `{ group: 'apps', version: 'v1', kind: 'Deployment' }`. Core group is `''`. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** Any Kubernetes object: what every client call reads and writes. Typed objects extend it. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

/**
 * What a client's type parameter must satisfy: the fields every object has. The interfaces of
 * `kubernetes-types` (`ConfigMap`, `Deployment`, ...) satisfy it, where they lack the index
 * signature of {@link KubeObject}.
 */
export interface KubeObjectLike {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?: ObjectMeta | undefined;
}

/** List metadata as the server sends it. */
export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  /**
   * Set by a server that applied the list's `shardSelector` (KEP-5866, kube-apiserver 1.36 with the
   * `ShardedListAndWatch` gate): the selector it applied, in its canonical text. Absent: the server ignored the
   * selector and sent every object.
   */
  shardInfo?: { selector?: string };
}

/** One page of a list call. */
export interface ObjectList<T extends KubeObjectLike = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

/** The watch event types of the Kubernetes wire protocol. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/**
 * One decoded watch event. `ERROR` events never appear here: the watch iterator throws them as an
 * `ApiError` (410 -> `isGone`). A `BOOKMARK` carries only `metadata.resourceVersion` (and annotations).
 */
export interface WatchEvent<T extends KubeObjectLike = KubeObject> {
  type: WatchEventType;
  object: T;
}

/** Options of a list call (one page). */
export interface ListOptions {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  /**
   * A KEP-5866 shard selector (`shardRange(object.metadata.uid, '0x…', '0x…') || …`, see
   * `formatShardSelector` in `@lasso/core/sharding`): only objects whose hashed uid or namespace falls in the
   * ranges. A server that applied it says so in `metadata.shardInfo`; one that does not serve it (before 1.36, or
   * the gate off) ignores it and sends everything.
   */
  shardSelector?: string | undefined;
  /** Page size; the server may return fewer and a `continue` token. */
  limit?: number | undefined;
  continue?: string | undefined;
  /** `""` (default): a consistent read from etcd; `"0"`: any cached state. */
  resourceVersion?: string | undefined;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan' | undefined;
  /**
   * List metadata only: the server answers a `meta.k8s.io/v1` `PartialObjectMetadataList` whose items carry
   * `apiVersion`, `kind` (`PartialObjectMetadata`) and `metadata` (client-go's metadata client). Default false.
   */
  asMetadata?: boolean | undefined;
  /**
   * Total deadline of each page, in ms (0: none). Default: none; a list runs under its progress
   * deadline alone (`TIMEOUT_POLICY`).
   */
  timeoutMs?: number | undefined;
  /**
   * Progress deadline of each page, in ms (0: none): fail with a `LASSO_TIMEOUT` `RequestTimeoutError`
   * when no response bytes arrived for this long (the wait for the headers included). Default: the
   * config's `progressTimeoutMs`, 30 s. A page whose body keeps arriving is never cut by it, as long as each
   * window this long brings 1 KiB/s of body (else `SlowResponseError`, `LASSO_RESPONSE_TOO_SLOW`).
   */
  progressTimeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** Options of {@link Client.listAll}: a list's options (`limit` is the page size, default 500) and the pager's. */
export interface ListAllOptions extends ListOptions {
  /**
   * When a continue token expires mid-way (410 `Expired`: the snapshot of the first page was
   * compacted, typically after 5-15 minutes), list once more without `continue` and without
   * `limit`, at the `resourceVersion`/`resourceVersionMatch` asked for, and go on with the objects
   * of that full list not yielded yet (client-go's `ListPager.FullListIfExpired`). Default `true`;
   * `false` throws the 410 `ApiError` instead.
   */
  fullListIfExpired?: boolean | undefined;
}

/** Options of a watch call. */
export interface WatchOptions {
  /** Start after this resourceVersion; `""`/`"0"` send synthetic ADDED events for current state first. */
  resourceVersion?: string | undefined;
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  /** A KEP-5866 shard selector, as {@link ListOptions.shardSelector} (watch events carry no shardInfo). */
  shardSelector?: string | undefined;
  /** Server-side timeout: the server ends the watch cleanly after this many seconds. */
  timeoutSeconds?: number | undefined;
  allowWatchBookmarks?: boolean | undefined;
  /**
   * A streaming list (KEP-3157, client-go's WatchList): `true` sends the state at `resourceVersion` (or, from `""`,
   * a consistent read) as ADDED events first, then, with `allowWatchBookmarks`, a BOOKMARK annotated
   * `k8s.io/initial-events-end: "true"` whose resourceVersion is that of the state; the watch then goes on.
   * `false` from `""`/`"0"`: no initial events. Requires `resourceVersionMatch: 'NotOlderThan'` (a TypeError
   * otherwise). Servers without the feature refuse it (kube-apiserver before 1.27, or with the `WatchList`
   * feature gate off: 422 Invalid; 1.20.2 refuses the `resourceVersionMatch`).
   */
  sendInitialEvents?: boolean | undefined;
  /**
   * Only `'NotOlderThan'`, and only with `sendInitialEvents` (kube-apiserver's rule for watches; anything else
   * throws a TypeError naming both options).
   */
  resourceVersionMatch?: 'NotOlderThan' | undefined;
  /**
   * Client-side inactivity deadline: when no bytes arrive for this long the iterator throws a
   * `LASSO_TIMEOUT` error. Default: `timeoutSeconds` * 1000 + 30 s, or none without `timeoutSeconds`.
   * `0`: none (for a caller that runs its own deadline, as `@lasso/cache`'s reflector does).
   */
  inactivityTimeoutMs?: number | undefined;
  /** Watch metadata only: each event's object is a `meta.k8s.io/v1` `PartialObjectMetadata`. Default false. */
  asMetadata?: boolean | undefined;
  signal?: AbortSignal | undefined;
}

/** `metav1.Status` as the server sends it for errors (and for some successful deletes). */
export interface Status {
  apiVersion?: string;
  kind?: 'Status';
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  code?: number;
  details?: StatusDetails;
  metadata?: ListMeta;
}

/** `metav1.StatusDetails`. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** `metav1.StatusCause`: one field-level cause of an Invalid error. */
export interface StatusCause {
  type?: string;
  message?: string;
  field?: string;
}

export type { ObjectMeta };
