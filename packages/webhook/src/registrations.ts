// What a registration of an admission webhook holds, its option checks and its default path and name
// (controller-runtime's `/validate-<group with dashes>-<version>-<kind>` and `/mutate-...`).
import type { KubeObjectLike } from '@lasso/client';
import type { Kind } from '@lasso/factory';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { AdmissionOperation, MutatingHandler, ValidatingHandler } from './types.ts';

/** Options shared by validating and mutating registrations; the configuration fields follow admissionregistration/v1. */
export interface AdmissionWebhookOptions {
  /**
   * The webhook's name in its configuration: fully qualified, at least three dot-separated segments (default
   * `v<kind>.<group>.lasso.dev` for validating, `m<kind>.<group>.lasso.dev` for mutating; `core` for the core group).
   */
  name?: string | undefined;
  /** URL path served (default `/validate-<group>-<version>-<kind>` or `/mutate-...`, dots in the group as dashes). */
  path?: string | undefined;
  /** Operations the rule matches (default `['CREATE', 'UPDATE']`); `['*']` for all. */
  operations?: ReadonlyArray<AdmissionOperation | '*'> | undefined;
  /** Resources the rule matches (default the kind's resource; add `<resource>/status` for a subresource). */
  resources?: readonly string[] | undefined;
  /** `Fail` (default, as admissionregistration/v1) or `Ignore` when the webhook cannot be called. */
  failurePolicy?: 'Fail' | 'Ignore' | undefined;
  /** `None` (default) or `NoneOnDryRun`; a webhook with side effects must skip them when `dryRun` is true. */
  sideEffects?: 'None' | 'NoneOnDryRun' | undefined;
  /** Seconds kube-apiserver waits, 1-30 (default 10); it sends the bound as `?timeout=` and the handler's signal honours it. */
  timeoutSeconds?: number | undefined;
  /** `Equivalent` (default) or `Exact`. */
  matchPolicy?: 'Exact' | 'Equivalent' | undefined;
  namespaceSelector?: LabelSelector | undefined;
  objectSelector?: LabelSelector | undefined;
}

/** Options of `WebhookServer.validating`. */
export interface ValidatingWebhookOptions<T extends KubeObjectLike>
  extends AdmissionWebhookOptions {
  handler: ValidatingHandler<T>;
}

/** Options of `WebhookServer.mutating`. */
export interface MutatingWebhookOptions<T extends KubeObjectLike> extends AdmissionWebhookOptions {
  handler: MutatingHandler<T>;
  /** `Never` (default) or `IfNeeded`: called again when a later mutating webhook changed the object. */
  reinvocationPolicy?: 'Never' | 'IfNeeded' | undefined;
}

/** @internal One registered admission webhook, options checked and defaults applied. */
export interface AdmissionRegistration {
  readonly type: 'validating' | 'mutating';
  readonly kind: Kind<KubeObjectLike>;
  readonly name: string;
  readonly path: string;
  readonly operations: ReadonlyArray<AdmissionOperation | '*'>;
  readonly resources: readonly string[];
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly sideEffects: 'None' | 'NoneOnDryRun';
  readonly timeoutSeconds: number;
  readonly matchPolicy: 'Exact' | 'Equivalent';
  readonly namespaceSelector: LabelSelector | undefined;
  readonly objectSelector: LabelSelector | undefined;
  readonly reinvocationPolicy: 'Never' | 'IfNeeded' | undefined;
  readonly handler: (request: never) => unknown;
}

const allOperations = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*']);

function oneOf<V extends string>(
  value: V | undefined,
  allowed: readonly V[],
  fallback: V,
  what: string,
): V {
  if (value === undefined) return fallback;
  if (!allowed.includes(value)) {
    throw new TypeError(
      `${what} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** @internal Check `options` and fill in the defaults; throws TypeError/RangeError naming the option. */
export function createRegistration(
  type: 'validating' | 'mutating',
  kind: Kind<KubeObjectLike>,
  options: ValidatingWebhookOptions<never> | MutatingWebhookOptions<never>,
): AdmissionRegistration {
  const where = `WebhookServer.${type}`;
  if (
    typeof kind !== 'object' ||
    kind === null ||
    typeof kind.kind !== 'string' ||
    kind.kind === ''
  ) {
    throw new TypeError(`${where}: kind must be a Kind token (kindFor(...))`);
  }
  if (typeof kind.group !== 'string' || typeof kind.version !== 'string' || kind.version === '') {
    throw new TypeError(`${where}: kind must have a group and a version`);
  }
  if (typeof options !== 'object' || options === null || typeof options.handler !== 'function') {
    throw new TypeError(`${where}: options.handler must be a function`);
  }
  const lowerKind = kind.kind.toLowerCase();
  const group = kind.group === '' ? 'core' : kind.group;
  const name =
    options.name ?? `${type === 'validating' ? 'v' : 'm'}${lowerKind}.${group}.lasso.dev`;
  if (
    typeof name !== 'string' ||
    name.split('.').length < 3 ||
    name.split('.').some((s) => s === '')
  ) {
    throw new TypeError(
      `${where}: options.name must be a fully qualified name of three segments or more, got ${JSON.stringify(name)}`,
    );
  }
  const path =
    options.path ??
    `/${type === 'validating' ? 'validate' : 'mutate'}-${group.replaceAll('.', '-')}-${kind.version}-${lowerKind}`;
  if (
    typeof path !== 'string' ||
    !path.startsWith('/') ||
    path.includes('?') ||
    path.includes('#')
  ) {
    throw new TypeError(
      `${where}: options.path must start with '/' and hold no query, got ${JSON.stringify(path)}`,
    );
  }
  const operations = options.operations ?? ['CREATE', 'UPDATE'];
  if (
    !Array.isArray(operations) ||
    operations.length === 0 ||
    !operations.every((o) => allOperations.has(o))
  ) {
    throw new TypeError(
      `${where}: options.operations must be a non-empty list of CREATE, UPDATE, DELETE, CONNECT or *`,
    );
  }
  const resources =
    options.resources ?? (kind.resource === undefined ? undefined : [kind.resource]);
  if (resources === undefined) {
    throw new TypeError(
      `${where}: options.resources is needed when the kind token does not name its resource (kindFor(apiVersion, kind, { resource, namespaced }))`,
    );
  }
  if (
    !Array.isArray(resources) ||
    resources.length === 0 ||
    !resources.every((r) => typeof r === 'string' && r !== '')
  ) {
    throw new TypeError(`${where}: options.resources must be a non-empty list of resource names`);
  }
  const timeoutSeconds = options.timeoutSeconds ?? 10;
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 30) {
    throw new RangeError(
      `${where}: options.timeoutSeconds must be an integer from 1 to 30, got ${String(options.timeoutSeconds)}`,
    );
  }
  const reinvocation = (options as MutatingWebhookOptions<never>).reinvocationPolicy;
  if (type === 'validating' && reinvocation !== undefined) {
    throw new TypeError(`${where}: options.reinvocationPolicy is for mutating webhooks only`);
  }
  return Object.freeze({
    type,
    kind,
    name,
    path,
    operations: Object.freeze([...operations]),
    resources: Object.freeze([...resources]),
    failurePolicy: oneOf(
      options.failurePolicy,
      ['Fail', 'Ignore'],
      'Fail',
      `${where}: options.failurePolicy`,
    ),
    sideEffects: oneOf(
      options.sideEffects,
      ['None', 'NoneOnDryRun'],
      'None',
      `${where}: options.sideEffects`,
    ),
    timeoutSeconds,
    matchPolicy: oneOf(
      options.matchPolicy,
      ['Exact', 'Equivalent'],
      'Equivalent',
      `${where}: options.matchPolicy`,
    ),
    namespaceSelector: options.namespaceSelector,
    objectSelector: options.objectSelector,
    reinvocationPolicy:
      type === 'mutating'
        ? oneOf(
            reinvocation,
            ['Never', 'IfNeeded'],
            'Never',
            `${where}: options.reinvocationPolicy`,
          )
        : undefined,
    handler: options.handler as (request: never) => unknown,
  });
}
