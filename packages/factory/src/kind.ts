// Kind tokens (kube-rs `Api<K>`'s idea): a value naming a kind that carries the TypeScript type of its objects, so
// a factory call given the token returns a typed client, informer or controller without a generic or a cast.
// Also the one way the factories accept a kind: `{ apiVersion, kind }` or `{ group, version, kind }`, both
// everywhere.
import {
  type BuiltinApiVersion,
  type BuiltinKind,
  builtinMappingFor,
  type Client,
  type GroupVersionKind,
  type GroupVersionResource,
  type KindType,
  type KubeObject,
  type KubeObjectLike,
  parseApiVersion,
} from '@lasso/client';
import type { ApiVersionOf } from './kind-types.ts';

/**
 * A kind as the factories accept it, in either of Kubernetes' two spellings: `{ apiVersion: 'apps/v1', kind:
 * 'Deployment' }` (as objects carry it) or `{ group: 'apps', version: 'v1', kind: 'Deployment' }` (as
 * apimachinery's GroupVersionKind). A {@link Kind} token is both.
 */
export type KindRef =
  | { readonly apiVersion: string; readonly kind: string }
  | { readonly group: string; readonly version: string; readonly kind: string };

/**
 * A kind together with the type of its objects: what {@link kindFor} and {@link kindOf} return, and what the
 * factories' `forKind` turn into a `Client<T>`, `SharedIndexInformer<T>` or `SharedController<T>` without a
 * generic parameter. When `resource` and `namespaced` are known (built-in kinds, kinds taken from a client,
 * or given), the factories need no discovery for it, so a controller can be registered on a custom resource
 * whose CRD is not installed yet (it starts once the server serves it).
 */
export interface Kind<T extends KubeObjectLike = KubeObject> extends GroupVersionKind {
  /** `group/version`, or the version alone for the core group. */
  readonly apiVersion: string;
  /** The plural resource serving the kind, when known. */
  readonly resource: string | undefined;
  /** Whether the kind is namespaced, when known. */
  readonly namespaced: boolean | undefined;
  /** Type only (never set): the object type the token carries. */
  readonly __objectType?: T | undefined;
}

/** Where a custom kind is served: its plural resource name and scope. */
export interface KindServedAs {
  readonly resource: string;
  readonly namespaced: boolean;
}

/** The object type a {@link KindRef} names: a token's own, the built-in table's, else {@link KubeObject}. */
export type KindRefType<R> = R extends { readonly __objectType?: infer T extends KubeObjectLike }
  ? unknown extends T
    ? KindType<RefApiVersion<R>, RefKind<R>>
    : T
  : KindType<RefApiVersion<R>, RefKind<R>>;

type RefApiVersion<R> = R extends { readonly apiVersion: infer V extends string }
  ? V
  : R extends { readonly group: infer G extends string; readonly version: infer V extends string }
    ? ApiVersionOf<G, V>
    : string;

type RefKind<R> = R extends { readonly kind: infer K extends string } ? K : string;

/**
 * The token of a kind. A built-in kind needs nothing else: its type and resource come from the built-in
 * table. A custom resource names its type with the generic parameter, once, here; give `servedAs` to
 * skip discovery (and to register handlers before its CRD is installed).
 *
 * Throws a TypeError naming `apiVersion` or `kind` when either is malformed.
 *
 * @example
 * ```ts
 * const deployments = kindFor('apps/v1', 'Deployment'); // Kind<Deployment>
 * interface Widget extends KubeObject { spec?: { size?: number } }
 * const widgets = kindFor<Widget>('example.com/v1', 'Widget', { resource: 'widgets', namespaced: true });
 * ```
 */
export function kindFor<V extends BuiltinApiVersion, K extends BuiltinKind<V>>(
  apiVersion: V,
  kind: K,
): Kind<KindType<V, K>>;
export function kindFor<T extends KubeObjectLike = KubeObject>(
  apiVersion: string,
  kind: string,
  servedAs?: KindServedAs,
): Kind<T>;
export function kindFor(
  apiVersion: string,
  kind: string,
  servedAs?: KindServedAs,
): Kind<KubeObjectLike> {
  const { group, version } = parseApiVersion(apiVersion, 'kindFor: apiVersion');
  checkName(kind, 'kindFor: kind');
  if (servedAs !== undefined) {
    checkName(servedAs?.resource, 'kindFor: servedAs.resource');
    if (typeof servedAs.namespaced !== 'boolean') {
      throw new TypeError('kindFor: servedAs.namespaced must be true or false');
    }
  }
  const builtin = servedAs === undefined ? builtinMappingFor(apiVersion, kind) : undefined;
  return Object.freeze({
    group,
    version,
    kind,
    apiVersion,
    resource: servedAs?.resource ?? builtin?.gvr.resource,
    namespaced: servedAs?.namespaced ?? builtin?.namespaced,
  });
}

/**
 * The token of the kind a client serves, typed as the client: `kindOf(client)` of a `Client<Widget>` is a
 * `Kind<Widget>`, with the client's resource and scope (no discovery).
 *
 * @example
 * ```ts
 * interface Widget extends KubeObject { spec?: { size?: number } }
 * declare const factory: SharedControllerFactory;
 * const widgets = new Client<Widget>({ gvr: { group: 'example.com', version: 'v1', resource: 'widgets' }, kind: 'Widget', namespaced: true, rest });
 * const controller = await factory.forKind(kindOf(widgets)); // SharedController<Widget>
 * ```
 */
export function kindOf<T extends KubeObjectLike>(client: Client<T>): Kind<T> {
  const gvr: GroupVersionResource | undefined = client?.gvr;
  if (typeof gvr !== 'object' || gvr === null) {
    throw new TypeError('kindOf: client must have a gvr');
  }
  const apiVersion = gvr.group === '' ? gvr.version : `${gvr.group}/${gvr.version}`;
  return kindFor<T>(apiVersion, client.kind, {
    resource: gvr.resource,
    namespaced: client.namespaced,
  });
}

/**
 * The kind of a {@link KindRef} as `{ group, version, kind }`, plus the resource and scope when the reference
 * is a token that knows them. Throws a TypeError naming `where` and the bad field.
 *
 * @internal
 */
export function resolveKindRef(
  ref: unknown,
  where: string,
): { gvk: GroupVersionKind; servedAs: KindServedAs | undefined } {
  const value = ref as
    | {
        apiVersion?: unknown;
        group?: unknown;
        version?: unknown;
        kind?: unknown;
        resource?: unknown;
        namespaced?: unknown;
      }
    | null
    | undefined;
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(
      `${where}: kind must be { apiVersion, kind } or { group, version, kind }, got ${String(ref)}`,
    );
  }
  let group: string;
  let version: string;
  if (typeof value.group === 'string' && value.version !== undefined) {
    group = value.group;
    version = checkName(value.version, `${where}: version`);
  } else if (value.apiVersion !== undefined) {
    ({ group, version } = parseApiVersion(value.apiVersion, `${where}: apiVersion`));
  } else {
    throw new TypeError(
      `${where}: kind must be { apiVersion, kind } or { group, version, kind } (group '' for the core group)`,
    );
  }
  const kind = checkName(value.kind, `${where}: kind`);
  const servedAs =
    typeof value.resource === 'string' &&
    value.resource !== '' &&
    typeof value.namespaced === 'boolean'
      ? { resource: value.resource, namespaced: value.namespaced }
      : undefined;
  return { gvk: { group, version, kind }, servedAs };
}

function checkName(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`${what} must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}
