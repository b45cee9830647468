// Client: typed CRUD, list, watch and patch for one GroupVersionResource (rancher/lasso pkg/client/client.go).
// size: over 500 lines because it is one class, every verb of one resource a few lines over the transport with its TSDoc;
// the parts live elsewhere: watch-stream.ts (watches), timeout-policy.ts (deadlines), transport/ (requests).
import { type Clock, defaultLogger, guardLogger, type Logger, systemClock } from '@lasso/core';
import { builtinEntries } from './builtin-kinds.ts';
import { checkByteLimit, type Impersonation, type RestConfig } from './config/rest-config.ts';
import { isResourceExpired } from './errors.ts';
import { checkPathSegment } from './path-segment.ts';
import { checkList, checkObject } from './response-shape.ts';
import type { RestMapper } from './rest-mapper.ts';
import { requestClassOf, TIMEOUT_POLICY } from './timeout-policy.ts';
import { ItemTransformFailure } from './transport/list-body.ts';
import { restTransportFor } from './transport/registry.ts';
import { DEFAULT_MAX_WATCH_EVENT_BYTES } from './transport/response-body.ts';
import type { QueryParams, RestRequest } from './transport/rest-request.ts';
import { RestTransport } from './transport.ts';
import type {
  GroupVersionResource,
  KubeObject,
  KubeObjectLike,
  ListAllOptions,
  ListOptions,
  ObjectList,
  WatchEvent,
  WatchOptions,
} from './types.ts';
import {
  validateWatchOptions,
  type WatchStreamInit,
  watchBatchStream,
  watchStream,
} from './watch-stream.ts';

/** Options of the {@link Client} constructor. */
export interface ClientOptions {
  gvr: GroupVersionResource;
  /** Kind of the objects, e.g. `Deployment`; filled into results that lack it. */
  kind: string;
  /** Cluster-scoped resources ignore every namespace argument. */
  namespaced: boolean;
  /** A config (its shared transport is used) or a transport. */
  rest: RestConfig | RestTransport;
  /**
   * Total deadline of each short call: every call but list, listAll and watch (default: the config's
   * `timeoutMs`, 30 s). Lists and watches never take it: they run under progress and inactivity
   * deadlines ({@link TIMEOUT_POLICY}); a call's own `timeoutMs` still sets a total deadline on a list.
   */
  defaultTimeoutMs?: number | undefined;
  /** User-Agent of this client's requests (see {@link Client.withUserAgent}). */
  userAgent?: string | undefined;
  /** Impersonation of this client's requests (see {@link Client.withImpersonation}). */
  impersonation?: Impersonation | undefined;
  /** Replaces the config's `maxResponseBytes` (default 512 MiB) for this client's requests. */
  maxResponseBytes?: number | undefined;
  /** Replaces the config's `maxWatchEventBytes` (default 16 MiB) for this client's watches. */
  maxWatchEventBytes?: number | undefined;
}

/** Options shared by the calls of a {@link Client}. */
export interface RequestOptions {
  signal?: AbortSignal | undefined;
  /**
   * Total deadline of this call, in ms (0: none): replaces the client's `defaultTimeoutMs` and the
   * config's `timeoutMs`. On a list it adds a total deadline to the progress deadline.
   */
  timeoutMs?: number | undefined;
}

/** Options of create, update and updateStatus. */
export interface WriteOptions extends RequestOptions {
  fieldManager?: string | undefined;
  /** Validate and answer without persisting (`dryRun=All`). */
  dryRun?: boolean | undefined;
}

/** Options of delete. */
export interface DeleteOptions extends RequestOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan' | undefined;
  preconditions?: { uid?: string | undefined; resourceVersion?: string | undefined } | undefined;
  gracePeriodSeconds?: number | undefined;
  dryRun?: boolean | undefined;
}

/** Options of patch. */
export interface PatchOptions extends RequestOptions {
  /** Required for `apply` patches. */
  fieldManager?: string | undefined;
  /** Server-side apply: take ownership of conflicting fields. */
  force?: boolean | undefined;
  dryRun?: boolean | undefined;
}

/** The four patch types of the Kubernetes API. */
export type PatchType = 'json' | 'merge' | 'strategic-merge' | 'apply';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  'strategic-merge': 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/**
 * A typed client of one resource (lasso's `pkg/client.Client`): get, list (one page or all pages),
 * watch, create, update, updateStatus, delete, deleteCollection, patch (json / merge /
 * strategic-merge / apply) and a server-side `apply` helper. Results always carry `apiVersion` and
 * `kind`, list items included. Errors are {@link ApiError}s (guards `isNotFound`, `isConflict`, ...).
 *
 * Prefer {@link clientFor} (built-in kinds) or {@link clientForKind} (any kind, through the
 * RESTMapper), which name the resource once by `apiVersion` + `kind`. A hand-written triple of a
 * built-in resource is checked against {@link builtinKinds} here (a TypeError naming both sides);
 * others are checked on request by {@link Client.verify}.
 *
 * **Gotchas**: cluster-scoped resources ignore the namespace argument (lasso puts it in the URL
 * anyway); for namespaced resources, `''` or `undefined` lists and watches all namespaces, and a
 * named call without a namespace takes the object's `metadata.namespace`.
 *
 * @example
 * ```ts
 * import type { ConfigMap } from 'kubernetes-types/core/v1.js';
 * const configMaps = new Client<ConfigMap>({
 *   gvr: { group: '', version: 'v1', resource: 'configmaps' }, kind: 'ConfigMap', namespaced: true, rest,
 * });
 * const cm = await configMaps.get('default', 'settings');
 * for await (const event of configMaps.watch('default', { resourceVersion: cm.metadata?.resourceVersion, signal })) {
 *   console.log(event.type, event.object.metadata?.name);
 * }
 * ```
 */
export class Client<T extends KubeObjectLike = KubeObject> {
  readonly gvr: GroupVersionResource;
  readonly kind: string;
  readonly namespaced: boolean;
  /** `v1` or `group/version`. */
  readonly apiVersion: string;
  readonly transport: RestTransport;
  readonly #options: ClientOptions;
  readonly #clock: Clock;
  readonly #maxWatchEventBytes: number;

  constructor(options: ClientOptions) {
    const { gvr, kind, rest } = options;
    if (
      typeof gvr !== 'object' ||
      gvr === null ||
      typeof gvr.resource !== 'string' ||
      gvr.resource === ''
    ) {
      throw new TypeError('Client: gvr.resource must be a non-empty string');
    }
    if (typeof gvr.version !== 'string' || gvr.version === '') {
      throw new TypeError('Client: gvr.version must be a non-empty string');
    }
    if (typeof kind !== 'string' || kind === '') {
      throw new TypeError('Client: kind must be a non-empty string');
    }
    // A missing flag would silently make a namespaced resource cluster-scoped.
    if (typeof options.namespaced !== 'boolean') {
      throw new TypeError('Client: namespaced must be true or false');
    }
    if (
      options.defaultTimeoutMs !== undefined &&
      !(Number.isFinite(options.defaultTimeoutMs) && options.defaultTimeoutMs >= 0)
    ) {
      throw new RangeError(
        `Client: defaultTimeoutMs must be >= 0, got ${options.defaultTimeoutMs}`,
      );
    }
    checkByteLimit(options.maxResponseBytes, 'Client: maxResponseBytes');
    checkByteLimit(options.maxWatchEventBytes, 'Client: maxWatchEventBytes');
    checkPathSegment(gvr.resource, 'gvr.resource', 'Client');
    checkPathSegment(gvr.version, 'gvr.version', 'Client');
    if (gvr.group !== undefined && gvr.group !== '') {
      checkPathSegment(gvr.group, 'gvr.group', 'Client');
    }
    this.gvr = { group: gvr.group ?? '', version: gvr.version, resource: gvr.resource };
    this.kind = kind;
    this.namespaced = options.namespaced;
    this.apiVersion = this.gvr.group === '' ? gvr.version : `${this.gvr.group}/${gvr.version}`;
    checkBuiltin(this.apiVersion, gvr.resource, kind, options.namespaced);
    this.transport = rest instanceof RestTransport ? rest : restTransportFor(rest);
    this.#options = options;
    this.#clock = this.transport.config.clock ?? systemClock;
    this.#maxWatchEventBytes =
      options.maxWatchEventBytes ??
      this.transport.config.maxWatchEventBytes ??
      DEFAULT_MAX_WATCH_EVENT_BYTES;
  }

  /**
   * True: {@link Client.list} honours `transformItem` (a cache's lister-watcher then leaves the transform of listed
   * objects to it).
   */
  readonly listTransformsItems = true;

  /**
   * One page of objects. `namespace` `''`/`undefined` lists all namespaces. `transformItem` is applied to each
   * item as soon as it is decoded from the body (apiVersion and kind filled first) and its result kept instead:
   * the page is never held as a whole body, one string and every raw object at once (an informer passes its
   * transform; a list at resourceVersion "0" answered from the watch cache is every object in one page).
   */
  async list(
    namespace: string | undefined,
    options: ListOptions & { transformItem?: ((item: T) => T) | undefined } = {},
  ): Promise<ObjectList<T>> {
    const { transformItem } = options;
    const request: RestRequest = {
      method: 'GET',
      path: this.#path('list', namespace),
      query: listQuery(options),
      accept: options.asMetadata === true ? metadataListAccept : undefined,
    };
    if (transformItem !== undefined) {
      // A non-object item is passed through untransformed, for checkList to refuse.
      request.decodeListItem = (item) =>
        typeof item === 'object' && item !== null && !Array.isArray(item)
          ? transformItem(this.#fill(item as T))
          : item;
    }
    let answer: unknown;
    try {
      answer = await this.#json<unknown>(request, options);
    } catch (error) {
      throw error instanceof ItemTransformFailure ? error.cause : error;
    }
    const list = checkList<T>(answer, request);
    list.apiVersion ||= this.apiVersion;
    list.kind ||= `${this.kind}List`;
    if (transformItem === undefined) for (const item of list.items) this.#fill(item);
    return list;
  }

  /**
   * Every object over all pages (`limit` is the page size, default 500), fetched page by page as
   * the iteration goes. `resourceVersion`/`resourceVersionMatch` go with the first page only: the
   * continue token pins the later pages to the same snapshot, and the server refuses both together
   * (client-go's pager).
   *
   * **Expired continue token**: when a later page answers 410 `Expired` (the first page's snapshot
   * was compacted while the caller was slow), `fullListIfExpired` (default `true`, as client-go's
   * `ListPager`) lists again in one request, without `continue` and `limit`, at the
   * `resourceVersion`/`resourceVersionMatch` asked for, and yields the objects of that list whose
   * namespace/name was not yielded yet. So every object is yielded at most once and the iteration
   * goes on where it was, but the objects come from two snapshots: those yielded before the expiry
   * as they were then (one may have been deleted since), the rest as they are in the full list.
   * A caller that needs one snapshot (a cache that will watch from its resourceVersion) pages
   * with {@link Client.list} itself, or sets `fullListIfExpired: false` and lists again on
   * `isResourceExpired`. A 410 on the first request (including one for a `continue` token the
   * caller passed in) is always thrown.
   */
  async *listAll(namespace: string | undefined, options: ListAllOptions = {}): AsyncIterable<T> {
    const { fullListIfExpired = true, ...listOptions } = options;
    if (typeof fullListIfExpired !== 'boolean') {
      throw new TypeError('Client.listAll: fullListIfExpired must be true or false');
    }
    let continueToken = listOptions.continue;
    const limit = listOptions.limit ?? 500;
    const { resourceVersion: _rv, resourceVersionMatch: _match, ...later } = listOptions;
    let first = continueToken === undefined;
    // Keys yielded so far, kept only when a fallback may need them to skip repeats.
    const yielded = fullListIfExpired ? new Set<string>() : undefined;
    let paged = false;
    do {
      let page: ObjectList<T>;
      try {
        page = await this.list(namespace, {
          ...(first ? listOptions : later),
          limit,
          continue: continueToken,
        });
      } catch (error) {
        if (yielded === undefined || !paged || !isResourceExpired(error)) throw error;
        this.#logger().info('continue token expired, listing in full', {
          resource: this.gvr.resource,
          namespace: namespace ?? '',
          yielded: yielded.size,
        });
        const { limit: _limit, continue: _continue, ...full } = listOptions;
        const rest = await this.list(namespace, full);
        for (const item of rest.items) {
          const key = objectKey(item);
          if (key === undefined || !yielded.has(key)) yield item;
        }
        return;
      }
      first = false;
      paged = true;
      for (const item of page.items) {
        const key = yielded !== undefined ? objectKey(item) : undefined;
        if (key !== undefined) yielded?.add(key);
        yield item;
      }
      continueToken = page.metadata.continue || undefined;
    } while (continueToken !== undefined);
  }

  /**
   * A watch stream. Lazy: the request is sent when iteration starts. An HTTP error answer (410 ...)
   * throws an {@link ApiError} from the first `next()`; an `ERROR` event throws its ApiError; a
   * malformed line throws `LASSO_WATCH_DECODE`; no bytes for `inactivityTimeoutMs` throws a
   * `LASSO_TIMEOUT` TimeoutError; a broken connection throws `LASSO_CONNECTION_FAILED` (undici's
   * error as `cause`). The stream ending normally ends the iteration, also in the middle of an event
   * (that partial event is dropped, as client-go drops one cut by an unexpected EOF). Breaking out,
   * throwing or aborting `signal` destroys the HTTP body. Bad `sendInitialEvents`/`resourceVersionMatch`
   * combinations throw a TypeError at once.
   */
  watch(namespace: string | undefined, options: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
    const path = this.#path('watch', namespace);
    validateWatchOptions(options);
    return { [Symbol.asyncIterator]: () => this.#watch(path, options) };
  }

  /**
   * The same watch as {@link Client.watch}, read a body chunk at a time: each value is the events of one chunk
   * of the response, in order, never empty. Errors, and their order, are `watch`'s (the events before a
   * malformed line or an ERROR event come first as one batch). A consumer that applies each chunk's events
   * synchronously (the cache's reflector) pays one promise turn per chunk instead of one per event.
   *
   * @example
   * ```ts
   * declare const configMaps: Client<KubeObject>;
   * for await (const batch of configMaps.watchBatches('default', { signal })) {
   *   for (const event of batch) logger.info(event.type, { name: event.object.metadata?.name });
   * }
   * ```
   */
  watchBatches(
    namespace: string | undefined,
    options: WatchOptions = {},
  ): AsyncIterable<WatchEvent<T>[]> {
    const path = this.#path('watch', namespace);
    validateWatchOptions(options);
    return { [Symbol.asyncIterator]: () => watchBatchStream<T>(this.#watchInit(path, options)) };
  }

  /** One object by name. */
  async get(namespace: string | undefined, name: string, options: RequestOptions = {}): Promise<T> {
    const request: RestRequest = {
      method: 'GET',
      path: this.#path('get', this.#requireNamespace(namespace), requireName(name)),
    };
    return this.#object(request, options);
  }

  /** Create an object; the namespace defaults to `object.metadata.namespace`. */
  async create(namespace: string | undefined, object: T, options: WriteOptions = {}): Promise<T> {
    const ns = this.#requireNamespace(namespace || object.metadata?.namespace);
    return this.#object(
      {
        method: 'POST',
        path: this.#path('create', ns),
        query: writeQuery(options),
        body: this.#outgoing(object),
      },
      options,
    );
  }

  /** Replace an object (optimistic concurrency on `metadata.resourceVersion`: 409 when stale). */
  async update(namespace: string | undefined, object: T, options: WriteOptions = {}): Promise<T> {
    return this.#put(namespace, object, options, []);
  }

  /** Replace the status subresource of an object. */
  async updateStatus(
    namespace: string | undefined,
    object: T,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.#put(namespace, object, options, ['status']);
  }

  /** Delete an object. Resolves once the server accepted the delete (finalizers may keep it). */
  async delete(
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): Promise<void> {
    await this.#json<unknown>(
      {
        method: 'DELETE',
        path: this.#path('delete', this.#requireNamespace(namespace), requireName(name)),
        query: options.dryRun ? { dryRun: 'All' } : undefined,
        body: deleteBody(options),
      },
      options,
    );
  }

  /** Delete every object matching the selectors in `namespace` (all namespaces when empty). */
  async deleteCollection(
    namespace: string | undefined,
    options: ListOptions & DeleteOptions = {},
  ): Promise<void> {
    await this.#json<unknown>(
      {
        method: 'DELETE',
        path: this.#path('deleteCollection', namespace),
        query: {
          ...listQuery(options),
          ...(options.dryRun ? { dryRun: 'All' } : {}),
        },
        body: deleteBody(options),
      },
      options,
    );
  }

  /**
   * Patch an object or one of its subresources. `data` is sent as JSON (`apply` too: JSON is YAML).
   * `apply` needs `fieldManager`; `force` takes conflicting fields over.
   */
  async patch(
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    data: unknown,
    options: PatchOptions = {},
    ...subresources: string[]
  ): Promise<T> {
    const contentType = PATCH_CONTENT_TYPES[patchType];
    if (contentType === undefined) {
      throw new TypeError(
        `Client.patch: patchType must be json, merge, strategic-merge or apply, got ${String(patchType)}`,
      );
    }
    if (patchType === 'apply' && !options.fieldManager) {
      throw new TypeError('Client.patch: fieldManager is required for apply patches');
    }
    return this.#object(
      {
        method: 'PATCH',
        path: this.#path(
          'patch',
          this.#requireNamespace(namespace),
          requireName(name),
          subresources,
        ),
        query: {
          fieldManager: options.fieldManager,
          force: patchType === 'apply' && options.force ? true : undefined,
          dryRun: options.dryRun ? 'All' : undefined,
        },
        body: data,
        contentType,
      },
      options,
    );
  }

  /** Server-side apply of `object` (its `metadata.name`) as `fieldManager`. */
  async apply(
    namespace: string | undefined,
    object: T,
    options: PatchOptions & { fieldManager: string },
  ): Promise<T> {
    const ns = namespace || object.metadata?.namespace;
    return this.patch(
      ns,
      requireName(object.metadata?.name),
      'apply',
      this.#outgoing(object),
      options,
    );
  }

  /**
   * Check this client's `gvr`, `kind` and `namespaced` against the server's discovery (through
   * `mapper`, whose cache makes repeated checks free). Throws a TypeError naming both sides of every
   * disagreement, e.g. `widgets is namespaced on the server but was declared namespaced: false`; a
   * resource the server does not serve rejects with `LASSO_NO_KIND_MATCH` from the mapper.
   *
   * The constructor already checks built-in resources against {@link builtinKinds} without I/O;
   * `verify` is for the others (custom resources, aggregated APIs). It is explicit, so no request
   * pays for it: call it once at start-up. Clients from `clientForKind` are right by construction.
   *
   * @example
   * ```ts
   * const widgets = new Client({ gvr: { group: 'example.com', version: 'v1', resource: 'widgets' }, kind: 'Widget', namespaced: true, rest });
   * await widgets.verify(createRestMapper(rest), { signal });
   * ```
   */
  async verify(
    mapper: RestMapper,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<void> {
    const served = await mapper.mappingFor(this.gvr, options);
    const { resource } = this.gvr;
    const problems: string[] = [];
    // The mapper also resolves singular and short names, which the URL of a request does not.
    if (served.gvr.resource !== resource) {
      problems.push(
        `${served.gvr.resource} is the resource on the server but was declared resource: '${resource}'`,
      );
    }
    if (served.gvk.kind !== this.kind) {
      problems.push(
        `${resource} holds kind ${served.gvk.kind} on the server but was declared kind: '${this.kind}'`,
      );
    }
    if (served.namespaced !== this.namespaced) {
      problems.push(
        `${resource} is ${scope(served.namespaced)} on the server but was declared namespaced: ${this.namespaced}`,
      );
    }
    if (problems.length > 0)
      throw new TypeError(`Client(${this.apiVersion}): ${problems.join('; ')}`);
  }

  /** The same client sending `userAgent` as its User-Agent. */
  withUserAgent(userAgent: string): Client<T> {
    if (typeof userAgent !== 'string' || userAgent === '') {
      throw new TypeError('Client.withUserAgent: userAgent must be a non-empty string');
    }
    return new Client<T>({ ...this.#options, rest: this.transport, userAgent });
  }

  /** The same client acting as another user (`Impersonate-User` / `-Group` / `-Extra-*`). */
  withImpersonation(who: Impersonation): Client<T> {
    if (typeof who?.user !== 'string' || who.user === '') {
      throw new TypeError('Client.withImpersonation: user must be a non-empty string');
    }
    return new Client<T>({ ...this.#options, rest: this.transport, impersonation: who });
  }

  async #put(
    namespace: string | undefined,
    object: T,
    options: WriteOptions,
    subresources: string[],
  ): Promise<T> {
    const ns = this.#requireNamespace(namespace || object.metadata?.namespace);
    return this.#object(
      {
        method: 'PUT',
        path: this.#path(
          subresources.length > 0 ? 'updateStatus' : 'update',
          ns,
          requireName(object.metadata?.name),
          subresources,
        ),
        query: writeQuery(options),
        body: this.#outgoing(object),
      },
      options,
    );
  }

  #logger(): Logger {
    return guardLogger(this.transport.config.logger ?? defaultLogger);
  }

  #json<R>(
    request: RestRequest,
    options: RequestOptions & { progressTimeoutMs?: number | undefined },
  ): Promise<R> {
    // The client's default total deadline goes only to the requests the policy gives one; the request is classified
    // (a path parse) only when that default applies, since the transport classifies it again.
    const defaultTimeoutMs = this.#options.defaultTimeoutMs;
    const timeoutMs =
      options.timeoutMs ??
      (defaultTimeoutMs !== undefined &&
      TIMEOUT_POLICY[requestClassOf(request.method, request.path, request.query)].deadline ===
        'request'
        ? defaultTimeoutMs
        : undefined);
    return this.transport.requestJson<R>({
      ...request,
      signal: options.signal,
      timeoutMs,
      progressTimeoutMs: options.progressTimeoutMs,
      userAgent: this.#options.userAgent,
      impersonation: this.#options.impersonation,
      maxResponseBytes: this.#options.maxResponseBytes,
    });
  }

  /** A request whose answer must be one object (get, create, update, patch). */
  async #object(request: RestRequest, options: RequestOptions): Promise<T> {
    return this.#fill(checkObject<T>(await this.#json<unknown>(request, options), request));
  }

  #watch(path: string, options: WatchOptions): AsyncGenerator<WatchEvent<T>> {
    return watchStream<T>(this.#watchInit(path, options));
  }

  #watchInit(path: string, options: WatchOptions): WatchStreamInit<T> {
    return {
      transport: this.transport,
      path,
      options,
      clock: this.#clock,
      resource: this.gvr.resource,
      maxWatchEventBytes: this.#maxWatchEventBytes,
      userAgent: this.#options.userAgent,
      impersonation: this.#options.impersonation,
      fill: (object) => this.#fill(object),
    };
  }

  #fill(object: T): T {
    if (typeof object === 'object' && object !== null) {
      const target = object as unknown as KubeObject;
      if (!target.apiVersion) target.apiVersion = this.apiVersion;
      if (!target.kind) target.kind = this.kind;
    }
    return object;
  }

  /** The object as sent: apiVersion and kind filled so the server accepts a bare object. */
  #outgoing(object: T): T {
    if (object.apiVersion && object.kind) return object;
    return {
      ...object,
      apiVersion: object.apiVersion || this.apiVersion,
      kind: object.kind || this.kind,
    };
  }

  #requireNamespace(namespace: string | undefined): string | undefined {
    if (!this.namespaced) return undefined;
    if (namespace === '' || namespace === undefined || namespace === null) {
      throw new TypeError(
        `Client(${this.gvr.resource}): a namespace is required for a namespaced resource`,
      );
    }
    return namespace;
  }

  /**
   * The request path; every part is checked as a path segment first (client-go's `Name`,
   * `Namespace` and `SubResource`): `.`, `..`, a `/` or a `%` throw a TypeError naming `verb`.
   */
  #path(
    verb: string,
    namespace: string | undefined,
    name?: string,
    subresources: string[] = [],
  ): string {
    const where = `Client(${this.gvr.resource}).${verb}`;
    const { group, version, resource } = this.gvr;
    let path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    // `''`, undefined (and null from JavaScript) mean all namespaces; cluster scope ignores it.
    if (this.namespaced && namespace !== undefined && namespace !== null && namespace !== '') {
      path += `/namespaces/${encodeURIComponent(checkPathSegment(namespace, 'namespace', where))}`;
    }
    path += `/${resource}`;
    if (name !== undefined) path += `/${encodeURIComponent(checkPathSegment(name, 'name', where))}`;
    for (const sub of subresources) {
      path += `/${encodeURIComponent(checkPathSegment(sub, 'subresource', where))}`;
    }
    return path;
  }
}

/**
 * Refuse a triple that disagrees with the built-in table: a namespaced resource declared cluster-scoped
 * lists every namespace when asked for one, and a wrong kind is stamped on every object read. A Map
 * lookup per client, no I/O; resources outside the table pass (see {@link Client.verify}).
 */
function checkBuiltin(
  apiVersion: string,
  resource: string,
  kind: string,
  namespaced: boolean,
): void {
  const known = builtinEntries(apiVersion, resource, kind);
  const problems: string[] = [];
  if (known.byResource !== undefined) {
    if (known.byResource.kind !== kind) {
      problems.push(
        `${resource} holds kind ${known.byResource.kind} but was declared kind: '${kind}'`,
      );
    }
    if (known.byResource.namespaced !== namespaced) {
      problems.push(
        `${resource} is ${scope(known.byResource.namespaced)} but was declared namespaced: ${namespaced}`,
      );
    }
  } else if (known.byKind !== undefined) {
    problems.push(
      `kind ${kind} is served as ${known.byKind.resource} but was declared resource: '${resource}'`,
    );
  }
  if (problems.length > 0) {
    throw new TypeError(`Client(${apiVersion}, built-in): ${problems.join('; ')}`);
  }
}

function scope(namespaced: boolean): string {
  return namespaced ? 'namespaced' : 'cluster-scoped';
}

/** `namespace/name`, the identity an object keeps across list snapshots. */
function objectKey(object: KubeObjectLike): string | undefined {
  const name = object.metadata?.name;
  return name ? `${object.metadata?.namespace ?? ''}/${name}` : undefined;
}

function requireName(name: string | undefined): string {
  if (typeof name !== 'string' || name === '') {
    throw new TypeError('Client: a non-empty name (metadata.name) is required');
  }
  return name;
}

/** The Accept header of a metadata-only list (client-go's metadata client, JSON only). */
const metadataListAccept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

function listQuery(options: ListOptions): QueryParams {
  return {
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    shardSelector: options.shardSelector,
    limit: options.limit,
    continue: options.continue,
    resourceVersion: options.resourceVersion,
    resourceVersionMatch: options.resourceVersionMatch,
  };
}

function writeQuery(options: WriteOptions): QueryParams {
  return { fieldManager: options.fieldManager, dryRun: options.dryRun ? 'All' : undefined };
}

function deleteBody(options: DeleteOptions): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'DeleteOptions',
    ...(options.propagationPolicy !== undefined
      ? { propagationPolicy: options.propagationPolicy }
      : {}),
    ...(options.preconditions !== undefined ? { preconditions: options.preconditions } : {}),
    ...(options.gracePeriodSeconds !== undefined
      ? { gracePeriodSeconds: options.gracePeriodSeconds }
      : {}),
  };
}
