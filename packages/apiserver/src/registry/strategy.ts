// What differs between kinds, as k8s.io/apiserver's RESTCreateStrategy, RESTUpdateStrategy and
// RESTDeleteStrategy express it (kube's registry/rest): the interface the generic registry
// (generic-registry.ts) calls; each kind's strategy is in strategies/.

import type { Json } from '../apimachinery/objects.ts';
import type { ResourceInfo } from '../resources/builtin-resources.ts';
import type { KubeObject } from '../storage/store.ts';
import type { ServerContext } from './server-context.ts';

/** One field error of a 422 Invalid (apimachinery/name-validation.ts and registry/custom-resource-definitions.ts each have their own narrower type). */
export interface Cause {
  type: string;
  message: string;
  field: string;
}

/** The per-kind behaviour of create, update and delete. Optional hooks default to "nothing special". */
/** What a strategy is looked up by: a served resource's group and resource, and whether it is built in. */
export type StrategyKey = Pick<ResourceInfo, 'group' | 'resource' | 'builtin'>;

/** Finds the strategy of a served resource (`ServerContext.strategyFor`). */
export type StrategyLookup = (info: StrategyKey) => Strategy;

export interface Strategy {
  /**
   * Top-level fields the Go type has besides apiVersion, kind and metadata; typed decoding drops the
   * others. Undefined: keep every field (custom resources are pruned by their schema instead).
   */
  readonly topLevelFields?: readonly string[];
  /** Fields decoded as map[string]string: a value of another JSON type is a 400, as Go's decoder says. */
  readonly stringMapFields?: readonly string[];
  /** PUT without metadata.resourceVersion is allowed (last write wins); false: 422 "must be specified". */
  readonly allowUnconditionalUpdate: boolean;
  /** PUT (and patch) of a missing object creates it. */
  readonly allowCreateOnUpdate: boolean;
  /** DELETE answers the deleted object rather than a Status (pods and custom resources). */
  readonly returnDeletedObject: boolean;
  /**
   * A delete without a propagation policy orphans the dependents (DefaultGarbageCollectionPolicy
   * OrphanDependents: batch/v1 Jobs, kept for compatibility); undefined: Background.
   */
  readonly orphanDependentsByDefault?: boolean;

  /** A decoded body of version `info` in the shape it is stored in (multi-version kinds convert). */
  toStored?(info: ResourceInfo, object: KubeObject): KubeObject;
  /** A stored object as version `info` shows it, as a new object. */
  toVersion?(info: ResourceInfo, object: KubeObject): KubeObject;

  /** Defaults and resets of a new object (status is written only through the status subresource). */
  prepareForCreate(context: ServerContext, info: ResourceInfo, object: KubeObject): void;
  /** Admission of a new object, after defaulting (kube's mutating + validating admission plugins). */
  admitCreate?(context: ServerContext, info: ResourceInfo, object: KubeObject): void;
  /** Resets of an update of the main resource: what it may not change (status, a namespace's spec). */
  prepareForUpdate(
    context: ServerContext,
    info: ResourceInfo,
    existing: KubeObject,
    next: KubeObject,
  ): void;
  /**
   * The object a write to a subresource other than status produces from the live one and the body
   * (a Namespace's finalize); undefined when the strategy has no such subresource.
   */
  updateSubresource?(subresource: string, existing: KubeObject, incoming: KubeObject): KubeObject;
  /**
   * Drop what the type does not hold, as decoding into the Go type (or schema pruning) would; runs
   * before {@link Strategy.validate} on every write.
   */
  canonicalize(context: ServerContext, info: ResourceInfo, object: KubeObject): void;
  /** Field errors of an object about to be stored (metadata is validated generically). */
  validate(context: ServerContext, info: ResourceInfo, object: KubeObject): Cause[];
  /**
   * Field errors of an update that only the pair (live, next) shows, e.g. immutable fields or a custom
   * resource's CEL transition rules.
   */
  validateUpdate?(
    existing: KubeObject,
    next: KubeObject,
    context: ServerContext,
    info: ResourceInfo,
  ): Cause[];
  /** True when this update bumps metadata.generation beyond a spec change (Deployment annotations). */
  bumpsGeneration?(existing: KubeObject, next: KubeObject): boolean;
  /** True while something other than metadata.finalizers holds a deleted object (a Namespace's spec). */
  holdsDeletion?(object: KubeObject): boolean;
  /** Runs after the object is stored by a create. */
  afterCreate?(context: ServerContext, stored: KubeObject): void;
  /** Runs after the main resource (not a subresource) is stored by an update. */
  afterUpdate?(context: ServerContext, stored: KubeObject): void;
  /**
   * Replaces the generic finalizer-aware delete (run after the preconditions): a Namespace turns
   * Terminating, a CRD removes its objects, a scheduled Pod waits its grace period. Undefined: go on
   * with the generic delete.
   */
  delete?(
    context: ServerContext,
    info: ResourceInfo,
    existing: KubeObject,
    options: Json,
    finalizers: string[],
  ): unknown;
  /** Where the Scale subresource reads and writes replicas. */
  scalePaths?(info: ResourceInfo): ScalePaths;
}

/** Where a kind keeps what its Scale subresource shows (dotted paths without the leading dot). */
export interface ScalePaths {
  spec: string;
  status: string;
  selector?: string;
}
