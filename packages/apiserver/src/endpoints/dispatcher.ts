// The local API server's router: a request arrives classified (request-info.ts) and authorized
// (filters/); non-resource paths (/version, health, discovery, OpenAPI) are answered here, resource
// requests are routed (routes.ts: 404 and 405) and dispatched to one handler per verb (handlers/*.ts).
// What a kind does on each verb lives in its strategy (strategies/*.ts), what every kind shares in
// generic-registry.ts.
import { type Clock, defaultLogger, type Logger } from '@lasso/core';
import { conversionWebhookOf, convertThroughWebhook } from '../admission/conversion.ts';
import { reviewOptions, serveAdmitted } from '../admission/replay.ts';
import {
  type AdmissionEnvironment,
  anyWebhooks,
  type RequestFacts,
} from '../admission/webhook-dispatch.ts';
import { orderKeys } from '../apimachinery/key-order.ts';
import { omitEmpty } from '../apimachinery/omit-empty.ts';
import { methodNotAllowed, pathNotFound, StatusError } from '../apimachinery/status.ts';
import type { UserInfo } from '../authentication/authenticate.ts';
import { ServiceAccountTokens } from '../authentication/service-account-tokens.ts';
import { decodeDeleteOptions } from '../decoding/decode.ts';
import { OpenApiPublisher, type OpenApiSource } from '../openapi/documents.ts';
import { routeOpenApi } from '../openapi/openapi-endpoints.ts';
import { recordManagedFields } from '../patch/patch-request.ts';
import { admitRbacWrite } from '../rbac/admission.ts';
import { ClusterIpAllocator } from '../registry/cluster-ips.ts';
import {
  type DryRunOptionsKind,
  deleteIsDryRun,
  isDryRun,
  withDryRun,
} from '../registry/dry-run.ts';
import { createObject, toStored, toVersion } from '../registry/generic-registry.ts';
import type { ApiRequest, ApiResult, ServerContext } from '../registry/server-context.ts';
import { timestamp } from '../registry/server-context.ts';
import type { RequestInfo, ResourceRequestInfo, Verb } from '../request/request-info.ts';
import { apiVersionOf, type ResourceInfo, storageKey } from '../resources/builtin-resources.ts';
import type { Registry } from '../resources/served-resources.ts';
import type { KubeObject, Store } from '../storage/store.ts';
import { WatchFanout } from '../storage/watch-fanout.ts';
import { strategyFor } from '../strategies/by-resource.ts';
import { createOnlyResource } from '../strategies/create-only.ts';
import { typeDefinitions } from '../types/index.ts';
import { requireNegotiable, requireRouteAcceptable } from './accept.ts';
import * as discovery from './discovery.ts';
import { handleCreate } from './handlers/create.ts';
import { handleDelete } from './handlers/delete.ts';
import { handleDeleteCollection } from './handlers/delete-collection.ts';
import { handleGet } from './handlers/get.ts';
import { handleList } from './handlers/list.ts';
import { handlePatch } from './handlers/patch.ts';
import { handleUpdate } from './handlers/update.ts';
import { handleWatch } from './handlers/watch.ts';
import { requireValidPathName } from './path-names.ts';
import { pageNotFound, routeResource, unservedApiPath } from './routes.ts';

const crdResource = { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' };

type Handler = (context: ServerContext, request: ResourceRequestInfo, raw: ApiRequest) => ApiResult;

/** One handler per verb, as kube's API installer registers them per route. */
const handlers: Record<Verb, Handler> = {
  get: handleGet,
  list: handleList,
  watch: handleWatch,
  create: handleCreate,
  update: handleUpdate,
  patch: handlePatch,
  delete: handleDelete,
  deletecollection: handleDeleteCollection,
};

/** The options type of each write whose dryRun comes from the query alone. */
const writeOptions: Partial<Record<Verb, DryRunOptionsKind>> = {
  create: 'CreateOptions',
  update: 'UpdateOptions',
  patch: 'PatchOptions',
};

/** Writes that admission webhooks may see. */
const admittedVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** Requests whose objects a CRD's conversion webhook converts (watches: as their events stream). */
const convertedVerbs = new Set([...admittedVerbs, 'get', 'list']);

/** Changes the context one request is served with (admission/replay.ts runs a request several times). */
type ContextOverride = (context: ServerContext, request: ResourceRequestInfo) => ServerContext;

/** The API of the local server: every request in, a result or a thrown StatusError out. */
export class ApiCore {
  readonly #context: ServerContext;
  readonly #tokens: ServiceAccountTokens;
  readonly #admission: AdmissionEnvironment;
  /** Aborted (and replaced) when the server stops: cancels the webhook calls in flight. */
  #calls = new AbortController();
  #openapiPublisher: OpenApiPublisher | undefined;

  constructor(options: {
    clock: Clock;
    registry: Registry;
    store: Store;
    serverAddress: () => string;
    logger?: Logger;
    shardedListAndWatch?: boolean;
  }) {
    const { clock } = options;
    this.#tokens = new ServiceAccountTokens({ store: options.store, clock });
    this.#context = {
      clock,
      registry: options.registry,
      store: options.store,
      tokens: this.#tokens,
      watches: new WatchFanout(),
      strategyFor,
      clusterIps: new ClusterIpAllocator(),
      serverAddress: options.serverAddress,
      now: () => timestamp(clock.now()),
      dryRun: false,
      shardedListAndWatch: options.shardedListAndWatch !== false,
      unknownFields: (gvk, object) =>
        this.#openapi.unknownFields(this.#openapiSource(), gvk, object),
    };
    const context = this.#context;
    const calls = (): AbortSignal => this.#calls.signal;
    this.#admission = {
      clock,
      logger: options.logger ?? defaultLogger,
      get signal() {
        return calls();
      },
      registry: options.registry,
      store: options.store,
      // Webhooks get objects as kube serializes them: Go's omitempty and field order.
      toVersion: (info, object) => orderKeys(omitEmpty(toVersion(context, info, object))),
      toStored: (info, object) => toStored(context, info, structuredClone(object)),
    };
  }

  /**
   * Serve one request as {@link ApiCore.handle} does, calling the admission webhooks the stored
   * Mutating- and ValidatingWebhookConfigurations name on writes (admission/). Read at every write, so a
   * configuration takes effect with the write that stores it.
   */
  async handleAdmitted(info: RequestInfo, request: ApiRequest): Promise<ApiResult> {
    // Create-only subresources (TokenRequest, Eviction, Binding) reach no admission point here, and a
    // dry-run pass of a TokenRequest would issue a token nobody receives.
    const createOnly =
      info.verb === 'create' &&
      createOnlyResource(info.apiGroup, info.resource, info.subresource || undefined) !== undefined;
    if (!info.isResourceRequest || createOnly) return this.handle(info, request);
    if (info.verb === 'watch' && this.#convertsThroughWebhook(info)) {
      return this.handle(info, request, (context, parsed) => ({
        ...context,
        convertEvents: (objects, signal) => this.#convertEvents(parsed.info, objects, signal),
      }));
    }
    const admitted = admittedVerbs.has(info.verb) && anyWebhooks(this.#admission);
    if (!admitted && !(convertedVerbs.has(info.verb) && this.#convertsThroughWebhook(info))) {
      return this.handle(info, request);
    }
    let facts: RequestFacts | undefined;
    const now = this.#context.now();
    const { result, warnings } = await serveAdmitted(
      this.#admission,
      () => facts,
      (hooks, probe) =>
        this.handle(info, request, (context, parsed) => {
          facts ??= requestFacts(parsed, request);
          const admitted: ServerContext = { ...context, admission: hooks, now: () => now };
          return probe ? withDryRun(admitted) : admitted;
        }),
    );
    if (warnings.length === 0 || result.type !== 'json') return result;
    return { ...result, warnings: [...(result.warnings ?? []), ...warnings] };
  }

  /** The OpenAPI documents, built at their first use (most servers in tests never need them). */
  get #openapi(): OpenApiPublisher {
    this.#openapiPublisher ??= new OpenApiPublisher({
      types: typeDefinitions,
      version: discovery.builtinVersion.gitVersion,
    });
    return this.#openapiPublisher;
  }

  /** True when the request's custom resource converts through its CRD's webhook. */
  #convertsThroughWebhook(info: RequestInfo): boolean {
    const served = this.#context.registry.lookup(info.apiGroup, info.apiVersion, info.resource);
    return served !== undefined && conversionWebhookOf(this.#admission, served) !== undefined;
  }

  /** Cancel every webhook call in flight (the server stops): each fails as its timeout would. */
  cancelWebhookCalls(): void {
    this.#calls.abort();
    this.#calls = new AbortController();
  }

  /**
   * A watch's stored objects in `info`'s version through the CRD's webhook (read at each batch, as a
   * CRD update applies at once); objects already in that version are not sent.
   */
  async #convertEvents(
    info: ResourceInfo,
    objects: KubeObject[],
    signal: AbortSignal,
  ): Promise<KubeObject[] | StatusError> {
    const webhook = conversionWebhookOf(this.#admission, info);
    const apiVersion = apiVersionOf(info);
    const needed = objects.filter((object) => object.apiVersion !== apiVersion);
    if (webhook === undefined || needed.length === 0) return objects;
    const stopped = this.#calls.signal;
    const converted = await convertThroughWebhook(
      this.#admission,
      webhook,
      needed,
      apiVersion,
      AbortSignal.any([signal, stopped]),
    );
    if (converted instanceof StatusError) {
      if (!signal.aborted && !stopped.aborted) {
        this.#admission.logger.info('watch ended: conversion webhook failed', {
          crd: webhook.crd,
          error: converted.message,
        });
      }
      return converted;
    }
    let next = 0;
    return objects.map((object) =>
      object.apiVersion === apiVersion ? object : (converted[next++] as KubeObject),
    );
  }

  /** The service account a TokenRequest token authenticates as; undefined once expired or revoked. */
  authenticateToken(token: string): UserInfo | undefined {
    return this.#tokens.authenticate(token);
  }

  /** Create what kube-apiserver creates at startup: the default, kube-system, kube-public and kube-node-lease namespaces. */
  bootstrap(): void {
    const context = this.#context;
    const info = context.registry.lookup('', 'v1', 'namespaces')!;
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
      createObject(context, info, '', namespace, (prepared) =>
        recordManagedFields(undefined, prepared, {
          fieldManager: 'kube-apiserver',
          time: context.now(),
        }),
      );
    }
  }

  /** What the OpenAPI documents are built from: the served resources and the stored CRDs. */
  #openapiSource(): OpenApiSource {
    return {
      registry: this.#context.registry,
      crds: () => this.#context.store.list(storageKey(crdResource), undefined),
    };
  }

  /**
   * Serve one request, classified as `info` and already authorized. Throws {@link StatusError} for every
   * failure kube-apiserver reports as a Status.
   */
  handle(info: RequestInfo, request: ApiRequest, override?: ContextOverride): ApiResult {
    // `//api/...` matches no route prefix (kube's RequestInfo trims the slashes, its router does not).
    if (request.url.pathname.startsWith('//')) return pageNotFound;
    if (!info.isResourceRequest) return this.#nonResource(request);
    const { apiGroup, apiVersion, resource } = info;
    if (
      info.apiPrefix === 'apis' &&
      unservedApiPath(this.#context.registry, apiGroup, apiVersion, resource)
    ) {
      return pageNotFound;
    }
    const parsed = routeResource(info, request.method, this.#context.registry);
    if (parsed.info.builtin) requireRouteAcceptable(request);
    requireValidPathName(parsed);
    if (!parsed.info.builtin) requireNegotiable(request);
    // RBAC objects also may not escalate.
    admitRbacWrite(this.#context, parsed, request);
    // Deletes read dryRun from their DeleteOptions (body or query), in the delete handlers.
    const optionsKind = writeOptions[parsed.verb];
    const dryRun =
      optionsKind !== undefined && isDryRun(parsed.query.getAll('dryRun'), optionsKind);
    const context = dryRun ? withDryRun(this.#context) : this.#context;
    return handlers[parsed.verb](override?.(context, parsed) ?? context, parsed, request);
  }

  #nonResource(request: ApiRequest): ApiResult {
    const path = request.url.pathname.replace(/\/+$/, '') || '/';
    const segments = path.split('/').filter((segment) => segment !== '');
    // No non-resource path has a dot segment or an empty one: nothing resolves them to another path.
    if (/(^|\/)\.{1,2}(\/|$)|\/\//.test(path)) return pageNotFound;
    const registry = this.#context.registry;
    if (
      segments[0] === 'apis' &&
      segments.length > 1 &&
      unservedApiPath(registry, segments[1]!, segments[2])
    ) {
      return pageNotFound;
    }
    if (segments[0] === 'api' || segments[0] === 'apis') {
      getOnly(request);
      let document: unknown;
      if (segments[0] === 'api') {
        document =
          segments.length === 1
            ? discovery.coreVersions(this.#context.serverAddress())
            : discovery.resourceList(registry, '', segments[1]!);
      } else if (segments.length === 1) {
        document = discovery.groupList(registry);
      } else if (segments.length === 2) {
        document = discovery.group(registry, segments[1]!);
      } else {
        document = discovery.resourceList(registry, segments[1]!, segments[2]!);
      }
      if (document === undefined) throw pathNotFound();
      requireRouteAcceptable(request);
      return { type: 'json', code: 200, body: document };
    }
    if (path === '/version') {
      getOnly(request);
      requireRouteAcceptable(request);
      return { type: 'json', code: 200, body: discovery.builtinVersion };
    }
    const openapi = routeOpenApi(request, {
      ...this.#openapiSource(),
      publisher: this.#openapi,
      now: () => this.#context.clock.now(),
    });
    if (openapi !== undefined) return { type: 'raw', ...openapi };
    if (/^\/(healthz|readyz|livez)(\/.*)?$/.test(path)) {
      getOnly(request);
      return { type: 'text', code: 200, body: 'ok' };
    }
    // /version is a go-restful web service: a path under it gets go-restful's 404 Status. Every other
    // path falls through kube-apiserver's chain to the final delegate's plain-text 404.
    if (path.startsWith('/version/')) throw pathNotFound();
    return pageNotFound;
  }
}

/** Discovery, version and health documents answer GET (and HEAD) alone. */
function getOnly(request: ApiRequest): void {
  if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed();
}

/** What admission needs to know of a routed write. */
function requestFacts(parsed: ResourceRequestInfo, request: ApiRequest): RequestFacts {
  const isNamespace = parsed.info.group === '' && parsed.info.resource === 'namespaces';
  // A Namespace's own requests carry its name as their namespace (kube's RequestInfo), except a create.
  const namespace = isNamespace ? (parsed.name ?? '') : (parsed.namespace ?? '');
  const deletes = parsed.verb === 'delete' || parsed.verb === 'deletecollection';
  const deleteOptions = deletes ? decodeDeleteOptions(request) : undefined;
  const dryRun = deletes
    ? deleteIsDryRun(deleteOptions ?? {}, request.body, parsed.query)
    : parsed.query.getAll('dryRun').length > 0;
  return {
    info: parsed.info,
    subresource: parsed.subresource ?? '',
    namespace,
    name: parsed.name ?? '',
    user: request.user,
    dryRun,
    options: (operation) => reviewOptions(operation, parsed.query, deleteOptions),
  };
}
