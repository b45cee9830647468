// What every handler, strategy and the generic registry share for one server: the pieces kube-apiserver
// wires into its REST storage at startup (clock, storage, the served-resource registry, token issuer).
import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '@lasso/core';
import type { UserInfo } from '../authentication/authenticate.ts';
import type { ServiceAccountTokens } from '../authentication/service-account-tokens.ts';
import type { UnknownFieldsFinder } from '../openapi/field-validation.ts';
import type { RequestTarget } from '../request/request-target.ts';
import type { ResourceInfo } from '../resources/builtin-resources.ts';
import type { Registry } from '../resources/served-resources.ts';
import type { KubeObject, Store } from '../storage/store.ts';
import type { WatchFanout, WatchPlan } from '../storage/watch-fanout.ts';
import type { ClusterIpAllocator } from './cluster-ips.ts';
import type { StrategyLookup } from './strategy.ts';
import type { EventConverter } from './watch-conversion.ts';

/** A request after transport concerns (TLS, auth, body limits) are handled. */
export interface ApiRequest {
  method: string;
  /** The target as sent (dot segments kept, percent-decoded); a `URL` for in-process requests. */
  url: RequestTarget;
  headers: IncomingHttpHeaders;
  body: Buffer;
  user: UserInfo;
}

/** The outcome of a request. */
export type ApiResult =
  | {
      type: 'json';
      code: number;
      body: unknown;
      /** `Warning` response headers (RFC 7234 `299 - "text"` values), one per warning, as kube sends them. */
      warnings?: readonly string[];
    }
  | { type: 'text'; code: number; body: string }
  /** A body already serialised, with its own Content-Type and headers (the OpenAPI documents). */
  | {
      type: 'raw';
      code: number;
      contentType: string;
      headers: Record<string, string>;
      body: string | Uint8Array;
    }
  | { type: 'watch'; plan: WatchPlan };

/**
 * The storage operations handlers use. A structural type rather than the {@link Store} class, so that a
 * request can be served against a view of the store (a dry run) without handlers knowing.
 */
export type ObjectStore = Pick<
  Store,
  | 'get'
  | 'has'
  | 'list'
  | 'snapshot'
  | 'create'
  | 'update'
  | 'delete'
  | 'currentRv'
  | 'eventsAfter'
  | 'subscribe'
>;

/** The shared state of one server, passed to every handler instead of living in class fields. */
export interface ServerContext {
  readonly clock: Clock;
  /** The resources served right now (built-ins plus established CRDs). */
  readonly registry: Registry;
  readonly store: ObjectStore;
  readonly tokens: ServiceAccountTokens;
  readonly watches: WatchFanout;
  /** The strategy of each served resource (what is particular to its kind). */
  readonly strategyFor: StrategyLookup;
  /** Service clusterIPs handed out so far. */
  readonly clusterIps: ClusterIpAllocator;
  /** The address clients reach the server at (discovery's serverAddressByClientCIDRs). */
  readonly serverAddress: () => string;
  /** Now, at the one-second precision of metav1.Time. */
  now(): string;
  /**
   * True while serving a dryRun=All request: `store` persists nothing; strategies skip side effects
   * outside the store (serving a CRD's resources, handing out a clusterIP).
   */
  readonly dryRun: boolean;
  /** The fields of an object its published OpenAPI schema does not declare (fieldValidation). */
  readonly unknownFields?: UnknownFieldsFinder;
  /**
   * Serve `shardSelector` on list and watch (KEP-5866, kube-apiserver 1.36 with the ShardedListAndWatch
   * gate on); false: ignore the parameter as a server without the gate does. Undefined: on.
   */
  readonly shardedListAndWatch?: boolean;
  /** Admission webhooks of this request (admission/); undefined: none are called. */
  readonly admission?: AdmissionHooks;
  /**
   * A watch's events converted through its CRD's conversion webhook (admission/watch-conversion.ts);
   * undefined: they are converted where they are sent.
   */
  readonly convertEvents?: EventConverter;
}

/**
 * Where the generic registry stops for admission, as kube's store calls its admission funcs: mutating
 * before a create or update is prepared and validated, validating just before storage (and both, with
 * the old object alone, before a delete). Synchronous: admission/replay.ts answers from webhook calls
 * it made before this run of the request.
 */
export interface AdmissionHooks {
  /** The object a create or update continues with (a webhook may have changed it). */
  mutate(point: AdmissionPoint): KubeObject | undefined;
  /** Throws the StatusError of a denial or of a webhook that failed. */
  validate(point: AdmissionPoint): void;
  /** A fresh uid for a created object, the same on every run of one request. */
  uid(): string;
  /** The random number a generated name draws, the same sequence on every run of one request. */
  random(): number;
  /**
   * `object` converted to `apiVersion` by its CRD's conversion webhook; undefined when no webhook
   * converts it (the caller rewrites apiVersion, conversion strategy None).
   */
  convert(info: ResourceInfo, object: KubeObject, apiVersion: string): KubeObject | undefined;
}

/** One admission point of a write, with objects in their stored shape. */
export interface AdmissionPoint {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  info: ResourceInfo;
  subresource?: string | undefined;
  object?: KubeObject | undefined;
  oldObject?: KubeObject | undefined;
}

/** Format a clock reading as metav1.Time does (RFC 3339, whole seconds). */
export function timestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
