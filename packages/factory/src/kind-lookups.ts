// forObject / forKind / forResource, written once for the three factories: each factory implements only
// forResourceKind (what it makes of a resolved kind) and how it resolves kinds and resources.
import type { SharedIndexInformer } from '@lasso/cache';
import type {
  Client,
  GroupVersionKind,
  GroupVersionResource,
  KubeObject,
  KubeObjectLike,
} from '@lasso/client';
import type { SharedController } from '@lasso/controller';
import { checkGvr, checkKind, checkNamespaced } from './checks.ts';
import { type Kind, type KindRef, type KindRefType, resolveKindRef } from './kind.ts';
import type { ObjectKindType } from './kind-types.ts';
import type { SharedClientFactory } from './shared-client-factory.ts';

/** What each factory makes of a kind, by the name of the factory's product. */
export interface FactoryProducts<T extends KubeObjectLike> {
  client: Client<T>;
  informer: SharedIndexInformer<T>;
  controller: SharedController<T>;
}

/** The product names of {@link FactoryProducts}. */
export type FactoryProduct = keyof FactoryProducts<KubeObject>;

/** Options of the lookups that may ask the server (discovery through the RESTMapper). */
export interface LookupOptions {
  /** Stops waiting for the lookup (a lookup shared with other callers keeps running for them). */
  signal?: AbortSignal | undefined;
}

/** A kind resolved to where it is served. */
export interface ResolvedKind {
  readonly gvr: GroupVersionResource;
  readonly kind: string;
  readonly namespaced: boolean;
}

/**
 * The lookups every factory has, typed by what it makes (`P`): a `Client<T>`, a `SharedIndexInformer<T>` or a
 * `SharedController<T>`. A kind is named by a {@link Kind} token (typed by the token), by `{ apiVersion,
 * kind }` or `{ group, version, kind }` (a built-in kind typed from the built-in table, anything else
 * `KubeObject`), or by an object (its `apiVersion` and `kind`).
 */
export interface KindLookups<P extends FactoryProduct> {
  /**
   * The product of an object's kind (from its `apiVersion` and `kind`; a TypeError when either is
   * missing). Typed as the object, or from the built-in table when both fields are literal.
   */
  forObject<const T extends KubeObjectLike>(
    object: T,
    options?: LookupOptions,
  ): Promise<FactoryProducts<ObjectKindType<T>>[P]>;
  /**
   * The product of a kind. A {@link Kind} token that knows its resource and scope needs no discovery (a
   * custom resource whose CRD is not installed yet included); otherwise the resource and scope come from the
   * RESTMapper, which rejects with `LASSO_NO_KIND_MATCH` when the server does not serve the kind.
   */
  forKind<T extends KubeObjectLike>(
    kind: Kind<T>,
    options?: LookupOptions,
  ): Promise<FactoryProducts<T>[P]>;
  forKind<const R extends KindRef>(
    kind: R,
    options?: LookupOptions,
  ): Promise<FactoryProducts<KindRefType<R>>[P]>;
  /** @deprecated Name the type once, with a {@link Kind} token (`kindFor<Widget>(...)`), and pass the token. */
  forKind<T extends KubeObjectLike>(
    kind: KindRef,
    options?: LookupOptions,
  ): Promise<FactoryProducts<T>[P]>;
  /**
   * The product of a resource; its kind comes from the RESTMapper. Rejects with `LASSO_NO_KIND_MATCH` when
   * the server does not serve it, and with a TypeError when `namespaced` disagrees with the server.
   */
  forResource<T extends KubeObjectLike = KubeObject>(
    gvr: GroupVersionResource,
    namespaced: boolean,
    options?: LookupOptions,
  ): Promise<FactoryProducts<T>[P]>;
  /**
   * The product of a resource whose kind and scope the caller knows: no lookup, no I/O. Throws a TypeError
   * when this factory already has one for `gvr` with another kind or scope.
   */
  forResourceKind<T extends KubeObjectLike = KubeObject>(
    gvr: GroupVersionResource,
    kind: string,
    namespaced: boolean,
  ): FactoryProducts<T>[P];
}

/**
 * @internal The three lookups in terms of a factory's `forResourceKind` and its resolvers: the factories extend
 * this instead of writing forObject/forKind/forResource each.
 */
export abstract class KindLookupsBase<P extends FactoryProduct> implements KindLookups<P> {
  /** Where the server serves `gvk` (RESTMapper). */
  protected abstract resolveKind(
    gvk: GroupVersionKind,
    options: LookupOptions,
  ): Promise<ResolvedKind>;
  /** The kind served at `gvr`, checked against `namespaced` (RESTMapper). */
  protected abstract resolveResource(
    gvr: GroupVersionResource,
    namespaced: boolean,
    options: LookupOptions,
  ): Promise<ResolvedKind>;

  abstract forResourceKind<T extends KubeObjectLike = KubeObject>(
    gvr: GroupVersionResource,
    kind: string,
    namespaced: boolean,
  ): FactoryProducts<T>[P];

  forObject<const T extends KubeObjectLike>(
    object: T,
    options?: LookupOptions,
  ): Promise<FactoryProducts<ObjectKindType<T>>[P]>;
  async forObject(object: unknown, options: LookupOptions = {}): Promise<unknown> {
    if (typeof object !== 'object' || object === null) {
      throw new TypeError(`forObject: object must be a Kubernetes object, got ${String(object)}`);
    }
    const { apiVersion, kind } = object as { apiVersion?: unknown; kind?: unknown };
    return this.#forRef({ apiVersion, kind }, 'forObject: object', options);
  }

  forKind<T extends KubeObjectLike>(
    kind: Kind<T>,
    options?: LookupOptions,
  ): Promise<FactoryProducts<T>[P]>;
  forKind<const R extends KindRef>(
    kind: R,
    options?: LookupOptions,
  ): Promise<FactoryProducts<KindRefType<R>>[P]>;
  /** @deprecated Name the type once, with a {@link Kind} token (`kindFor<Widget>(...)`), and pass the token. */
  forKind<T extends KubeObjectLike>(
    kind: KindRef,
    options?: LookupOptions,
  ): Promise<FactoryProducts<T>[P]>;
  async forKind(kind: unknown, options: LookupOptions = {}): Promise<unknown> {
    return this.#forRef(kind, 'forKind', options);
  }

  async forResource<T extends KubeObjectLike = KubeObject>(
    gvr: GroupVersionResource,
    namespaced: boolean,
    options: LookupOptions = {},
  ): Promise<FactoryProducts<T>[P]> {
    const checked = checkGvr(gvr, 'forResource');
    checkNamespaced(namespaced, 'forResource');
    const resolved = await this.resolveResource(checked, namespaced, options);
    return this.forResourceKind<T>(resolved.gvr, resolved.kind, resolved.namespaced);
  }

  async #forRef(ref: unknown, where: string, options: LookupOptions): Promise<unknown> {
    const { gvk, servedAs } = resolveKindRef(ref, where);
    if (servedAs !== undefined) {
      const gvr = { group: gvk.group, version: gvk.version, resource: servedAs.resource };
      return this.forResourceKind(gvr, gvk.kind, servedAs.namespaced);
    }
    const resolved = await this.resolveKind(gvk, options);
    return this.forResourceKind(resolved.gvr, resolved.kind, resolved.namespaced);
  }
}

/**
 * @internal The lookups of a factory built over a client factory (the cache and the controller factory): kinds and
 * resources resolve through that factory's RESTMapper, so both share its lookups and its answers.
 */
export abstract class ClientBackedLookups<P extends FactoryProduct> extends KindLookupsBase<P> {
  abstract sharedClientFactory(): SharedClientFactory;

  protected async resolveKind(
    gvk: GroupVersionKind,
    options: LookupOptions,
  ): Promise<ResolvedKind> {
    const mapping = await this.sharedClientFactory().resourceForGVK(gvk, options);
    return { gvr: mapping.gvr, kind: mapping.gvk.kind, namespaced: mapping.namespaced };
  }

  protected async resolveResource(
    gvr: GroupVersionResource,
    namespaced: boolean,
    options: LookupOptions,
  ): Promise<ResolvedKind> {
    const client = await this.sharedClientFactory().forResource(gvr, namespaced, options);
    return { gvr: client.gvr, kind: client.kind, namespaced: client.namespaced };
  }
}

/**
 * @internal One product per key, of any object type. The single place a factory's product is given the type
 * the caller asked for: the key holds products of many types, which TypeScript cannot index by type. The
 * caller's type comes from a {@link Kind} token, the built-in table, or the deprecated generic.
 */
export class ProductRegistry<P extends FactoryProduct> {
  readonly #products = new Map<string, FactoryProducts<KubeObjectLike>[P]>();

  get<T extends KubeObjectLike>(key: string): FactoryProducts<T>[P] | undefined {
    return this.#products.get(key) as FactoryProducts<T>[P] | undefined;
  }

  set(key: string, product: FactoryProducts<KubeObjectLike>[P]): void {
    this.#products.set(key, product);
  }

  values(): IterableIterator<FactoryProducts<KubeObjectLike>[P]> {
    return this.#products.values();
  }
}

/** @internal Checks `forResourceKind`'s arguments, naming `where`. */
export function checkResourceKind(
  gvr: unknown,
  kind: unknown,
  namespaced: unknown,
  where: string,
): ResolvedKind {
  return {
    gvr: checkGvr(gvr, where),
    kind: checkKind(kind, where),
    namespaced: checkNamespaced(namespaced, where),
  };
}
