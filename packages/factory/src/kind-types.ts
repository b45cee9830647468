// Type-level lookups that give factory results the object type of a kind: the kubernetes-types interface of a
// built-in kind (through @lasso/client's BuiltinKinds table), or the type the caller names for anything else.
import type {
  BuiltinApiVersion,
  BuiltinKinds,
  KindType,
  KubeObject,
  KubeObjectLike,
} from '@lasso/client';

/** The `apiVersion` of a group and version: `'apps/v1'`, or `'v1'` for the core group `''`. */
export type ApiVersionOf<G extends string, V extends string> = G extends '' ? V : `${G}/${V}`;

/**
 * The object type of a GVK: the `kubernetes-types` interface for a built-in kind, {@link KubeObject}
 * otherwise (custom resources name their type with a generic parameter instead).
 *
 * @example
 * ```ts
 * type D = GroupVersionKindType<'apps', 'v1', 'Deployment'>; // Deployment
 * type C = GroupVersionKindType<'', 'v1', 'ConfigMap'>; // ConfigMap
 * type W = GroupVersionKindType<'example.com', 'v1', 'Widget'>; // KubeObject
 * ```
 */
export type GroupVersionKindType<G extends string, V extends string, K extends string> = KindType<
  ApiVersionOf<G, V>,
  K
>;

/** True when `apiVersion` + `kind` is in the built-in table. */
type IsBuiltin<V extends string, K extends string> = V extends BuiltinApiVersion
  ? K extends keyof BuiltinKinds[V]
    ? true
    : false
  : false;

/**
 * The object type of what `forObject` is given: a built-in kind named by literal `apiVersion` and `kind`
 * fields gets its `kubernetes-types` interface; anything else (a typed object such as a `Deployment`, whose
 * fields are plain strings, or a custom resource type) keeps its own type.
 */
export type ObjectKindType<T extends KubeObjectLike> = T extends {
  readonly apiVersion: infer V extends string;
  readonly kind: infer K extends string;
}
  ? IsBuiltin<V, K> extends true
    ? KindType<V, K>
    : T
  : T;
