// metav1.Status builders with kube-apiserver's wording (k8s.io/apimachinery/pkg/api/errors/errors.go).
import type { ResourceInfo } from './resources.ts';

/** A metav1.Status body as kube-apiserver sends it. */
export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: Array<{ reason?: string; message: string; field?: string }>;
    retryAfterSeconds?: number;
  };
  code: number;
}

/** A request failure carrying the Status kube-apiserver would send; handlers throw it, the router writes it. */
export class StatusError extends Error {
  readonly status: StatusBody;
  readonly headers: Record<string, string>;
  constructor(status: StatusBody, headers: Record<string, string> = {}) {
    super(status.message ?? status.reason ?? 'status error');
    this.name = 'StatusError';
    this.status = status;
    this.headers = headers;
  }
  get code(): number {
    return this.status.code;
  }
}

/** A Failure Status with `code`, `reason`, `message` and optional details. */
export function failure(
  code: number,
  reason: string,
  message: string,
  details?: StatusBody['details'],
): StatusBody {
  if (details?.group === '') {
    // kube-apiserver omits an empty group (omitempty).
    const { group: _group, ...rest } = details;
    details = rest;
  }
  if (details?.name === '') {
    // ... and an empty name (NewInvalid for ListOptions or DeleteOptions).
    const { name: _name, ...rest } = details;
    details = rest;
  }
  const body: StatusBody = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  };
  // StatusReasonUnknown is the empty string, which kube-apiserver omits.
  if (reason === '') delete body.reason;
  if (details !== undefined) body.details = details;
  return body;
}

function qualified(info: Pick<ResourceInfo, 'group' | 'resource'>): string {
  return info.group === '' ? info.resource : `${info.resource}.${info.group}`;
}

/** 404 `configmaps "x" not found`. */
export function notFound(
  info: Pick<ResourceInfo, 'group' | 'resource'>,
  name: string,
): StatusError {
  return new StatusError(
    failure(404, 'NotFound', `${qualified(info)} "${name}" not found`, {
      name,
      group: info.group,
      kind: info.resource,
    }),
  );
}

/** 409 `configmaps "x" already exists`. */
export function alreadyExists(
  info: Pick<ResourceInfo, 'group' | 'resource'>,
  name: string,
): StatusError {
  return new StatusError(
    failure(409, 'AlreadyExists', `${qualified(info)} "${name}" already exists`, {
      name,
      group: info.group,
      kind: info.resource,
    }),
  );
}

/** 409 Conflict for a stale resourceVersion (optimistic concurrency). */
export function conflict(
  info: Pick<ResourceInfo, 'group' | 'resource'>,
  name: string,
  reason = 'the object has been modified; please apply your changes to the latest version and try again',
  causes?: Array<{ reason?: string; message: string; field?: string }>,
): StatusError {
  const details: NonNullable<StatusBody['details']> = {
    name,
    group: info.group,
    kind: info.resource,
  };
  if (causes !== undefined) details.causes = causes;
  return new StatusError(
    failure(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualified(info)} "${name}": ${reason}`,
      details,
    ),
  );
}

/** 422 Invalid with field causes: `ConfigMap "x" is invalid: metadata.name: Invalid value: ...`. */
export function invalid(
  info: Pick<ResourceInfo, 'group' | 'kind'>,
  name: string,
  causes: Array<{ type: string; message: string; field: string }>,
): StatusError {
  const kindName = info.group === '' ? info.kind : `${info.kind}.${info.group}`;
  const listed = causes.map((cause) => `${cause.field}: ${cause.message}`);
  const summary = listed.length === 1 ? listed[0] : `[${listed.join(', ')}]`;
  return new StatusError(
    failure(422, 'Invalid', `${kindName} "${name}" is invalid: ${summary}`, {
      name,
      group: info.group,
      kind: info.kind,
      causes: causes.map((cause) => ({
        reason: cause.type,
        message: cause.message,
        field: cause.field,
      })),
    }),
  );
}

/** 400 BadRequest. */
export function badRequest(message: string): StatusError {
  return new StatusError(failure(400, 'BadRequest', message));
}

/** 410 Expired (`too old resource version`, expired continue tokens). */
export function expired(message: string): StatusError {
  return new StatusError(failure(410, 'Expired', message));
}

/** 405 MethodNotAllowed as kube-apiserver words it. */
export function methodNotAllowed(): StatusError {
  return new StatusError(
    failure(
      405,
      'MethodNotAllowed',
      'the server does not allow this method on the requested resource',
      {},
    ),
  );
}

/** 415 UnsupportedMediaType. */
export function unsupportedMediaType(supported: string[]): StatusError {
  return new StatusError(
    failure(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${supported.join(', ')}`,
      {},
    ),
  );
}

/** 404 for a path that names no resource (kube-apiserver's generic 404 body). */
export function pathNotFound(): StatusError {
  return new StatusError(
    failure(404, 'NotFound', 'the server could not find the requested resource', {}),
  );
}

/** 401 Unauthorized. */
export function unauthorized(): StatusError {
  return new StatusError(failure(401, 'Unauthorized', 'Unauthorized'));
}

/** 403 Forbidden with kube-apiserver's RBAC wording. */
export function forbidden(options: {
  user: string;
  verb: string;
  resource: string;
  subresource?: string | undefined;
  group: string;
  namespace?: string | undefined;
  name?: string | undefined;
}): StatusError {
  const resource =
    options.subresource === undefined
      ? options.resource
      : `${options.resource}/${options.subresource}`;
  const qualifiedResource =
    options.group === '' ? options.resource : `${options.resource}.${options.group}`;
  const subject =
    options.name === undefined ? qualifiedResource : `${qualifiedResource} "${options.name}"`;
  const scope =
    options.namespace === undefined
      ? 'at the cluster scope'
      : `in the namespace "${options.namespace}"`;
  const message = `${subject} is forbidden: User "${options.user}" cannot ${options.verb} resource "${resource}" in API group "${options.group}" ${scope}`;
  const details: NonNullable<StatusBody['details']> = {
    group: options.group,
    kind: options.resource,
  };
  if (options.name !== undefined) details.name = options.name;
  return new StatusError(failure(403, 'Forbidden', message, details));
}

/** 403 Forbidden for a non-resource path (discovery, `/`, `/openapi/...`), as the RBAC authorizer words it. */
export function forbiddenPath(user: string, verb: string, path: string): StatusError {
  return new StatusError(
    failure(403, 'Forbidden', `forbidden: User "${user}" cannot ${verb} path "${path}"`, {}),
  );
}

/** 403 Forbidden for creating in a terminating namespace. */
export function namespaceTerminating(
  info: Pick<ResourceInfo, 'group' | 'resource'>,
  name: string,
  namespace: string,
): StatusError {
  return new StatusError(
    failure(
      403,
      'Forbidden',
      `${qualified(info)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
      {
        name,
        group: info.group,
        kind: info.resource,
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: `namespace ${namespace} is being terminated`,
            field: 'metadata.namespace',
          },
        ],
      },
    ),
  );
}

/** 413 RequestEntityTooLarge. */
export function entityTooLarge(limit: number): StatusError {
  return new StatusError(
    failure(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`),
  );
}

/**
 * 504 Timeout for a read at a resourceVersion the server has not reached
 * (storage.NewTooLargeResourceVersionError, retry after 1 s).
 */
export function tooLargeResourceVersion(requested: number, current: number): StatusError {
  return new StatusError(
    failure(
      504,
      'Timeout',
      `Timeout: Too large resource version: ${requested}, current: ${current}`,
      {
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        retryAfterSeconds: 1,
      },
    ),
    { 'Retry-After': '1' },
  );
}

/** 500 InternalError. */
export function internalError(message: string): StatusError {
  return new StatusError(
    failure(500, 'InternalError', `Internal error occurred: ${message}`, {
      causes: [{ message }],
    }),
  );
}

/** Reason kube-apiserver uses for a given HTTP status when a fault names none. */
export function reasonForCode(code: number): string {
  switch (code) {
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
    case 409:
      return 'Conflict';
    case 410:
      return 'Expired';
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
