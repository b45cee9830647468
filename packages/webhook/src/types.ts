// The handler-facing shapes of admission.k8s.io/v1 AdmissionReview and apiextensions.k8s.io/v1 ConversionReview
// (kubernetes-types has no admission/v1 types), and the verdicts a handler returns.
import type { GroupVersionKind, KubeObjectLike } from '@lasso/client';

/** An admission operation, spelt as on the wire. */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** The requesting user (authentication.k8s.io/v1 UserInfo). */
export interface AdmissionUserInfo {
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** A group, version and resource as an AdmissionRequest names them. */
export interface AdmissionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/**
 * What a validating or mutating handler is given: the fields of the AdmissionReview's `request`, typed by the
 * handler's kind, and a `signal` that aborts when the request's timeout passes (the `?timeout=` kube-apiserver
 * adds, from the configuration's `timeoutSeconds`), when the caller disconnects, or when the server stops.
 */
export interface AdmissionRequest<T extends KubeObjectLike> {
  /** The review's uid: the response echoes it. */
  readonly uid: string;
  /** The kind of `object` and `oldObject` (the version the configuration's rule matched). */
  readonly kind: GroupVersionKind;
  readonly resource: AdmissionResource;
  readonly subResource: string | undefined;
  /** The kind the caller sent, when `matchPolicy: Equivalent` converted it. */
  readonly requestKind: GroupVersionKind | undefined;
  readonly requestResource: AdmissionResource | undefined;
  readonly requestSubResource: string | undefined;
  readonly name: string;
  readonly namespace: string;
  readonly operation: AdmissionOperation;
  readonly userInfo: AdmissionUserInfo;
  /**
   * The object of a CREATE or UPDATE (and of a CONNECT, its options object); `undefined` on DELETE. A mutating
   * handler gets its own copy, to change in place or replace.
   */
  readonly object: T | undefined;
  /** The object before an UPDATE, or the one being deleted; `undefined` on CREATE. */
  readonly oldObject: T | undefined;
  /** True for a dry run: a handler with side effects must not apply them (declare `sideEffects: 'NoneOnDryRun'`). */
  readonly dryRun: boolean;
  /** The operation's options object (`CreateOptions`, `UpdateOptions`, `DeleteOptions`), when sent. */
  readonly options: Readonly<Record<string, unknown>> | undefined;
  /** Aborts at the request's timeout, on disconnect, or when the server stops. */
  readonly signal: AbortSignal;
  /** Add a warning the API server returns to the client (a `Warning:` header; kubectl prints it). */
  warn(message: string): void;
}

const verdictBrand: unique symbol = Symbol.for('lasso.webhook.verdict') as never;

/** A handler's explicit answer, from {@link allow} or {@link deny}. */
export interface AdmissionVerdict {
  readonly [verdictBrand]: true;
  readonly allowed: boolean;
  /** HTTP-style status code of a denial (default 403). */
  readonly code: number | undefined;
  readonly message: string | undefined;
  /** A `metav1.StatusReason` (`Forbidden`, `Invalid`, ...). */
  readonly reason: string | undefined;
  readonly warnings: readonly string[];
}

/** Options of {@link deny}. */
export interface DenyOptions {
  /** HTTP-style status code kube-apiserver returns to the client (default 403, range 400-599). */
  code?: number | undefined;
  /** A `metav1.StatusReason`; default `Forbidden` for 403, none otherwise. */
  reason?: string | undefined;
  /** Warnings to return with the denial. */
  warnings?: readonly string[] | undefined;
}

/**
 * A verdict that admits the request, with optional warnings. A handler may also return nothing to admit.
 *
 * @example
 * ```ts
 * const verdict = allow(['spec.replicas above 10 is deprecated']);
 * ```
 */
export function allow(warnings: readonly string[] = []): AdmissionVerdict {
  return Object.freeze({
    [verdictBrand]: true as const,
    allowed: true,
    code: undefined,
    message: undefined,
    reason: undefined,
    warnings: Object.freeze(checkWarnings(warnings, 'allow')),
  });
}

/**
 * A verdict that denies the request: kube-apiserver fails the client's request with `code` (default 403) and
 * `message`, as `admission webhook "<name>" denied the request: <message>`.
 *
 * Throws a `TypeError` when `message` is not a non-empty string, a `RangeError` when `code` is not 400-599.
 *
 * @example
 * ```ts
 * const verdict = deny('spec.flavor must be one of vanilla, chocolate', { code: 422, reason: 'Invalid' });
 * ```
 */
export function deny(message: string, options: DenyOptions = {}): AdmissionVerdict {
  if (typeof message !== 'string' || message === '') {
    throw new TypeError('deny: message must be a non-empty string');
  }
  const code = options.code ?? 403;
  if (!Number.isInteger(code) || code < 400 || code > 599) {
    throw new RangeError(
      `deny: options.code must be an integer from 400 to 599, got ${String(options.code)}`,
    );
  }
  if (options.reason !== undefined && typeof options.reason !== 'string') {
    throw new TypeError('deny: options.reason must be a string');
  }
  return Object.freeze({
    [verdictBrand]: true as const,
    allowed: false,
    code,
    message,
    reason: options.reason ?? (code === 403 ? 'Forbidden' : undefined),
    warnings: Object.freeze(checkWarnings(options.warnings ?? [], 'deny')),
  });
}

/** True when `value` came from {@link allow} or {@link deny}. */
export function isAdmissionVerdict(value: unknown): value is AdmissionVerdict {
  try {
    return typeof value === 'object' && value !== null && verdictBrand in value;
  } catch {
    return false;
  }
}

function checkWarnings(warnings: readonly string[], where: string): string[] {
  if (!Array.isArray(warnings) || !warnings.every((w) => typeof w === 'string')) {
    throw new TypeError(`${where}: warnings must be an array of strings`);
  }
  return [...warnings];
}

/** What a validating handler returns: nothing (admit), or a verdict. */
export type ValidatingResult = AdmissionVerdict | undefined;

/**
 * What a mutating handler returns: the changed object (the server answers with the JSON Patch from the request's
 * object to it), nothing (its copy of the object is the answer, changed in place or not), or a verdict (a denial, or
 * an admission without a change).
 */
export type MutatingResult<T> = T | AdmissionVerdict | undefined;

/** A validating admission handler for objects of type `T`. */
export type ValidatingHandler<T extends KubeObjectLike> = (
  request: AdmissionRequest<T>,
) => ValidatingResult | void | Promise<ValidatingResult> | Promise<void>;

/** A mutating (defaulting) admission handler for objects of type `T`. */
export type MutatingHandler<T extends KubeObjectLike> = (
  request: AdmissionRequest<T>,
) => MutatingResult<T> | void | Promise<MutatingResult<T>> | Promise<void>;
