// ApiError: an error answer of the Kubernetes API, with apimachinery's guards (k8s.io/apimachinery/pkg/api/errors).
import { isLassoError, LassoError } from '@lasso/core';
import type { SlowResponseError } from './throughput-floor.ts';
import type { Status, StatusCause, StatusDetails } from './types.ts';

declare module '@lasso/core' {
  interface LassoErrorCodes {
    /** An error answer of the API server: an {@link ApiError} (`status`, `reason`, `details`). */
    LASSO_API_ERROR: ApiError;
    /** The server was not reached or did not answer: refused, reset, TLS failure, a closed transport. */
    LASSO_CONNECTION_FAILED: LassoError;
    /** A response or watch event could not be decoded (malformed JSON, no `type`, no `object`). */
    LASSO_WATCH_DECODE: LassoError;
    /** A kubeconfig exec credential plugin failed, timed out or printed something unusable. */
    LASSO_EXEC_PLUGIN_FAILED: LassoError;
    /** API discovery (`/api`, `/apis/<group>/<version>`) failed. */
    LASSO_DISCOVERY_FAILED: LassoError;
    /** The REST mapper found no resource for a group/version/kind. */
    LASSO_NO_KIND_MATCH: LassoError;
    /**
     * A response body passed `maxResponseBytes` or a watch event passed `maxWatchEventBytes`: the
     * connection was closed and what was read released. The message names the limit and the request.
     */
    LASSO_RESPONSE_TOO_LARGE: LassoError;
    /**
     * A 2xx answer that cannot be used: a gzip body that does not decompress, a body that is not
     * JSON or is cut short, or JSON of another shape than the call promises (an object, a list).
     */
    LASSO_RESPONSE_INVALID: LassoError;
    /**
     * A watch stream ended in the middle of an event (text after the last newline that is not a
     * whole event): nothing after the last whole event was lost; resume from its resourceVersion.
     */
    LASSO_WATCH_TRUNCATED: LassoError;
    /**
     * A list body or a started watch event brought fewer than `MIN_RESPONSE_BYTES_PER_SECOND` over a window
     * (a server dripping bytes): a `SlowResponseError`; the connection was closed.
     */
    LASSO_RESPONSE_TOO_SLOW: SlowResponseError;
  }
}

/**
 * What a failed request asked for, as kube-apiserver's `RequestInfo` reads it from the method and
 * path. `resource` is undefined for a path outside any resource (discovery: `/apis/apps/v1`).
 */
export interface ApiRequest {
  /**
   * `get`, `list`, `watch`, `create`, `update`, `patch`, `delete` or `deletecollection`; the
   * lowercase HTTP method for a non-resource path.
   */
  verb: string;
  /** The API path asked for, without query and without the server's path prefix. */
  path: string;
  /** API group (`''` for the core group). */
  group?: string | undefined;
  version?: string | undefined;
  /** Plural resource, e.g. `configmaps`. */
  resource?: string | undefined;
  /** e.g. `status`, `scale`. */
  subresource?: string | undefined;
  /** Undefined for cluster-scoped resources and requests across all namespaces. */
  namespace?: string | undefined;
  name?: string | undefined;
}

/**
 * `get configmaps "a" in namespace "default"`, `list deployments.apps`, `update
 * deployments.apps/status "web" in namespace "prod"`, or `get /apis/example.com/v1` for a
 * non-resource path: the prefix of an {@link ApiError}'s message.
 */
export function describeApiRequest(request: ApiRequest): string {
  if (request.resource === undefined) return `${request.verb} ${request.path}`;
  let text = `${request.verb} ${request.resource}`;
  if (request.group) text += `.${request.group}`;
  if (request.subresource) text += `/${request.subresource}`;
  if (request.name !== undefined) text += ` ${JSON.stringify(request.name)}`;
  if (request.namespace !== undefined) text += ` in namespace ${JSON.stringify(request.namespace)}`;
  return text;
}

/**
 * An error answer of the Kubernetes API server, built from its `metav1.Status` body (or, for a
 * non-Status body, from the HTTP status alone). `code` is the LassoError code (`LASSO_API_ERROR`);
 * `status` is the HTTP status; `reason` is the Status reason (`NotFound`, `Conflict`, `Expired`, ...).
 *
 * When the transport built it, `request` says what was asked and the message starts with it:
 * `get configmaps "a" in namespace "default": configmaps "a" not found` (the server's own message
 * stays in `body.message`). Errors of watch `ERROR` events carry no request.
 */
export class ApiError extends LassoError {
  /** HTTP status code (404, 409, 410, ...). */
  readonly status: number;
  /** `metav1.Status.reason`, or one derived from the HTTP status when the body was not a Status. */
  readonly reason: string;
  /** `metav1.Status.details`, when the server sent them. */
  readonly details: StatusDetails | undefined;
  /** Delay the server asked for (Retry-After header or `details.retryAfterSeconds`), in ms. */
  readonly retryAfterMs: number | undefined;
  /** The Status body as received, when there was one. */
  readonly body: Status | undefined;
  /** The request that failed, when the transport built this error. */
  readonly request: ApiRequest | undefined;

  constructor(
    init: {
      status: number;
      reason?: string | undefined;
      message?: string | undefined;
      details?: StatusDetails | undefined;
      retryAfterMs?: number | undefined;
      body?: Status | undefined;
      /** Prefixes the message with {@link describeApiRequest}. */
      request?: ApiRequest | undefined;
    },
    options?: { cause?: unknown },
  ) {
    const reason = init.reason ?? reasonForStatus(init.status);
    const message = init.message ?? `the server responded ${init.status} ${reason}`;
    super(
      'LASSO_API_ERROR',
      init.request !== undefined ? `${describeApiRequest(init.request)}: ${message}` : message,
      options,
    );
    this.status = init.status;
    this.reason = reason;
    this.details = init.details;
    this.retryAfterMs = init.retryAfterMs;
    this.body = init.body;
    this.request = init.request;
  }

  /** Field-level causes of an Invalid error (empty otherwise). */
  get causes(): StatusCause[] {
    return this.details?.causes ?? [];
  }

  /**
   * Build an ApiError from a Status object (a response body or a watch ERROR event); `request`,
   * when given, is named in the message.
   */
  static fromStatus(
    status: Status,
    httpStatus?: number,
    retryAfterMs?: number,
    request?: ApiRequest,
  ): ApiError {
    const code = status.code ?? httpStatus ?? 500;
    const fromDetails =
      status.details?.retryAfterSeconds !== undefined
        ? status.details.retryAfterSeconds * 1000
        : undefined;
    return new ApiError({
      status: code,
      reason: status.reason || undefined,
      message: status.message || undefined,
      details: status.details,
      retryAfterMs: retryAfterMs ?? fromDetails,
      body: status,
      request,
    });
  }
}

/** The Status reason kube-apiserver uses for an HTTP status when the body carries none. */
export function reasonForStatus(status: number): string {
  switch (status) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 406:
      return 'NotAcceptable';
    case 409:
      return 'Conflict';
    case 410:
      return 'Gone';
    case 413:
      return 'RequestEntityTooLarge';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return 'Unknown';
  }
}

/** True when `error` is an {@link ApiError} (from any copy of the package). */
export function isApiError(error: unknown): error is ApiError {
  return isLassoError(error, 'LASSO_API_ERROR') && typeof (error as ApiError).status === 'number';
}

const has = (error: unknown, reason: string): boolean =>
  isApiError(error) && error.reason === reason;

/** 404 NotFound. */
export const isNotFound = (error: unknown): boolean => has(error, 'NotFound');
/** 409 AlreadyExists (a create of an existing name). */
export const isAlreadyExists = (error: unknown): boolean => has(error, 'AlreadyExists');
/** 409 Conflict (a stale resourceVersion or an apply conflict). */
export const isConflict = (error: unknown): boolean => has(error, 'Conflict');
/** 422 Invalid. */
export const isInvalid = (error: unknown): boolean => has(error, 'Invalid');
/** 410 Gone or Expired: the resourceVersion is older than the server's history. */
export const isGone = (error: unknown): boolean =>
  isApiError(error) &&
  (error.status === 410 || error.reason === 'Gone' || error.reason === 'Expired');
/** Alias of {@link isGone} under apimachinery's other name. */
export const isResourceExpired = isGone;
/** 429 TooManyRequests. */
export const isTooManyRequests = (error: unknown): boolean =>
  isApiError(error) && (error.status === 429 || error.reason === 'TooManyRequests');
/** 403 Forbidden. */
export const isForbidden = (error: unknown): boolean => has(error, 'Forbidden');
/** 401 Unauthorized. */
export const isUnauthorized = (error: unknown): boolean => has(error, 'Unauthorized');
/** 504 / reason Timeout, or 500 with reason ServerTimeout. */
export const isServerTimeout = (error: unknown): boolean =>
  isApiError(error) &&
  (error.reason === 'ServerTimeout' || error.reason === 'Timeout' || error.status === 504);
/** 400 BadRequest. */
export const isBadRequest = (error: unknown): boolean => has(error, 'BadRequest');
