// metav1.Status builders with kube-apiserver's wording (k8s.io/apimachinery/pkg/api/errors/errors.go).
import type { ResourceInfo } from '../resources/builtin-resources.ts';

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

/**
 * The details as Go serializes metav1.StatusDetails: every field is omitempty (an empty name, group, kind or
 * uid, no causes, a zero retryAfterSeconds), and so are a cause's reason and field; the details object
 * itself stays, even empty, whenever the error set one.
 */
function goDetails(
  details: NonNullable<StatusBody['details']>,
): NonNullable<StatusBody['details']> {
  const result: NonNullable<StatusBody['details']> = {};
  if (details.name !== undefined && details.name !== '') result.name = details.name;
  if (details.group !== undefined && details.group !== '') result.group = details.group;
  if (details.kind !== undefined && details.kind !== '') result.kind = details.kind;
  if (details.uid !== undefined && details.uid !== '') result.uid = details.uid;
  if (details.causes !== undefined && details.causes.length > 0) {
    // In kube's key order: reason, message, field.
    result.causes = details.causes.map(({ reason, message, field }) => ({
      ...(reason === undefined || reason === '' ? {} : { reason }),
      message,
      ...(field === undefined || field === '' ? {} : { field }),
    }));
  }
  if (details.retryAfterSeconds !== undefined && details.retryAfterSeconds !== 0) {
    result.retryAfterSeconds = details.retryAfterSeconds;
  }
  return result;
}

/** A Failure Status with `code`, `reason`, `message` and optional details, in metav1.Status's key order. */
export function failure(
  code: number,
  reason: string,
  message: string,
  details?: StatusBody['details'],
): StatusBody {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    // StatusReasonUnknown is the empty string, which kube-apiserver omits.
    ...(reason === '' ? {} : { reason }),
    ...(details === undefined ? {} : { details: goDetails(details) }),
    code,
  };
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

/**
 * 422 Invalid with field causes: `ConfigMap "x" is invalid: metadata.name: Invalid value: ...`. The summary
 * is field.ErrorList.ToAggregate(): repeated messages once, one alone, several `[a, b]`, none no colon.
 */
export function invalid(
  info: Pick<ResourceInfo, 'group' | 'kind'>,
  name: string,
  causes: Array<{ type: string; message: string; field: string }>,
): StatusError {
  const kindName = info.group === '' ? info.kind : `${info.kind}.${info.group}`;
  const listed = [...new Set(causes.map((cause) => `${cause.field}: ${cause.message}`))];
  const summary =
    listed.length === 0 ? '' : `: ${listed.length === 1 ? listed[0] : `[${listed.join(', ')}]`}`;
  return new StatusError(
    failure(422, 'Invalid', `${kindName} "${name}" is invalid${summary}`, {
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

/**
 * 409 AlreadyExists when a generated name collided on every attempt (NewGenerateNameConflict): the client
 * may retry after a second with another generated name.
 */
export function generateNameConflict(
  info: Pick<ResourceInfo, 'group' | 'resource'>,
  name: string,
): StatusError {
  return new StatusError(
    failure(
      409,
      'AlreadyExists',
      `${qualified(info)} "${name}" already exists, the server was not able to generate a unique name for the object`,
      { name, group: info.group, kind: info.resource, retryAfterSeconds: 1 },
    ),
  );
}

/** Go's summarizeData: a body quoted up to 30 bytes, as text when it is a JSON object, else as hex. */
function summarizeBody(body: Buffer): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, 30);
  const shown = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > 30 ? `${shown} ...` : shown;
}

/**
 * 400 for a create/update body that does not decode as any kind (transformDecodeError without a kind):
 * `the object provided is unrecognized (must be of type ConfigMap): <decode error> (<body summary>)`.
 */
export function unrecognizedBody(kind: string, cause: string, body: Buffer): StatusError {
  return badRequest(
    `the object provided is unrecognized (must be of type ${kind}): ${cause} (${summarizeBody(body)})`,
  );
}

/**
 * 400 for a body of a kind the endpoint does not take (transformDecodeError with a kind): `Secret in version
 * "v1" cannot be handled as a ConfigMap: <cause>`; `cause` is the scheme's conversion or lookup error.
 */
export function cannotHandleKind(
  sent: { kind: string; version: string },
  expectedKind: string,
  cause: string,
): StatusError {
  return badRequest(
    `${sent.kind} in version ${JSON.stringify(sent.version)} cannot be handled as a ${expectedKind}: ${cause}`,
  );
}

/**
 * 422 for a JSON patch that does not apply (a failed `test`, a missing path): kube-apiserver's generic
 * NewGenericServerResponse(422) without causes, so the patch error itself is not in the body.
 */
export function patchNotApplicable(): StatusError {
  return new StatusError(
    failure(422, 'Invalid', 'the server rejected our request due to an error in our request', {}),
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

/** 415 UnsupportedMediaType from a handler's content negotiation (no details, as negotiation sends it). */
export function unsupportedMediaType(supported: string[]): StatusError {
  return new StatusError(
    failure(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${supported.join(', ')}`,
    ),
  );
}

/**
 * 415 from kube-apiserver's router (go-restful) before any handler runs: a built-in kind's PATCH whose
 * Content-Type is none of the patch types. Custom resources are not routed that way and negotiate instead.
 */
export function routeUnsupportedMediaType(): StatusError {
  return new StatusError(failure(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {}));
}

/**
 * 406 NotAcceptable for an Accept header naming no type the server can write. Built-in kinds answer from
 * the router (`406: Not Acceptable`); custom resources from negotiation, which lists what they accept.
 */
export function notAcceptable(accepted?: string[]): StatusError {
  if (accepted === undefined) {
    return new StatusError(failure(406, 'NotAcceptable', '406: Not Acceptable', {}));
  }
  return new StatusError(
    failure(
      406,
      'NotAcceptable',
      `only the following media types are accepted: ${accepted.join(', ')}`,
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
