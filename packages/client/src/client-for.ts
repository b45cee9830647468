// clientFor / clientForKind: a Client named by apiVersion + kind alone, from the built-in table or a RESTMapper
// (client-go's pattern of resolving a GVK through restmapper before building a dynamic client).
import {
  type BuiltinApiVersion,
  type BuiltinKind,
  builtinMappingFor,
  type KindType,
  splitApiVersion,
} from './builtin-kinds.ts';
import { Client, type ClientOptions } from './client.ts';
import type { RestConfig } from './config/rest-config.ts';
import type { RestMapper, RestMapping } from './rest-mapper.ts';
import type { RestTransport } from './transport.ts';
import type { KubeObject, KubeObjectLike } from './types.ts';

/** Options of {@link clientFor}: the kind to serve and the per-client options of {@link ClientOptions}. */
export interface ClientForOptions<V extends string = string, K extends string = string>
  extends Pick<ClientOptions, 'defaultTimeoutMs' | 'userAgent' | 'impersonation'> {
  /** `v1` for the core group, `group/version` otherwise. */
  apiVersion: V;
  kind: K;
}

/** Options of {@link clientForKind}: those of {@link clientFor} plus a signal for the discovery lookup. */
export interface ClientForKindOptions<V extends string = string, K extends string = string>
  extends ClientForOptions<V, K> {
  signal?: AbortSignal | undefined;
}

/** The literal `kind` of `T` (`'ConfigMap'` for kubernetes-types' ConfigMap), `string` when `T` has none. */
type KindOf<T> = T extends { kind?: infer K }
  ? string extends Exclude<K, undefined>
    ? string
    : Exclude<K, undefined> & string
  : string;

/** The literal `apiVersion` of `T`, `string` when `T` has none. */
type ApiVersionOf<T> = T extends { apiVersion?: infer V }
  ? string extends Exclude<V, undefined>
    ? string
    : Exclude<V, undefined> & string
  : string;

/**
 * A client of a built-in kind, named by `apiVersion` + `kind` alone: the resource and scope come
 * from {@link builtinKinds}, the object type from {@link BuiltinKinds}, so no generic and no
 * `{ gvr, kind, namespaced }` triple is written by hand. Synchronous, no I/O. For custom resources,
 * or to ask the server, use {@link clientForKind}.
 *
 * Throws a TypeError naming `apiVersion`/`kind` when they are not a built-in kind (only reachable
 * without the compiler's check).
 *
 * @example
 * ```ts
 * const configMaps = clientFor(rest, { apiVersion: 'v1', kind: 'ConfigMap' }); // Client<ConfigMap>
 * const deployments = clientFor(rest, { apiVersion: 'apps/v1', kind: 'Deployment' }); // Client<Deployment>
 * ```
 */
export function clientFor<V extends BuiltinApiVersion, K extends BuiltinKind<V>>(
  rest: RestConfig | RestTransport,
  options: ClientForOptions<V, K>,
): Client<KindType<V, K>> {
  const { apiVersion, kind } = options;
  splitApiVersion(apiVersion);
  const mapping = builtinMappingFor(apiVersion, kind);
  if (mapping === undefined) {
    throw new TypeError(
      `clientFor: apiVersion ${JSON.stringify(apiVersion)} kind ${JSON.stringify(kind)} is not a built-in kind; use clientForKind with a RestMapper`,
    );
  }
  return fromMapping<KindType<V, K>>(rest, mapping, options);
}

/**
 * A client of any kind, named by `apiVersion` + `kind` and resolved through `mapper` (discovery,
 * cached by the mapper; a kind installed after the mapper's last look is found by its refresh).
 * The resource and scope are the server's, so the client cannot disagree with it.
 *
 * A built-in kind is typed from {@link BuiltinKinds}; any other kind is `Client<KubeObject>`, or
 * `Client<T>` with `T` given explicitly. When `T` declares literal `apiVersion`/`kind` fields, the
 * options must name the same ones. Rejects with `LASSO_NO_KIND_MATCH` when the server does not serve
 * the kind, and throws a TypeError naming `apiVersion` for a malformed one.
 *
 * @example
 * ```ts
 * const mapper = createRestMapper(rest);
 * const deployments = await clientForKind(rest, mapper, { apiVersion: 'apps/v1', kind: 'Deployment' });
 * interface Widget extends KubeObject { spec?: { size?: number } }
 * const widgets = await clientForKind<Widget>(rest, mapper, { apiVersion: 'example.com/v1', kind: 'Widget' });
 * ```
 */
export function clientForKind<V extends BuiltinApiVersion, K extends BuiltinKind<V>>(
  rest: RestConfig | RestTransport,
  mapper: RestMapper,
  options: ClientForKindOptions<V, K>,
): Promise<Client<KindType<V, K>>>;
export function clientForKind<T extends KubeObjectLike = KubeObject>(
  rest: RestConfig | RestTransport,
  mapper: RestMapper,
  options: ClientForKindOptions<ApiVersionOf<T>, KindOf<T>>,
): Promise<Client<T>>;
export async function clientForKind(
  rest: RestConfig | RestTransport,
  mapper: RestMapper,
  options: ClientForKindOptions,
): Promise<Client<KubeObjectLike>> {
  const { apiVersion, kind, signal } = options;
  const { group, version } = splitApiVersion(apiVersion);
  if (typeof kind !== 'string' || kind === '') {
    throw new TypeError('clientForKind: kind must be a non-empty string');
  }
  const mapping = await mapper.resourceFor({ group, version, kind }, { signal });
  return fromMapping(rest, mapping, options);
}

function fromMapping<T extends KubeObjectLike>(
  rest: RestConfig | RestTransport,
  mapping: RestMapping,
  options: ClientForOptions,
): Client<T> {
  const clientOptions: ClientOptions = {
    gvr: mapping.gvr,
    kind: mapping.gvk.kind,
    namespaced: mapping.namespaced,
    rest,
  };
  if (options.defaultTimeoutMs !== undefined)
    clientOptions.defaultTimeoutMs = options.defaultTimeoutMs;
  if (options.userAgent !== undefined) clientOptions.userAgent = options.userAgent;
  if (options.impersonation !== undefined) clientOptions.impersonation = options.impersonation;
  return new Client<T>(clientOptions);
}
