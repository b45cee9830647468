// The REST semantics of the local API server: routing, CRUD, patch, delete with finalizers, list with
// selectors and pagination, watch; ports the observable behaviour of k8s.io/apiserver's generic registry.
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { type Clock, errorMessage } from '@lasso/core';
import {
  type FieldRequirement,
  type LabelRequirement,
  matchesFieldSelector,
  matchesLabelSelector,
  parseFieldSelector,
  parseLabelSelector,
  SelectorParseError,
} from './selectors.ts';
import { type FieldCause, validateObjectMeta } from './validation.ts';
import { authorize, type UserInfo } from './auth.ts';
import {
  crdResources,
  establishedStatus,
  pruneObject,
  schemaOf,
  validateAgainstSchema,
  validateCrd,
} from './crds.ts';
import * as discovery from './discovery.ts';
import { eventsV1ToEvent, eventToEventsV1, isEventsV1 } from './events.ts';
import {
  applyConflictError,
  checkNestingDepth,
  computePatch,
  parseApplyBody,
  recordManagedFields,
  runApply,
} from './patching.ts';
import type { Registry } from './registry.ts';
import { apiVersionOf, type ResourceInfo, storageKey } from './resources.ts';
import {
  alreadyExists,
  badRequest,
  conflict,
  expired,
  failure,
  invalid,
  methodNotAllowed,
  namespaceTerminating,
  notFound,
  pathNotFound,
  StatusError,
  tooLargeResourceVersion,
  unsupportedMediaType,
} from './status.ts';
import {
  CompactedError,
  type HistoryEvent,
  type KubeObject,
  type Snapshot,
  type Store,
} from './storage.ts';
import { ServiceAccountTokens } from './tokens.ts';

type Json = Record<string, unknown>;

/** A request after transport concerns (TLS, auth, body limits) are handled. */
export interface ApiRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
  user: UserInfo;
}

/** A running watch: stop it, or ask it to send a bookmark now. */
export interface WatchControl {
  stop(): void;
  bookmark(): void;
}

/** What a watch request streams. */
export interface WatchPlan {
  timeoutMs: number | undefined;
  bookmarks: boolean;
  /** Storage key watched (watches end when their CRD is deleted). */
  key: string;
  start(send: (event: unknown) => void, end: () => void): WatchControl;
}

/** The outcome of a request. */
export type ApiResult =
  | { type: 'json'; code: number; body: unknown }
  | { type: 'text'; code: number; body: string }
  | { type: 'watch'; plan: WatchPlan };

const crdInfo = { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' };
const crdKey = storageKey(crdInfo);
const namespacesKey = '/namespaces';
const continueTooOld =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';
const generateNameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function metaOf(object: Json): Json {
  if (!isRecord(object.metadata)) object.metadata = {};
  return object.metadata as Json;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** JSON with sorted keys, for "did anything change" comparisons. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value)) {
    return `{${Object.keys(value)
      .sort()
      .filter((key) => value[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * ValidateListOptions of k8s.io/apimachinery's internalversion/validation: resourceVersionMatch and
 * sendInitialEvents combinations kube-apiserver refuses with 422 Invalid ListOptions.meta.k8s.io.
 */
function validateListOptions(query: URLSearchParams, watch: boolean): void {
  const match = query.get('resourceVersionMatch') ?? '';
  const rv = query.get('resourceVersion') ?? '';
  const hasContinue = (query.get('continue') ?? '') !== '';
  const initialEvents = query.get('sendInitialEvents');
  const causes: Array<{ type: string; message: string; field: string }> = [];
  const forbidden = (field: string, detail: string): void => {
    causes.push({ type: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field });
  };
  const notSupported = (supported: string[]): void => {
    causes.push({
      type: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(match)}: supported values: ${supported.map((value) => JSON.stringify(value)).join(', ')}`,
      field: 'resourceVersionMatch',
    });
  };
  if (watch) {
    if (initialEvents !== null && match !== 'NotOlderThan') {
      forbidden(
        'resourceVersionMatch',
        'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      );
    }
    if (match !== '') {
      if (initialEvents === null) {
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        );
      }
      if (match !== 'NotOlderThan') notSupported(['NotOlderThan']);
      if (hasContinue) {
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden when continue is provided',
        );
      }
    }
  } else {
    if (match !== '') {
      if (rv === '') {
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden unless resourceVersion is provided',
        );
      }
      if (hasContinue) {
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden when continue is provided',
        );
      }
      if (match !== 'Exact' && match !== 'NotOlderThan')
        notSupported(['Exact', 'NotOlderThan', '']);
      if (match === 'Exact' && rv === '0') {
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        );
      }
    }
    if (initialEvents !== null)
      forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list');
  }
  if (causes.length > 0) throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', causes);
}

const objectMetaFields = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);
const specAndStatus = ['spec', 'status'];
/** Top-level fields of the built-in kinds, by `group/resource` (the rest: spec and status). */
const builtinTopLevelFields: Record<string, string[]> = {
  '/configmaps': ['data', 'binaryData', 'immutable'],
  '/secrets': ['data', 'stringData', 'type', 'immutable'],
  '/serviceaccounts': ['secrets', 'imagePullSecrets', 'automountServiceAccountToken'],
  '/events': [
    'involvedObject',
    'reason',
    'message',
    'source',
    'firstTimestamp',
    'lastTimestamp',
    'count',
    'type',
    'eventTime',
    'series',
    'action',
    'related',
    'reportingComponent',
    'reportingInstance',
  ],
  'events.k8s.io/events': [
    'eventTime',
    'series',
    'reportingController',
    'reportingInstance',
    'action',
    'reason',
    'regarding',
    'related',
    'note',
    'type',
    'deprecatedSource',
    'deprecatedFirstTimestamp',
    'deprecatedLastTimestamp',
    'deprecatedCount',
  ],
  'coordination.k8s.io/leases': ['spec'],
};

/**
 * Drop top-level and ObjectMeta fields a built-in Go type does not have, as kube-apiserver's typed
 * decoding does (fieldValidation Warn/Ignore), so what is stored matches a real server.
 */
function pruneBuiltinFields(
  info: Pick<ResourceInfo, 'group' | 'resource'>,
  object: KubeObject,
): void {
  const known = builtinTopLevelFields[`${info.group}/${info.resource}`] ?? specAndStatus;
  for (const key of Object.keys(object)) {
    if (key !== 'apiVersion' && key !== 'kind' && key !== 'metadata' && !known.includes(key)) {
      delete object[key];
    }
  }
  if (isRecord(object.metadata)) {
    for (const key of Object.keys(object.metadata)) {
      if (!objectMetaFields.has(key)) delete object.metadata[key];
    }
  }
}

/**
 * Secret.stringData is write-only: v1 -> internal conversion copies each entry into `data`
 * (base64 on the wire), overriding `data`, and never stores stringData itself.
 */
function foldStringData(secret: KubeObject): void {
  const stringData = secret.stringData;
  delete secret.stringData;
  if (!isRecord(stringData)) return;
  const data = isRecord(secret.data) ? secret.data : {};
  for (const [key, value] of Object.entries(stringData)) {
    if (typeof value === 'string') data[key] = Buffer.from(value, 'utf8').toString('base64');
  }
  secret.data = data;
}

/** Go's %#v of a map[string]string, as field.Invalid prints it in kube-apiserver 1.30. */
function goStringMap(value: unknown): string {
  if (!isRecord(value)) return 'map[string]string(nil)';
  const entries = Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${JSON.stringify(String(value[key]))}`);
  return `map[string]string{${entries.join(', ')}}`;
}

/**
 * The selector rules every apps/v1 workload shares (ValidateDeploymentSpec and its ReplicaSet,
 * StatefulSet and DaemonSet siblings): a selector is required and must match the template labels.
 */
function validateWorkloadSelector(
  object: KubeObject,
): Array<{ type: string; message: string; field: string }> {
  const spec = isRecord(object.spec) ? object.spec : {};
  const selector = spec.selector;
  if (!isRecord(selector)) {
    return [{ type: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' }];
  }
  const requirements: LabelRequirement[] = [];
  if (isRecord(selector.matchLabels)) {
    for (const [key, value] of Object.entries(selector.matchLabels)) {
      requirements.push({ key, operator: '=', values: [String(value)] });
    }
  }
  const operators: Record<string, LabelRequirement['operator']> = {
    In: 'in',
    NotIn: 'notin',
    Exists: 'exists',
    DoesNotExist: '!',
  };
  for (const expression of Array.isArray(selector.matchExpressions)
    ? selector.matchExpressions
    : []) {
    if (!isRecord(expression)) continue;
    const operator = operators[String(expression.operator)];
    if (operator === undefined) return []; // the selector itself is invalid; other checks report it
    requirements.push({
      key: String(expression.key),
      operator,
      values: Array.isArray(expression.values) ? expression.values.map(String) : [],
    });
  }
  if (requirements.length === 0) return []; // an empty selector has its own message in kube
  const template = isRecord(spec.template) ? spec.template : {};
  const templateMeta = isRecord(template.metadata) ? template.metadata : {};
  const labels = isRecord(templateMeta.labels) ? templateMeta.labels : undefined;
  const asStrings =
    labels === undefined
      ? undefined
      : Object.fromEntries(Object.entries(labels).map(([key, value]) => [key, String(value)]));
  if (matchesLabelSelector(requirements, asStrings)) return [];
  return [
    {
      type: 'FieldValueInvalid',
      message: `Invalid value: ${goStringMap(labels)}: \`selector\` does not match template \`labels\``,
      field: 'spec.template.metadata.labels',
    },
  ];
}

function parseJsonBody(body: Buffer): unknown {
  try {
    return checkNestingDepth(JSON.parse(body.toString('utf8')));
  } catch (error) {
    throw badRequest(
      `couldn't get version/kind; json parse error: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** A create/update body as JSON or YAML by Content-Type; 415 for anything else, as kube-apiserver. */
function decodeBody(request: ApiRequest): unknown {
  const contentType = (stringOf(request.headers['content-type']) ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (contentType === '' || contentType === 'application/json' || contentType === '*/*') {
    return parseJsonBody(request.body);
  }
  if (contentType === 'application/yaml') {
    const parsed = parseApplyBody(request.body);
    return parsed;
  }
  throw unsupportedMediaType([
    'application/json',
    'application/yaml',
    'application/vnd.kubernetes.protobuf',
  ]);
}

function getPath(object: unknown, path: string): unknown {
  let current: unknown = object;
  for (const part of path.split('.')) {
    if (!isRecord(current)) return undefined;
    current = current[part];
  }
  return current;
}

function setPath(object: Json, path: string, value: unknown): void {
  const parts = path.split('.');
  let current = object;
  for (const part of parts.slice(0, -1)) {
    if (!isRecord(current[part])) current[part] = {};
    current = current[part] as Json;
  }
  current[parts[parts.length - 1]!] = value;
}

function truthy(value: string | null): boolean {
  return value === 'true' || value === '1';
}

/** Parsed label and field selectors of a list or watch. */
interface Selectors {
  labels: LabelRequirement[];
  fields: FieldRequirement[];
  empty: boolean;
}

/** The generic registry of every served resource. */
export class ApiCore {
  readonly #clock: Clock;
  readonly #registry: Registry;
  readonly #store: Store;
  readonly #serverAddress: () => string;
  readonly #watches = new Set<{ key: string; end: () => void }>();
  readonly #tokens: ServiceAccountTokens;
  #nextClusterIp = 10;

  constructor(options: {
    clock: Clock;
    registry: Registry;
    store: Store;
    serverAddress: () => string;
  }) {
    this.#clock = options.clock;
    this.#registry = options.registry;
    this.#store = options.store;
    this.#serverAddress = options.serverAddress;
    this.#tokens = new ServiceAccountTokens({ store: this.#store, clock: this.#clock });
  }

  /** The service account a TokenRequest token authenticates as; undefined once expired or revoked. */
  authenticateToken(token: string): UserInfo | undefined {
    return this.#tokens.authenticate(token);
  }

  /** Create what kube-apiserver creates at startup: the default, kube-system, kube-public and kube-node-lease namespaces. */
  bootstrap(): void {
    const info = this.#registry.lookup('', 'v1', 'namespaces')!;
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
      this.#createObject(info, '', namespace, (prepared) =>
        recordManagedFields(undefined, prepared, {
          fieldManager: 'kube-apiserver',
          time: this.#now(),
        }),
      );
    }
  }

  #now(): string {
    return new Date(this.#clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  /** Serve one request. Throws {@link StatusError} for every failure kube-apiserver reports as a Status. */
  handle(request: ApiRequest): ApiResult {
    const path = request.url.pathname.replace(/\/+$/, '') || '/';
    const segments = path.split('/').filter((segment) => segment !== '');
    if (segments[0] !== 'api' && segments[0] !== 'apis') return this.#nonResource(request, path);
    if (segments[0] === 'api' && segments.length === 1) {
      this.#discoveryMethod(request);
      return { type: 'json', code: 200, body: discovery.coreVersions(this.#serverAddress()) };
    }
    if (segments[0] === 'apis' && segments.length === 1) {
      this.#discoveryMethod(request);
      return { type: 'json', code: 200, body: discovery.groupList(this.#registry) };
    }
    let group: string;
    let version: string;
    let rest: string[];
    if (segments[0] === 'api') {
      group = '';
      version = segments[1]!;
      rest = segments.slice(2);
    } else {
      group = segments[1]!;
      if (segments.length === 2) {
        this.#discoveryMethod(request);
        const document = discovery.group(this.#registry, group);
        if (document === undefined) throw pathNotFound();
        return { type: 'json', code: 200, body: document };
      }
      version = segments[2]!;
      rest = segments.slice(3);
    }
    if (rest.length === 0) {
      this.#discoveryMethod(request);
      const document = discovery.resourceList(this.#registry, group, version);
      if (document === undefined) throw pathNotFound();
      return { type: 'json', code: 200, body: document };
    }
    return this.#resource(request, group, version, rest);
  }

  #discoveryMethod(request: ApiRequest): void {
    if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed();
  }

  #nonResource(request: ApiRequest, path: string): ApiResult {
    if (path === '/version') {
      this.#discoveryMethod(request);
      return { type: 'json', code: 200, body: discovery.builtinVersion };
    }
    if (/^\/(healthz|readyz|livez)(\/.*)?$/.test(path)) {
      this.#discoveryMethod(request);
      return { type: 'text', code: 200, body: 'ok' };
    }
    throw pathNotFound();
  }

  #resource(request: ApiRequest, group: string, version: string, input: string[]): ApiResult {
    let rest = input;
    let watchPath = false;
    if (rest[0] === 'watch') {
      watchPath = true;
      rest = rest.slice(1);
    }
    let namespace: string | undefined;
    let resource: string;
    let name: string | undefined;
    let subresource: string | undefined;
    const namespaceSubresource =
      group === '' && rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize');
    if (rest[0] === 'namespaces' && rest.length >= 3 && !namespaceSubresource) {
      if (rest.length > 5) throw pathNotFound();
      namespace = rest[1]!;
      resource = rest[2]!;
      name = rest[3];
      subresource = rest[4];
    } else {
      if (rest.length > 3) throw pathNotFound();
      resource = rest[0]!;
      name = rest[1];
      subresource = rest[2];
    }
    const info = this.#registry.lookup(group, version, resource);
    if (info === undefined) throw pathNotFound();
    if (info.namespaced === false && namespace !== undefined) throw pathNotFound();
    if (info.namespaced && namespace === undefined && name !== undefined) throw pathNotFound();
    if (subresource !== undefined && !info.subresources.includes(subresource)) {
      throw pathNotFound();
    }
    // TokenRequest and Eviction are the create-only subresources served; log, binding, proxy and
    // ephemeralcontainers are listed by discovery but answer 405.
    const createSubresource =
      group === '' &&
      ((subresource === 'token' && resource === 'serviceaccounts') ||
        (subresource === 'eviction' && resource === 'pods'));
    if (
      subresource !== undefined &&
      subresource !== 'status' &&
      subresource !== 'scale' &&
      subresource !== 'finalize' &&
      !createSubresource
    ) {
      throw methodNotAllowed();
    }
    const query = request.url.searchParams;
    const watch = watchPath || truthy(query.get('watch'));
    let verb: string;
    switch (request.method) {
      case 'GET':
      case 'HEAD':
        // kube-apiserver honours ?watch only on collections: a named GET answers the object even with it
        // (only the deprecated /watch/ path prefix watches one object).
        verb =
          watchPath || (watch && name === undefined)
            ? 'watch'
            : name === undefined
              ? 'list'
              : 'get';
        break;
      case 'POST':
        verb = 'create';
        if (name !== undefined && !createSubresource) throw methodNotAllowed();
        break;
      case 'PUT':
        verb = 'update';
        if (name === undefined) throw methodNotAllowed();
        break;
      case 'PATCH':
        verb = 'patch';
        if (name === undefined) throw methodNotAllowed();
        break;
      case 'DELETE':
        verb = name === undefined ? 'deletecollection' : 'delete';
        break;
      default:
        throw methodNotAllowed();
    }
    if (createSubresource && verb !== 'create') throw methodNotAllowed();
    if (
      subresource !== undefined &&
      !createSubresource &&
      !['get', 'update', 'patch'].includes(verb)
    ) {
      throw methodNotAllowed();
    }
    if (subresource === 'finalize' && verb !== 'update') throw methodNotAllowed();
    // The all-namespaces path of a namespaced resource only serves list and watch.
    if (info.namespaced && namespace === undefined && verb !== 'list' && verb !== 'watch') {
      throw methodNotAllowed();
    }
    if (!info.verbs.includes(verb)) throw methodNotAllowed();
    if (query.has('dryRun') && verb !== 'get' && verb !== 'list' && verb !== 'watch') {
      // Refusing is safer than persisting what the caller asked only to validate.
      throw badRequest('dryRun is not supported by the lasso built-in API server');
    }
    authorize(request.user, { verb, resource, subresource, group, namespace, name });
    const scope = info.namespaced ? (namespace ?? undefined) : undefined;
    switch (verb) {
      case 'get': {
        this.#requireReached(query.get('resourceVersion') ?? '');
        const object = this.#mustGet(info, scope ?? '', name!);
        const body =
          subresource === 'scale' ? this.#toScale(info, object) : this.#toVersion(info, object);
        return { type: 'json', code: 200, body };
      }
      case 'list':
        return { type: 'json', code: 200, body: this.#list(info, scope, query) };
      case 'watch':
        return { type: 'watch', plan: this.#watch(info, scope, query, name) };
      case 'create':
        if (subresource === 'token') {
          const body = this.#tokens.issue(scope ?? '', name!, decodeBody(request));
          return { type: 'json', code: 201, body };
        }
        if (subresource === 'eviction') {
          return { type: 'json', code: 201, body: this.#evict(info, scope ?? '', name!, request) };
        }
        return { type: 'json', code: 201, body: this.#create(info, scope ?? '', request) };
      case 'update':
        return this.#update(info, scope ?? '', name!, subresource, request);
      case 'patch':
        return this.#patch(info, scope ?? '', name!, subresource, request);
      case 'delete':
        return this.#delete(info, scope ?? '', name!, request);
      default:
        return { type: 'json', code: 200, body: this.#deleteCollection(info, scope, request) };
    }
  }

  // ---- helpers ----

  #toVersion(info: ResourceInfo, object: KubeObject): KubeObject {
    const copy = structuredClone(object);
    if (isEventsV1(info)) return eventToEventsV1(copy, apiVersionOf(info));
    copy.apiVersion = apiVersionOf(info);
    copy.kind = info.kind;
    return copy;
  }

  /**
   * A decoded body in the shape it is stored in: an events.k8s.io/v1 Event loses the fields that
   * version does not have, then becomes a v1 Event; every other kind is stored as sent.
   */
  #toStored(info: ResourceInfo, object: KubeObject): KubeObject {
    if (!isEventsV1(info)) return object;
    pruneBuiltinFields(info, object);
    return eventsV1ToEvent(object);
  }

  #mustGet(info: ResourceInfo, namespace: string, name: string): KubeObject {
    const found = this.#store.get(storageKey(info), namespace, name);
    if (found === undefined) throw notFound(info, name);
    return found;
  }

  #fieldManager(request: ApiRequest): string {
    const explicit = request.url.searchParams.get('fieldManager');
    if (explicit !== null && explicit !== '') return explicit;
    const agent = stringOf(request.headers['user-agent']) ?? '';
    const prefix = agent.split('/')[0]?.trim() ?? '';
    return prefix === '' ? 'unknown' : prefix;
  }

  #decodeObject(info: ResourceInfo, request: ApiRequest): KubeObject {
    return this.#checkKind(info, decodeBody(request));
  }

  #checkKind(info: ResourceInfo, parsed: unknown): KubeObject {
    if (!isRecord(parsed)) {
      throw badRequest(
        `couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(parsed) ? 'array' : typeof parsed} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
      );
    }
    const expected = apiVersionOf(info);
    const apiVersion = stringOf(parsed.apiVersion) ?? '';
    const kind = stringOf(parsed.kind) ?? '';
    if (kind !== '' && kind !== info.kind) {
      throw badRequest(
        `${kind} in version "${apiVersion === '' ? info.version : apiVersion}" cannot be handled as a ${info.kind}: no kind "${kind}" is registered for version "${expected}"`,
      );
    }
    if (apiVersion !== '' && apiVersion !== expected) {
      throw badRequest(
        `the API version in the data (${apiVersion}) does not match the expected API version (${expected})`,
      );
    }
    parsed.apiVersion = expected;
    parsed.kind = info.kind;
    checkShape(info, parsed);
    return parsed as KubeObject;
  }

  #selectors(info: ResourceInfo, query: URLSearchParams, name?: string): Selectors {
    let labels: LabelRequirement[] = [];
    let fields: FieldRequirement[] = [];
    try {
      labels = parseLabelSelector(query.get('labelSelector') ?? '');
      fields = parseFieldSelector(query.get('fieldSelector') ?? '');
    } catch (error) {
      if (error instanceof SelectorParseError) throw badRequest(error.message);
      throw error;
    }
    if (name !== undefined)
      fields = [...fields, { field: 'metadata.name', operator: '=', value: name }];
    for (const requirement of fields) {
      if (
        requirement.field !== 'metadata.name' &&
        requirement.field !== 'metadata.namespace' &&
        !info.fieldSelectors.includes(requirement.field)
      ) {
        // Built-in kinds without field label conversions of their own fall back to apimachinery's
        // DefaultMetaV1FieldSelectorConversion; the others (and custom resources) word it their way.
        throw badRequest(
          info.builtin && info.fieldSelectors.length === 0
            ? `"${requirement.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`
            : `field label not supported: ${requirement.field}`,
        );
      }
    }
    return { labels, fields, empty: labels.length === 0 && fields.length === 0 };
  }

  #matches(info: ResourceInfo, selectors: Selectors, object: KubeObject): boolean {
    if (selectors.empty) return true;
    const metadata = isRecord(object.metadata) ? object.metadata : {};
    const labels = isRecord(metadata.labels) ? (metadata.labels as Record<string, string>) : {};
    if (!matchesLabelSelector(selectors.labels, labels)) return false;
    if (selectors.fields.length === 0) return true;
    const fields: Record<string, string> = {
      'metadata.name': stringOf(metadata.name) ?? '',
      'metadata.namespace': stringOf(metadata.namespace) ?? '',
    };
    const shaped = isEventsV1(info) ? this.#toVersion(info, object) : object;
    for (const field of info.fieldSelectors) {
      // A v1 Event's `source` field label selects on source.component (event strategy).
      const path =
        field === 'source' && storageKey(info) === '/events' ? 'source.component' : field;
      const value = getPath(shaped, path);
      fields[field] = value === undefined || value === null ? '' : String(value);
    }
    return matchesFieldSelector(selectors.fields, fields);
  }

  // ---- create ----

  #create(info: ResourceInfo, namespace: string, request: ApiRequest): KubeObject {
    const object = this.#toStored(info, this.#decodeObject(info, request));
    const created = this.#createObject(info, namespace, object, (prepared) =>
      recordManagedFields(undefined, prepared, {
        fieldManager: this.#fieldManager(request),
        time: this.#now(),
        info,
      }),
    );
    return this.#toVersion(info, created);
  }

  #checkNamespace(info: ResourceInfo, namespace: string, name: string): void {
    if (!info.namespaced) return;
    const found = this.#store.get(namespacesKey, '', namespace);
    if (found === undefined) {
      throw notFound({ group: '', resource: 'namespaces' }, namespace);
    }
    if (isRecord(found.metadata) && found.metadata.deletionTimestamp !== undefined) {
      throw namespaceTerminating(info, name, namespace);
    }
  }

  #createObject(
    info: ResourceInfo,
    namespace: string,
    object: KubeObject,
    track: (prepared: KubeObject) => KubeObject,
  ): KubeObject {
    const metadata = metaOf(object);
    if (info.namespaced) {
      const given = stringOf(metadata.namespace);
      if (given !== undefined && given !== '' && given !== namespace) {
        throw badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      metadata.namespace = namespace;
    } else {
      delete metadata.namespace;
    }
    if ((stringOf(metadata.name) ?? '') === '' && (stringOf(metadata.generateName) ?? '') !== '') {
      // kube-apiserver retries a generated name that collides (up to 8 attempts).
      const scope = info.namespaced ? namespace : '';
      for (let attempt = 0; attempt < 8; attempt++) {
        let suffix = '';
        for (let index = 0; index < 5; index++) {
          suffix += generateNameAlphabet[Math.floor(Math.random() * generateNameAlphabet.length)];
        }
        metadata.name = `${metadata.generateName as string}${suffix}`;
        if (!this.#store.has(storageKey(info), scope, metadata.name as string)) break;
      }
    }
    const name = stringOf(metadata.name) ?? '';
    const causes = validateObjectMeta(metadata, {
      namespaced: info.namespaced,
      nameRule: info.nameRule,
    });
    if (info.namespaced && namespace === '') {
      causes.push({
        type: 'FieldValueRequired',
        message: 'Required value',
        field: 'metadata.namespace',
      });
    }
    this.#validateBody(info, object, causes);
    if (causes.length > 0) throw invalid(info, name, causes);
    if (metadata.resourceVersion !== undefined && metadata.resourceVersion !== '') {
      // The storage layer's plain error: kube-apiserver answers 500 with an empty (omitted) reason.
      throw new StatusError(
        failure(500, '', 'resourceVersion should not be set on objects to be created'),
      );
    }
    this.#checkNamespace(info, namespace, name);
    const key = storageKey(info);
    if (this.#store.has(key, info.namespaced ? namespace : '', name)) {
      throw alreadyExists(info, name);
    }
    metadata.uid = randomUUID();
    metadata.creationTimestamp = this.#now();
    delete metadata.deletionTimestamp;
    delete metadata.deletionGracePeriodSeconds;
    delete metadata.resourceVersion;
    delete metadata.selfLink;
    if (info.generation) metadata.generation = 1;
    else delete metadata.generation;
    this.#defaultsOnCreate(info, object);
    if (info.builtin && info.group === '' && info.resource === 'pods') {
      this.#admitServiceAccount(namespace, name, object);
    }
    const stored = this.#store.create(key, this.#toStorage(info, track(object)));
    if (storageKey(info) === crdKey) this.#establish(stored);
    return stored;
  }

  #toStorage(info: ResourceInfo, object: KubeObject): KubeObject {
    if (info.storageVersion !== undefined && info.storageVersion !== info.version) {
      return { ...object, apiVersion: `${info.group}/${info.storageVersion}` };
    }
    return object;
  }

  #validateBody(
    info: ResourceInfo,
    object: KubeObject,
    causes: Array<{ type: string; message: string; field: string }>,
  ): void {
    if (storageKey(info) === crdKey) {
      causes.push(...validateCrd(object));
      return;
    }
    if (info.builtin) {
      // By now an events.k8s.io Event is in the v1 shape it is stored in (#toStored).
      pruneBuiltinFields(isEventsV1(info) ? { group: '', resource: 'events' } : info, object);
      if (info.group === '' && info.resource === 'secrets') foldStringData(object);
      if (info.group === 'apps') causes.push(...validateWorkloadSelector(object));
      return;
    }
    const crd = this.#store.get(crdKey, '', `${info.resource}.${info.group}`);
    const schema = crd === undefined ? undefined : schemaOf(crd, info.version);
    if (schema === undefined) return;
    pruneObject(object, schema);
    causes.push(...validateAgainstSchema(object, schema));
  }

  #defaultsOnCreate(info: ResourceInfo, object: KubeObject): void {
    const metadata = metaOf(object);
    const spec = isRecord(object.spec) ? object.spec : undefined;
    if (!info.builtin) {
      if (info.subresources.includes('status')) delete object.status;
      return;
    }
    // Every built-in strategy with a status subresource resets status in PrepareForCreate (only the
    // status subresource writes it); the kinds below then set the zero status Go serializes.
    if (info.subresources.includes('status')) delete object.status;
    switch (`${info.group}/${info.resource}`) {
      case 'apps/replicasets':
        object.status = { replicas: 0 };
        break;
      case 'apps/statefulsets':
        object.status = { replicas: 0, availableReplicas: 0 };
        break;
      case 'apps/daemonsets':
        object.status = {
          currentNumberScheduled: 0,
          numberMisscheduled: 0,
          desiredNumberScheduled: 0,
          numberReady: 0,
        };
        break;
      case 'batch/jobs':
        object.status = {};
        break;
      case '/namespaces': {
        const labels = isRecord(metadata.labels) ? metadata.labels : {};
        labels['kubernetes.io/metadata.name'] = metadata.name;
        metadata.labels = labels;
        object.spec = { finalizers: ['kubernetes'], ...(spec ?? {}) };
        object.status = { phase: 'Active' };
        break;
      }
      case '/secrets':
        if (object.type === undefined) object.type = 'Opaque';
        break;
      case '/pods':
        object.status = { phase: 'Pending', qosClass: 'BestEffort' };
        break;
      case '/services': {
        const serviceSpec = spec ?? {};
        object.spec = serviceSpec;
        if (serviceSpec.type === undefined) serviceSpec.type = 'ClusterIP';
        if (serviceSpec.sessionAffinity === undefined) serviceSpec.sessionAffinity = 'None';
        if (serviceSpec.clusterIP === undefined && serviceSpec.type !== 'ExternalName') {
          const ip = `10.0.${Math.floor(this.#nextClusterIp / 250)}.${(this.#nextClusterIp % 250) + 1}`;
          this.#nextClusterIp += 1;
          serviceSpec.clusterIP = ip;
          serviceSpec.clusterIPs = [ip];
        }
        if (Array.isArray(serviceSpec.ports)) {
          for (const port of serviceSpec.ports.filter(isRecord)) {
            if (port.protocol === undefined) port.protocol = 'TCP';
            if (port.targetPort === undefined) port.targetPort = port.port;
          }
        }
        object.status = { loadBalancer: {} };
        break;
      }
      case 'apps/deployments': {
        const deploymentSpec = spec ?? {};
        object.spec = deploymentSpec;
        if (deploymentSpec.replicas === undefined) deploymentSpec.replicas = 1;
        if (deploymentSpec.revisionHistoryLimit === undefined) {
          deploymentSpec.revisionHistoryLimit = 10;
        }
        if (deploymentSpec.progressDeadlineSeconds === undefined) {
          deploymentSpec.progressDeadlineSeconds = 600;
        }
        if (deploymentSpec.strategy === undefined) {
          deploymentSpec.strategy = {
            type: 'RollingUpdate',
            rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
          };
        }
        object.status = {};
        break;
      }
      case 'apiextensions.k8s.io/customresourcedefinitions':
        delete object.status;
        break;
      default:
        break;
    }
  }

  /** The ServiceAccount admission plugin: a Pod needs its service account to exist. */
  #admitServiceAccount(namespace: string, name: string, pod: KubeObject): void {
    const spec = isRecord(pod.spec) ? pod.spec : {};
    pod.spec = spec;
    const account = stringOf(spec.serviceAccountName) || stringOf(spec.serviceAccount) || 'default';
    spec.serviceAccountName = account;
    spec.serviceAccount = account;
    if (!this.#store.has('/serviceaccounts', namespace, account)) {
      throw new StatusError(
        failure(
          403,
          'Forbidden',
          `pods "${name}" is forbidden: error looking up service account ${namespace}/${account}: serviceaccount "${account}" not found`,
          { name, kind: 'pods' },
        ),
      );
    }
  }

  /** Serve a CRD's resources and write the status kube's CRD controllers would write. */
  #establish(crd: KubeObject): void {
    const { infos, versionOrder } = crdResources(crd);
    const spec = crd.spec as Json;
    const plural = (spec.names as Json).plural as string;
    this.#registry.removeResource(spec.group as string, plural);
    for (const info of infos) this.#registry.add(info, versionOrder);
    const next = structuredClone(crd);
    next.status = establishedStatus(crd, this.#now());
    if (canonical(next.status) !== canonical(crd.status)) this.#store.update(crdKey, next);
  }

  // ---- update ----

  #update(
    info: ResourceInfo,
    namespace: string,
    name: string,
    subresource: string | undefined,
    request: ApiRequest,
  ): ApiResult {
    const parsed = decodeBody(request);
    if (subresource === 'scale') {
      const scale = isRecord(parsed) ? parsed : {};
      const existing = this.#uidPrecondition(info, namespace, name, scale);
      const result = this.#applyScale(info, existing, scale, request);
      return { type: 'json', code: 200, body: this.#toScale(info, result) };
    }
    const incoming = this.#toStored(info, this.#checkKind(info, parsed));
    const metadata = metaOf(incoming);
    const bodyName = stringOf(metadata.name) ?? '';
    if (bodyName !== name) {
      throw badRequest(
        `the name of the object (${bodyName}) does not match the name on the URL (${name})`,
      );
    }
    if (info.namespaced) {
      const given = stringOf(metadata.namespace);
      if (given !== undefined && given !== '' && given !== namespace) {
        throw badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
    }
    const existing = this.#uidPrecondition(info, namespace, name, incoming);
    const result = this.#updateObject(info, existing, incoming, {
      subresource,
      fieldManager: this.#fieldManager(request),
      requireResourceVersion: !info.builtin,
    });
    return { type: 'json', code: 200, body: this.#toVersion(info, result) };
  }

  /**
   * The live object a PUT replaces. A body carrying metadata.uid is a UID precondition (checked before
   * the resourceVersion), so a PUT of an object that was deleted, or deleted and recreated, is 409
   * Conflict like kube-apiserver's storage answers, not 404; only a body without a uid gets 404.
   */
  #uidPrecondition(info: ResourceInfo, namespace: string, name: string, body: Json): KubeObject {
    const existing = this.#store.get(storageKey(info), namespace, name);
    const uid = isRecord(body.metadata) ? (stringOf(body.metadata.uid) ?? '') : '';
    if (uid !== '') {
      const liveUid = existing === undefined ? '' : (stringOf(metaOf(existing).uid) ?? '');
      if (uid !== liveUid) {
        const at = info.namespaced ? { namespace, name } : { name };
        throw conflict(
          info,
          name,
          storageInvalid(
            info,
            at,
            `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${liveUid}`,
          ),
        );
      }
    }
    if (existing === undefined) throw notFound(info, name);
    return existing;
  }

  #updateObject(
    info: ResourceInfo,
    existing: KubeObject,
    incoming: KubeObject,
    options: {
      subresource: string | undefined;
      fieldManager: string;
      requireResourceVersion: boolean;
      managedFields?: (previous: KubeObject, next: KubeObject) => KubeObject;
    },
  ): KubeObject {
    const existingMeta = metaOf(existing);
    const name = stringOf(existingMeta.name) ?? '';
    const incomingMeta = metaOf(incoming);
    const incomingRv = stringOf(incomingMeta.resourceVersion) ?? '';
    if (incomingRv !== '' && incomingRv !== existingMeta.resourceVersion) {
      throw conflict(info, name);
    }
    if (incomingRv === '' && options.requireResourceVersion) {
      throw invalid(info, name, [
        {
          type: 'FieldValueInvalid',
          message: 'Invalid value: 0x0: must be specified for an update',
          field: 'metadata.resourceVersion',
        },
      ]);
    }
    const hasStatus = info.subresources.includes('status');
    let next: KubeObject;
    if (options.subresource === 'status') {
      next = structuredClone(existing);
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
    } else if (options.subresource === 'finalize') {
      next = structuredClone(existing);
      const spec = isRecord(next.spec) ? next.spec : {};
      spec.finalizers = isRecord(incoming.spec) ? incoming.spec.finalizers : undefined;
      next.spec = spec;
    } else {
      const incomingUid = stringOf(incomingMeta.uid) ?? '';
      if (incomingUid !== '' && incomingUid !== existingMeta.uid) {
        // A patch that rewrites the uid (a PUT already failed its UID precondition above).
        throw invalid(info, name, [
          {
            type: 'FieldValueInvalid',
            message: `Invalid value: ${JSON.stringify(incomingUid)}: field is immutable`,
            field: 'metadata.uid',
          },
        ]);
      }
      next = structuredClone(incoming);
      if (hasStatus) {
        if (existing.status === undefined) delete next.status;
        else next.status = structuredClone(existing.status);
      }
      const nextMeta = metaOf(next);
      for (const field of [
        'uid',
        'creationTimestamp',
        'deletionTimestamp',
        'deletionGracePeriodSeconds',
        'generation',
        'namespace',
        'name',
      ]) {
        if (existingMeta[field] === undefined) delete nextMeta[field];
        else nextMeta[field] = existingMeta[field];
      }
      const causes = validateObjectMeta(nextMeta, {
        namespaced: info.namespaced,
        nameRule: info.nameRule,
      });
      if (existingMeta.deletionTimestamp !== undefined) {
        const before = new Set(
          Array.isArray(existingMeta.finalizers) ? existingMeta.finalizers.map(String) : [],
        );
        const added = (Array.isArray(nextMeta.finalizers) ? nextMeta.finalizers : [])
          .map(String)
          .filter((finalizer) => !before.has(finalizer));
        if (added.length > 0) {
          causes.push({
            type: 'FieldValueInvalid',
            message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((item) => JSON.stringify(item)).join(', ')}}`,
            field: 'metadata.finalizers',
          });
        }
      }
      if (info.resource === 'namespaces' && info.group === '') next.spec = existing.spec;
      this.#validateBody(info, next, causes);
      if (info.builtin && (storageKey(info) === '/configmaps' || storageKey(info) === '/secrets')) {
        causes.push(...validateImmutableData(existing, next, storageKey(info) === '/secrets'));
      }
      if (causes.length > 0) throw invalid(info, name, causes);
      // Deployments also bump generation on annotation changes (they are copied to ReplicaSets).
      const annotationsChanged =
        info.group === 'apps' &&
        info.resource === 'deployments' &&
        canonical(existingMeta.annotations ?? {}) !== canonical(nextMeta.annotations ?? {});
      if (info.generation && (annotationsChanged || this.#specChanged(existing, next, hasStatus))) {
        nextMeta.generation = Number(existingMeta.generation ?? 0) + 1;
      }
    }
    next.apiVersion = existing.apiVersion;
    next.kind = existing.kind;
    const tracked =
      options.managedFields?.(existing, next) ??
      recordManagedFields(existing, next, {
        fieldManager: options.fieldManager,
        time: this.#now(),
        subresource: options.subresource,
        info,
      });
    // A write that changes nothing but managedFields timestamps is a no-op (kube-apiserver's
    // IgnoreManagedFieldsTimestampsTransformer); a change of ownership is a real write.
    const comparable = (object: KubeObject): string => {
      const copy = structuredClone(object);
      const meta = metaOf(copy);
      delete meta.resourceVersion;
      if (Array.isArray(meta.managedFields)) {
        meta.managedFields = meta.managedFields.map((entry: unknown) => {
          if (!isRecord(entry)) return entry;
          const { time: _time, ...rest } = entry;
          return rest;
        });
      }
      return canonical(copy);
    };
    const key = storageKey(info);
    const nextMeta = metaOf(tracked);
    // A namespace also waits for its spec.finalizers (emptied through /finalize, by the namespace
    // controller on a real cluster or by a test here): ShouldDeleteNamespaceDuringUpdate.
    const namespaceFinalizers =
      key === namespacesKey && isRecord(tracked.spec) && Array.isArray(tracked.spec.finalizers)
        ? tracked.spec.finalizers.length
        : 0;
    // ShouldDeleteDuringUpdate: a gracefully terminating object (a scheduled Pod) waits for its
    // grace period to be cut to 0 by a delete, whatever its finalizers.
    const grace = Number(existingMeta.deletionGracePeriodSeconds ?? 0);
    if (
      nextMeta.deletionTimestamp !== undefined &&
      (!Array.isArray(nextMeta.finalizers) || nextMeta.finalizers.length === 0) &&
      namespaceFinalizers === 0 &&
      grace === 0
    ) {
      return this.#store.delete(key, tracked);
    }
    if (comparable(tracked) === comparable(existing)) return existing;
    const stored = this.#store.update(key, tracked);
    if (key === crdKey && options.subresource === undefined) this.#establish(stored);
    return stored;
  }

  #specChanged(existing: KubeObject, next: KubeObject, hasStatus: boolean): boolean {
    const strip = (object: KubeObject): string => {
      const { metadata: _metadata, status, apiVersion: _a, kind: _k, ...rest } = object;
      return canonical(hasStatus ? rest : { ...rest, status });
    };
    return strip(existing) !== strip(next);
  }

  // ---- scale ----

  #scalePaths(info: ResourceInfo): { spec: string; status: string; selector?: string } {
    if (info.scale !== undefined) {
      const paths: { spec: string; status: string; selector?: string } = {
        spec: info.scale.specReplicasPath.replace(/^\./, ''),
        status: info.scale.statusReplicasPath.replace(/^\./, ''),
      };
      if (info.scale.labelSelectorPath !== undefined) {
        paths.selector = info.scale.labelSelectorPath.replace(/^\./, '');
      }
      return paths;
    }
    return { spec: 'spec.replicas', status: 'status.replicas' };
  }

  #toScale(info: ResourceInfo, object: KubeObject): Json {
    const metadata = metaOf(object);
    const paths = this.#scalePaths(info);
    let selector: string | undefined;
    if (paths.selector !== undefined) selector = stringOf(getPath(object, paths.selector));
    else {
      const matchLabels = getPath(object, 'spec.selector.matchLabels');
      if (isRecord(matchLabels)) {
        selector = Object.entries(matchLabels)
          .map(([key, value]) => `${key}=${String(value)}`)
          .join(',');
      }
    }
    const status: Json = { replicas: Number(getPath(object, paths.status) ?? 0) };
    if (selector !== undefined) status.selector = selector;
    const scaleMeta: Json = {
      name: metadata.name,
      uid: metadata.uid,
      resourceVersion: metadata.resourceVersion,
      creationTimestamp: metadata.creationTimestamp,
    };
    if (metadata.namespace !== undefined) scaleMeta.namespace = metadata.namespace;
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: scaleMeta,
      spec: { replicas: Number(getPath(object, paths.spec) ?? 0) },
      status,
    };
  }

  #applyScale(
    info: ResourceInfo,
    existing: KubeObject,
    scale: Json,
    request: ApiRequest,
  ): KubeObject {
    const scaleMeta = isRecord(scale.metadata) ? scale.metadata : {};
    const replicas = isRecord(scale.spec) ? scale.spec.replicas : undefined;
    const name = stringOf(metaOf(existing).name) ?? '';
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
      throw invalid({ group: 'autoscaling', kind: 'Scale' }, name, [
        {
          type: 'FieldValueInvalid',
          message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
          field: 'spec.replicas',
        },
      ]);
    }
    const next = structuredClone(existing);
    setPath(next, this.#scalePaths(info).spec, replicas);
    const nextMeta = metaOf(next);
    const rv = stringOf(scaleMeta.resourceVersion);
    if (rv !== undefined && rv !== '') nextMeta.resourceVersion = rv;
    return this.#updateObject(info, existing, next, {
      subresource: undefined,
      fieldManager: this.#fieldManager(request),
      requireResourceVersion: false,
    });
  }

  // ---- patch ----

  #patch(
    info: ResourceInfo,
    namespace: string,
    name: string,
    subresource: string | undefined,
    request: ApiRequest,
  ): ApiResult {
    const contentType = (stringOf(request.headers['content-type']) ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    const query = request.url.searchParams;
    const fieldManager = this.#fieldManager(request);
    if (contentType === 'application/apply-patch+yaml') {
      const explicitManager = query.get('fieldManager') ?? '';
      if (explicitManager === '') {
        throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
          {
            type: 'FieldValueRequired',
            message: 'Required value: is required for apply patch',
            field: 'fieldManager',
          },
        ]);
      }
      if (subresource === 'scale') throw methodNotAllowed();
      const configuration = this.#checkKind(info, parseApplyBody(request.body));
      const configName = stringOf(metaOf(configuration).name) ?? '';
      if (configName !== name) {
        throw badRequest(
          `the name of the object (${configName}) does not match the name on the URL (${name})`,
        );
      }
      const existing = this.#store.get(storageKey(info), namespace, name);
      // Subresources never create on update (kube's StatusREST passes forceAllowCreate=false).
      if (existing === undefined && subresource !== undefined) throw notFound(info, name);
      const force = truthy(query.get('force'));
      const time = this.#now();
      const versioned = existing === undefined ? undefined : this.#toVersion(info, existing);
      const applied = runApply(versioned, configuration, {
        info,
        fieldManager: explicitManager,
        force,
        time,
        subresource,
      });
      if (applied.conflicts.length > 0) {
        throw applyConflictError(applied.conflicts);
      }
      applied.object = this.#toStored(info, applied.object);
      if (existing === undefined) {
        const created = this.#createObject(info, namespace, applied.object, (prepared) => {
          metaOf(prepared).managedFields = metaOf(applied.object).managedFields;
          return prepared;
        });
        return { type: 'json', code: 201, body: this.#toVersion(info, created) };
      }
      const updated = this.#updateObject(info, existing, applied.object, {
        subresource,
        fieldManager: explicitManager,
        requireResourceVersion: false,
        managedFields: (_previous, next) => {
          metaOf(next).managedFields = metaOf(applied.object).managedFields;
          return next;
        },
      });
      return { type: 'json', code: 200, body: this.#toVersion(info, updated) };
    }
    if (query.has('force')) {
      throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
        {
          type: 'FieldValueForbidden',
          message: 'Forbidden: may not be specified for non-apply patch',
          field: 'force',
        },
      ]);
    }
    const existing = this.#mustGet(info, namespace, name);
    const base =
      subresource === 'scale' ? this.#toScale(info, existing) : this.#toVersion(info, existing);
    const patched = computePatch(contentType, base, request.body, {
      builtin: info.builtin || subresource === 'scale',
      apiVersion: stringOf(base.apiVersion) ?? '',
      kind: stringOf(base.kind) ?? '',
    });
    if (!isRecord(patched)) throw badRequest('the patched object is not a JSON object');
    if (subresource === 'scale') {
      const result = this.#applyScale(info, existing, patched, request);
      return { type: 'json', code: 200, body: this.#toScale(info, result) };
    }
    const checked = this.#toStored(info, this.#checkKind(info, patched));
    const patchedMeta = metaOf(checked);
    if (patchedMeta.name !== name) {
      throw badRequest(
        `the name of the object (${String(patchedMeta.name)}) does not match the name on the URL (${name})`,
      );
    }
    const updated = this.#updateObject(info, existing, checked, {
      subresource,
      fieldManager,
      requireResourceVersion: false,
    });
    return { type: 'json', code: 200, body: this.#toVersion(info, updated) };
  }

  // ---- delete ----

  #deleteOptions(request: ApiRequest): Json {
    const query = request.url.searchParams;
    let options: Json = {};
    if (request.body.length > 0) {
      const parsed = parseJsonBody(request.body);
      if (!isRecord(parsed)) throw badRequest('the body of a delete request must be DeleteOptions');
      options = parsed;
    }
    if (
      options.preconditions !== undefined &&
      options.preconditions !== null &&
      !isRecord(options.preconditions)
    ) {
      throw badRequest(
        `json: cannot unmarshal ${jsonType(options.preconditions)} into Go struct field DeleteOptions.preconditions of type v1.Preconditions`,
      );
    }
    // kube-apiserver reads DeleteOptions from the body when there is one, else from the query.
    const propagation = request.body.length > 0 ? null : query.get('propagationPolicy');
    if (propagation !== null) options.propagationPolicy = propagation;
    const graceText = request.body.length > 0 ? null : query.get('gracePeriodSeconds');
    if (graceText !== null && graceText !== '') {
      if (!/^-?\d+$/.test(graceText)) {
        throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(graceText)}: invalid syntax`);
      }
      options.gracePeriodSeconds = Number(graceText);
    }
    const grace = options.gracePeriodSeconds;
    if (grace !== undefined && grace !== null && !Number.isInteger(grace)) {
      throw badRequest(
        `json: cannot unmarshal ${jsonType(grace)} into Go struct field DeleteOptions.gracePeriodSeconds of type int64`,
      );
    }
    const policy = options.propagationPolicy;
    if (
      policy !== undefined &&
      policy !== 'Orphan' &&
      policy !== 'Background' &&
      policy !== 'Foreground'
    ) {
      throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
        {
          type: 'FieldValueNotSupported',
          message: `Unsupported value: "${String(policy)}": supported values: "Foreground", "Background", "Orphan"`,
          field: 'propagationPolicy',
        },
      ]);
    }
    return options;
  }

  /**
   * The Eviction subresource (policy/v1): with no PodDisruptionBudgets served nothing blocks it, so it
   * deletes the Pod with the Eviction's deleteOptions (gracefully when the Pod is scheduled).
   */
  #evict(info: ResourceInfo, namespace: string, name: string, request: ApiRequest): unknown {
    const eviction = decodeBody(request);
    if (!isRecord(eviction)) throw badRequest('the body of an eviction must be an Eviction object');
    const apiVersion = stringOf(eviction.apiVersion) ?? '';
    const kind = stringOf(eviction.kind) ?? '';
    if (
      (kind !== '' && kind !== 'Eviction') ||
      (apiVersion !== '' && apiVersion !== 'policy/v1' && apiVersion !== 'policy/v1beta1')
    ) {
      throw badRequest(
        `${kind} in version "${apiVersion}" cannot be handled as a Eviction: no kind "${kind}" is registered for version "${apiVersion}"`,
      );
    }
    const evictionName = isRecord(eviction.metadata) ? stringOf(eviction.metadata.name) : undefined;
    if (evictionName !== undefined && evictionName !== '' && evictionName !== name) {
      throw badRequest('name in URL does not match name in Eviction object');
    }
    const options = isRecord(eviction.deleteOptions) ? eviction.deleteOptions : {};
    const existing = this.#mustGet(info, namespace, name);
    this.#deleteObject(info, existing, options);
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
  }

  #delete(info: ResourceInfo, namespace: string, name: string, request: ApiRequest): ApiResult {
    const options = this.#deleteOptions(request);
    const existing = this.#mustGet(info, namespace, name);
    const result = this.#deleteObject(info, existing, options);
    return { type: 'json', code: 200, body: result };
  }

  #deleteObject(info: ResourceInfo, existing: KubeObject, options: Json): unknown {
    const key = storageKey(info);
    const metadata = metaOf(existing);
    const name = stringOf(metadata.name) ?? '';
    const preconditions = isRecord(options.preconditions) ? options.preconditions : {};
    // rest.BeforeDelete checks the preconditions before storage does, naming the kind, not the resource.
    const byKind = { group: info.group, resource: info.kind };
    if (preconditions.uid !== undefined && preconditions.uid !== metadata.uid) {
      throw conflict(
        byKind,
        name,
        `the UID in the precondition (${String(preconditions.uid)}) does not match the UID in record (${String(metadata.uid)}). The object might have been deleted and then recreated`,
      );
    }
    if (
      preconditions.resourceVersion !== undefined &&
      preconditions.resourceVersion !== metadata.resourceVersion
    ) {
      throw conflict(
        byKind,
        name,
        `the ResourceVersion in the precondition (${String(preconditions.resourceVersion)}) does not match the ResourceVersion in record (${String(metadata.resourceVersion)}). The object might have been modified`,
      );
    }
    if (key === namespacesKey) {
      if (metadata.deletionTimestamp !== undefined) return this.#toVersion(info, existing);
      const next = structuredClone(existing);
      const nextMeta = metaOf(next);
      nextMeta.deletionTimestamp = this.#now();
      nextMeta.deletionGracePeriodSeconds = 0;
      next.status = { ...(isRecord(next.status) ? next.status : {}), phase: 'Terminating' };
      return this.#toVersion(info, this.#store.update(key, next));
    }
    if (key === crdKey) return this.#deleteCrd(info, existing);
    const finalizers = Array.isArray(metadata.finalizers) ? metadata.finalizers.map(String) : [];
    if (key === '/pods') {
      const graceful = this.#deletePodGracefully(info, existing, options, finalizers);
      if (graceful !== undefined) return graceful;
    }
    if (metadata.deletionTimestamp !== undefined) return this.#toVersion(info, existing);
    addPropagationFinalizer(finalizers, options);
    if (finalizers.length > 0) {
      const next = structuredClone(existing);
      const nextMeta = metaOf(next);
      nextMeta.finalizers = finalizers;
      nextMeta.deletionTimestamp = this.#now();
      nextMeta.deletionGracePeriodSeconds = 0;
      if (info.generation) nextMeta.generation = Number(nextMeta.generation ?? 0) + 1;
      return this.#toVersion(info, this.#store.update(key, next));
    }
    const deleted = this.#store.delete(key, existing);
    if (!info.builtin || info.resource === 'pods') return this.#toVersion(info, deleted);
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      // StatusDetails.group is omitempty: core resources carry no group key.
      details: {
        name,
        ...(info.group === '' ? {} : { group: info.group }),
        kind: info.resource,
        uid: metadata.uid,
      },
    };
  }

  /**
   * Graceful deletion of a Pod (podStrategy.CheckGracefulDelete + rest.BeforeDelete): a scheduled,
   * unfinished Pod gets deletionTimestamp = now + grace period and stays until a kubelet (or a test)
   * deletes it with a shorter grace period; 0 removes it. Undefined: delete it like any object.
   */
  #deletePodGracefully(
    info: ResourceInfo,
    existing: KubeObject,
    options: Json,
    finalizers: string[],
  ): unknown {
    const key = storageKey(info);
    const metadata = metaOf(existing);
    const spec = isRecord(existing.spec) ? existing.spec : {};
    const phase = isRecord(existing.status) ? existing.status.phase : undefined;
    const requested =
      typeof options.gracePeriodSeconds === 'number' ? options.gracePeriodSeconds : undefined;
    let period =
      requested ??
      (typeof spec.terminationGracePeriodSeconds === 'number'
        ? spec.terminationGracePeriodSeconds
        : 30);
    if ((stringOf(spec.nodeName) ?? '') === '' || phase === 'Failed' || phase === 'Succeeded') {
      period = 0;
    }
    if (period < 0) period = 1;
    const current = Number(metadata.deletionGracePeriodSeconds ?? 0);
    const deletionMs =
      metadata.deletionTimestamp === undefined
        ? undefined
        : Date.parse(String(metadata.deletionTimestamp));
    if (deletionMs !== undefined && current === 0) return undefined;
    if (deletionMs !== undefined && (requested === undefined || period >= current)) {
      return this.#toVersion(info, existing); // graceful deletion already pending
    }
    if (deletionMs === undefined && period === 0) return undefined;
    // Only a shorter grace period may follow: the deadline moves back by the difference.
    const deadline =
      deletionMs === undefined
        ? this.#clock.now() + period * 1000
        : deletionMs - current * 1000 + period * 1000;
    const next = structuredClone(existing);
    const nextMeta = metaOf(next);
    nextMeta.deletionTimestamp = new Date(deadline).toISOString().replace(/\.\d{3}Z$/, 'Z');
    nextMeta.deletionGracePeriodSeconds = period;
    if (deletionMs === undefined) {
      addPropagationFinalizer(finalizers, options);
      if (finalizers.length > 0) nextMeta.finalizers = finalizers;
    }
    if (period === 0 && finalizers.length === 0)
      return this.#toVersion(info, this.#store.delete(key, next));
    return this.#toVersion(info, this.#store.update(key, next));
  }

  /** CRD deletion as kube's finalizer controller does it: delete every custom object, stop serving, remove. */
  #deleteCrd(info: ResourceInfo, crd: KubeObject): unknown {
    const metadata = metaOf(crd);
    const terminating = structuredClone(crd);
    const terminatingMeta = metaOf(terminating);
    terminatingMeta.deletionTimestamp = this.#now();
    terminatingMeta.deletionGracePeriodSeconds = 0;
    terminatingMeta.finalizers = [
      ...(Array.isArray(metadata.finalizers) ? metadata.finalizers : []),
      'customresourcecleanup.apiextensions.k8s.io',
    ];
    const response = this.#store.update(crdKey, terminating);
    const spec = crd.spec as Json;
    const group = spec.group as string;
    const plural = (spec.names as Json).plural as string;
    const key = `${group}/${plural}`;
    for (const object of this.#store.list(key, undefined)) this.#store.delete(key, object);
    this.#registry.removeResource(group, plural);
    for (const watch of [...this.#watches]) if (watch.key === key) watch.end();
    const final = this.#store.get(crdKey, '', String(metadata.name))!;
    const finalMeta = metaOf(final);
    finalMeta.finalizers = (finalMeta.finalizers as string[]).filter(
      (finalizer) => finalizer !== 'customresourcecleanup.apiextensions.k8s.io',
    );
    if ((finalMeta.finalizers as string[]).length === 0) {
      delete finalMeta.finalizers;
      this.#store.delete(crdKey, final);
    } else {
      this.#store.update(crdKey, final);
    }
    return this.#toVersion(info, response);
  }

  #deleteCollection(
    info: ResourceInfo,
    namespace: string | undefined,
    request: ApiRequest,
  ): unknown {
    const options = this.#deleteOptions(request);
    const selectors = this.#selectors(info, request.url.searchParams);
    const key = storageKey(info);
    const items: unknown[] = [];
    for (const object of this.#store.list(key, namespace)) {
      if (!this.#matches(info, selectors, object)) continue;
      const current = this.#store.get(
        key,
        stringOf(metaOf(object).namespace) ?? '',
        String(metaOf(object).name),
      );
      if (current === undefined) continue;
      this.#deleteObject(info, current, options);
      items.push(this.#stripListItem(info, this.#toVersion(info, current)));
    }
    return {
      kind: info.listKind,
      apiVersion: apiVersionOf(info),
      metadata: { resourceVersion: String(this.#store.currentRv()) },
      items,
    };
  }

  // ---- list ----

  /**
   * A not-older-than read at a resourceVersion this server has not reached. kube-apiserver's watch
   * cache waits up to 3 s for it and then answers 504; a single in-process store never catches up,
   * so this answers at once.
   */
  #requireReached(rvText: string): void {
    if (!/^\d+$/.test(rvText)) return;
    const current = Number(this.#store.currentRv());
    if (Number(rvText) > current) throw tooLargeResourceVersion(Number(rvText), current);
  }

  #stripListItem(info: ResourceInfo, object: KubeObject): KubeObject {
    // Typed lists of built-in kinds carry no kind/apiVersion per item; custom resource lists do.
    if (info.builtin) {
      delete object.kind;
      delete object.apiVersion;
    }
    return object;
  }

  #list(info: ResourceInfo, namespace: string | undefined, query: URLSearchParams): unknown {
    const selectors = this.#selectors(info, query);
    const limitText = query.get('limit');
    const limit = limitText === null || limitText === '' ? 0 : Number(limitText);
    if (!Number.isInteger(limit) || limit < 0) {
      throw badRequest(`invalid limit: ${String(limitText)}`);
    }
    const continueToken = query.get('continue') ?? '';
    validateListOptions(query, false);
    let atRv: number | undefined;
    let start: string | undefined;
    if (continueToken !== '') {
      const decoded = decodeContinue(continueToken);
      const rvText = query.get('resourceVersion') ?? '';
      if (rvText !== '' && rvText !== '0') {
        throw badRequest('specifying resource version is not allowed when using continue');
      }
      atRv = decoded.rv;
      start = decoded.start;
    } else {
      const rvText = query.get('resourceVersion') ?? '';
      const match = query.get('resourceVersionMatch') ?? '';
      if (rvText !== '' && !/^\d+$/.test(rvText)) {
        throw badRequest(`invalid resource version "${rvText}"`);
      }
      // An Exact list past the newest revision fails on etcd too; never label old state with it.
      this.#requireReached(rvText);
      if (match === 'Exact') atRv = Number(rvText);
    }
    const key = storageKey(info);
    let snapshot: Snapshot;
    try {
      snapshot = this.#store.snapshot(key, atRv);
    } catch (error) {
      if (error instanceof CompactedError) {
        if (continueToken !== '') {
          const status = failure(410, 'Expired', continueTooOld);
          status.metadata = {
            continue: encodeContinue(this.#store.currentRv(), start ?? ''),
          };
          throw new StatusError(status);
        }
        throw expired(`too old resource version: ${error.requested} (${error.oldest})`);
      }
      throw error;
    }
    const snapshotRv = atRv ?? this.#store.currentRv();
    const idOf = (object: KubeObject): string =>
      `${stringOf(metaOf(object).namespace) ?? ''}/${stringOf(metaOf(object).name) ?? ''}`;
    // Walk in key order only as far as the page needs: one more match than the limit says whether
    // anything is left, so a page costs its own size, not the resource's.
    const page: KubeObject[] = [];
    let more = false;
    for (const object of snapshot.objects(namespace, start)) {
      if (!this.#matches(info, selectors, object)) continue;
      if (limit > 0 && page.length === limit) {
        more = true;
        break;
      }
      page.push(object);
    }
    const metadata: Json = { resourceVersion: String(snapshotRv) };
    if (more) {
      metadata.continue = encodeContinue(snapshotRv, `${idOf(page[page.length - 1]!)}\u0000`);
      if (selectors.empty) metadata.remainingItemCount = snapshot.count(namespace, start) - limit;
    }
    return {
      kind: info.listKind,
      apiVersion: apiVersionOf(info),
      metadata,
      // The snapshot hands out the stored objects: every item is a copy.
      items: page.map((object) => {
        if (isEventsV1(info)) return this.#stripListItem(info, this.#toVersion(info, object));
        const copy = structuredClone(object);
        copy.apiVersion = apiVersionOf(info);
        copy.kind = info.kind;
        return this.#stripListItem(info, copy);
      }),
    };
  }

  // ---- watch ----

  #watch(
    info: ResourceInfo,
    namespace: string | undefined,
    query: URLSearchParams,
    name: string | undefined,
  ): WatchPlan {
    const selectors = this.#selectors(info, query, name);
    validateListOptions(query, true);
    const rvText = query.get('resourceVersion') ?? '';
    if (rvText !== '' && !/^\d+$/.test(rvText)) {
      throw badRequest(`invalid resource version "${rvText}"`);
    }
    const timeoutText = query.get('timeoutSeconds');
    const timeoutSeconds = timeoutText === null ? undefined : Number(timeoutText);
    if (timeoutSeconds !== undefined && (!Number.isFinite(timeoutSeconds) || timeoutSeconds < 0)) {
      throw badRequest(`invalid timeoutSeconds: ${String(timeoutText)}`);
    }
    const bookmarks = truthy(query.get('allowWatchBookmarks'));
    const sendInitialEvents = truthy(query.get('sendInitialEvents'));
    const key = storageKey(info);
    const store = this.#store;
    const watches = this.#watches;
    return {
      timeoutMs:
        timeoutSeconds === undefined || timeoutSeconds === 0 ? undefined : timeoutSeconds * 1000,
      bookmarks,
      key,
      start: (send, end) => {
        const emit = (type: string, object: KubeObject): void => {
          send({ type, object: this.#toVersion(info, object) });
        };
        const bookmark = (annotations?: Record<string, string>): void => {
          const metadata: Json = { resourceVersion: String(store.currentRv()) };
          if (annotations !== undefined) metadata.annotations = annotations;
          send({
            type: 'BOOKMARK',
            object: { kind: info.kind, apiVersion: apiVersionOf(info), metadata },
          });
        };
        const deliver = (event: HistoryEvent): void => {
          try {
            route(event);
          } catch (error) {
            // Never let one watch break the commit that notified it: end this watch with an error.
            send({ type: 'ERROR', object: failure(500, 'InternalError', errorMessage(error)) });
            end();
          }
        };
        const route = (event: HistoryEvent): void => {
          if (event.key !== key) return;
          if (namespace !== undefined && event.namespace !== namespace) return;
          const now = this.#matches(info, selectors, event.object);
          if (event.type === 'ADDED') {
            if (now) emit('ADDED', event.object);
            return;
          }
          if (event.type === 'DELETED') {
            const before =
              event.previous === undefined ? now : this.#matches(info, selectors, event.previous);
            if (before) emit('DELETED', event.object);
            return;
          }
          const before =
            event.previous === undefined ? false : this.#matches(info, selectors, event.previous);
          if (before && now) emit('MODIFIED', event.object);
          else if (now) emit('ADDED', event.object);
          else if (before) emit('DELETED', event.object);
        };
        let backlog: HistoryEvent[] = [];
        if (rvText === '' || rvText === '0' || sendInitialEvents) {
          // emit copies each object: read the stored ones in place.
          for (const object of store.snapshot(key).objects(namespace)) {
            if (this.#matches(info, selectors, object)) emit('ADDED', object);
          }
          if (sendInitialEvents && bookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
        } else {
          try {
            backlog = store.eventsAfter(Number(rvText));
          } catch (error) {
            if (!(error instanceof CompactedError)) throw error;
            send({
              type: 'ERROR',
              object: failure(
                410,
                'Expired',
                `too old resource version: ${error.requested} (${error.oldest})`,
              ),
            });
            end();
            return { stop: () => {}, bookmark: () => {} };
          }
        }
        for (const event of backlog) deliver(event);
        const unsubscribe = store.subscribe(deliver);
        const entry = { key, end };
        watches.add(entry);
        return {
          stop: () => {
            unsubscribe();
            watches.delete(entry);
          },
          bookmark: () => {
            if (bookmarks) bookmark();
          },
        };
      },
    };
  }
}

/**
 * ValidateConfigMapUpdate / ValidateSecretUpdate: once `immutable: true` is stored, data, binaryData
 * and the flag itself cannot change; a Secret's type never can.
 */
function validateImmutableData(
  existing: KubeObject,
  next: KubeObject,
  secret: boolean,
): FieldCause[] {
  const causes: FieldCause[] = [];
  if (secret && (existing.type ?? 'Opaque') !== (next.type ?? 'Opaque')) {
    causes.push({
      type: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(next.type ?? '')}: field is immutable`,
      field: 'type',
    });
  }
  if (existing.immutable !== true) return causes;
  const forbidden = (field: string): void => {
    causes.push({
      type: 'FieldValueForbidden',
      message: 'Forbidden: field is immutable when `immutable` is set',
      field,
    });
  };
  if (next.immutable !== true) forbidden('immutable');
  // reflect.DeepEqual: an absent map and an empty one differ, as in Go.
  if (canonical(existing.data ?? null) !== canonical(next.data ?? null)) forbidden('data');
  if (!secret && canonical(existing.binaryData ?? null) !== canonical(next.binaryData ?? null)) {
    forbidden('binaryData');
  }
  return causes;
}

/** The finalizer the garbage collector would act on for a Foreground or Orphan propagation policy. */
function addPropagationFinalizer(finalizers: string[], options: Json): void {
  if (options.propagationPolicy === 'Foreground' && !finalizers.includes('foregroundDeletion')) {
    finalizers.push('foregroundDeletion');
  }
  if (options.propagationPolicy === 'Orphan' && !finalizers.includes('orphan')) {
    finalizers.push('orphan');
  }
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/**
 * The decoding errors kube-apiserver's typed JSON decoder reports (400) for fields of the wrong JSON
 * type: metadata and its string fields, spec/status of built-in kinds, ConfigMap/Secret data.
 */
function checkShape(info: ResourceInfo, object: Json): void {
  const fail = (field: string, value: unknown, goType: string): never => {
    throw badRequest(
      `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: json: cannot unmarshal ${jsonType(value)} into Go struct field ${field} of type ${goType}`,
    );
  };
  const metadata = object.metadata;
  if (metadata === undefined || metadata === null) return;
  if (!isRecord(metadata)) fail(`${info.kind}.metadata`, metadata, 'v1.ObjectMeta');
  const meta = metadata as Json;
  for (const field of ['name', 'generateName', 'namespace', 'resourceVersion', 'uid']) {
    const value = meta[field];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      fail(`ObjectMeta.metadata.${field}`, value, 'string');
    }
  }
  if (!info.builtin) return;
  for (const field of ['spec', 'status']) {
    const value = object[field];
    if (value !== undefined && value !== null && !isRecord(value)) {
      fail(
        `${info.kind}.${field}`,
        value,
        `v1.${info.kind}${field === 'spec' ? 'Spec' : 'Status'}`,
      );
    }
  }
  if (info.group === '' && (info.resource === 'configmaps' || info.resource === 'secrets')) {
    for (const field of ['data', 'binaryData', 'stringData']) {
      const value = object[field];
      if (value === undefined || value === null) continue;
      if (!isRecord(value)) fail(`${info.kind}.${field}`, value, 'map[string]string');
      for (const [key, item] of Object.entries(value as Json)) {
        if (typeof item !== 'string') fail(`${info.kind}.${field}[${key}]`, item, 'string');
      }
    }
  }
}

/**
 * The text of etcd3's StorageError for a failed precondition, which kube-apiserver wraps in its 409
 * (storage/errors.go): built-in resources live under /registry/{resource}, custom ones under
 * /registry/{group}/{resource}.
 */
function storageInvalid(info: ResourceInfo, metadata: Json, message: string): string {
  const prefix = info.builtin ? info.resource : `${info.group}/${info.resource}`;
  const namespace = stringOf(metadata.namespace);
  const key = `/registry/${prefix}/${namespace === undefined ? '' : `${namespace}/`}${String(metadata.name)}`;
  return `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: ${message}`;
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const decoded = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as unknown;
    if (
      isRecord(decoded) &&
      decoded.v === 'meta.k8s.io/v1' &&
      typeof decoded.rv === 'number' &&
      typeof decoded.start === 'string'
    ) {
      return { rv: decoded.rv, start: decoded.start };
    }
  } catch {
    // fall through to the Status kube-apiserver sends for any undecodable token
  }
  throw badRequest(
    'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
}
