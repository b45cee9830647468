// Request body decoding, the one place a body is turned into an object (kube-apiserver's negotiated
// serializers): by Content-Type, then checked against the kind the URL names.
import type { IncomingHttpHeaders } from 'node:http';
import { goCompactJson, goValueString } from '../apimachinery/go-format.ts';
import { goJsonSyntaxError } from '../apimachinery/go-json-errors.ts';
import { sortKeysDeep } from '../apimachinery/key-order.ts';
import { isRecord, type Json, jsonType, stringOf } from '../apimachinery/objects.ts';
import {
  badRequest,
  cannotHandleKind,
  invalid,
  unrecognizedBody,
  unsupportedMediaType,
} from '../apimachinery/status.ts';
import { scanFields, strictErrorsInOrder, strictWarning } from '../apimachinery/strict-decoding.ts';
import { checkNestingDepth, parseApplyBody } from '../patch/patch-request.ts';
import { protobufMediaType } from '../protobuf/decode-protobuf-object.ts';
import { decodeProtobufBody, refuseCustomResourceProtobuf } from '../protobuf/protobuf-body.ts';
import type { RequestTarget } from '../request/request-target.ts';
import { apiVersionOf, type ResourceInfo } from '../resources/builtin-resources.ts';
import type { KubeObject } from '../storage/store.ts';
import { typeDefinitionFor, typeDefinitions } from '../types/index.ts';
import { nonNumericPaths, unstructuredConversionError } from './typed-conversion.ts';
import { jsonDecodingError, numberLiterals } from './typed-decoding.ts';

/**
 * What decoding reads of a request (the registry's DecodeRequest has it): below the registry, decoding names
 * only these parts.
 */
export interface DecodeRequest {
  readonly url: RequestTarget;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** Who sent it: the server's own writes skip the typed checks. */
  readonly user: { readonly name: string };
}

/** What decoding asks of the server (its ServerContext has it). */
export interface DecodeContext {
  /** The strategy of a kind: which of its fields are string maps. */
  strategyFor(info: ResourceInfo): { readonly stringMapFields?: readonly string[] | undefined };
  /** The fields of an object its published OpenAPI schema does not declare; undefined: not checked. */
  readonly unknownFields?:
    | ((gvk: { group: string; version: string; kind: string }, object: unknown) => string[])
    | undefined;
}

/** The media type of the request body, lower-cased, without parameters. */
export function contentTypeOf(request: DecodeRequest): string {
  return (stringOf(request.headers['content-type']) ?? '').split(';')[0]!.trim().toLowerCase();
}

/** A JSON body; 400 with the decoder's message when it is not JSON. */
export function parseJsonBody(body: Buffer): unknown {
  try {
    return checkNestingDepth(JSON.parse(body.toString('utf8')));
  } catch (error) {
    throw badRequest(jsonParseError(error, body));
  }
}

/** The decoder's message for a body JSON.parse refused, in Go's words where Go's scanner has some. */
function jsonParseError(error: unknown, body: Buffer): string {
  const detail =
    goJsonSyntaxError(body) ?? (error instanceof Error ? error.message : String(error));
  return `couldn't get version/kind; json parse error: ${detail}`;
}

/**
 * A create/update body as JSON, YAML or Kubernetes protobuf by Content-Type; 415 for anything else, as
 * kube-apiserver. With
 * `kind` (the kind the URL takes), a body that is not JSON is refused as transformDecodeError words it.
 */
export function decodeBody(request: DecodeRequest, kind?: string): unknown {
  const contentType = contentTypeOf(request);
  if (contentType === '' || contentType === 'application/json' || contentType === '*/*') {
    if (kind === undefined) return parseJsonBody(request.body);
    try {
      return checkNestingDepth(JSON.parse(request.body.toString('utf8')));
    } catch (error) {
      throw unrecognizedBody(kind, jsonParseError(error, request.body), request.body);
    }
  }
  if (contentType === 'application/yaml') return parseApplyBody(request.body);
  if (contentType === protobufMediaType) return decodeProtobufBody(request.body, kind);
  throw unsupportedMediaType([
    'application/json',
    'application/yaml',
    'application/vnd.kubernetes.protobuf',
  ]);
}

/** A server-side apply body (application/apply-patch+yaml: YAML or JSON). */
export function decodeApplyBody(request: DecodeRequest): unknown {
  return parseApplyBody(request.body);
}

/** A create/update body decoded and checked to be an object of `info`'s kind and version. */
export function decodeObject(
  context: Pick<DecodeContext, 'strategyFor'>,
  info: ResourceInfo,
  request: DecodeRequest,
): KubeObject {
  if (!info.builtin && contentTypeOf(request) === protobufMediaType) {
    refuseCustomResourceProtobuf(request.body, info.kind);
  }
  return checkKind(context, info, decodeBody(request, info.kind), request);
}

/** The Go package of a built-in group's internal types (`core.ConfigMap`, `apps.Deployment`). */
function internalPackage(group: string): string {
  return group === '' || group === 'events.k8s.io' ? 'core' : group.split('.')[0]!;
}

/**
 * `parsed` checked to be an object of `info`'s kind and version (an empty kind or apiVersion is
 * filled in, as kube's decoder defaults them from the URL). With `request`, the create or update whose
 * body `parsed` came from, a body that is no object is worded as transformDecodeError does and a built-in
 * kind's fields are decoded as Go decodes them.
 */
export function checkKind(
  context: Pick<DecodeContext, 'strategyFor'>,
  info: ResourceInfo,
  parsed: unknown,
  request?: DecodeRequest,
): KubeObject {
  const body = request?.body;
  if (!isRecord(parsed)) {
    const cause = `couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(parsed) ? 'array' : typeof parsed} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
    throw body === undefined ? badRequest(cause) : unrecognizedBody(info.kind, cause, body);
  }
  const expected = apiVersionOf(info);
  const apiVersion = stringOf(parsed.apiVersion) ?? '';
  const kind = stringOf(parsed.kind) ?? '';
  if (kind !== '' && kind !== info.kind) {
    const version =
      apiVersion === '' ? info.version : apiVersion.slice(apiVersion.indexOf('/') + 1);
    // A kind the scheme knows in that version decodes, then fails to convert to the URL's kind.
    const convertible =
      info.builtin &&
      (apiVersion === '' || apiVersion === expected) &&
      typeDefinitionFor(info.group, info.version, kind) !== undefined;
    throw cannotHandleKind(
      { kind, version },
      info.kind,
      convertible
        ? `converting (${info.version}.${kind}) to (${internalPackage(info.group)}.${info.kind}): unknown conversion`
        : `no kind "${kind}" is registered for version "${expected}"`,
    );
  }
  if (apiVersion !== '' && apiVersion !== expected) {
    throw badRequest(
      `the API version in the data (${apiVersion}) does not match the expected API version (${expected})`,
    );
  }
  parsed.apiVersion = expected;
  parsed.kind = info.kind;
  // The server's own writes (its bootstrap policy) are known to fit their types.
  const typed =
    request !== undefined &&
    (request.user.name === serverUser || checkTypes(info, parsed, request.body));
  if (!typed) checkShape(context, info, parsed);
  return parsed as KubeObject;
}

/**
 * The paths of a built-in kind's apply configuration whose numeric fields hold no number
 * (structured-merge-diff's `expected numeric (int or float)`), in document order.
 */
export function applyNonNumericPaths(info: ResourceInfo, configuration: KubeObject): string[] {
  if (!info.builtin) return [];
  const definition = typeDefinitionFor(info.group, info.version, info.kind);
  return definition === undefined
    ? []
    : nonNumericPaths(lookupDefinition, definition, configuration);
}

const lookupDefinition = (name: string) => typeDefinitions.get(name);

/** The identity of the server's own writes (server.ts bootstraps its RBAC policy as it). */
const serverUser = 'system:apiserver';

/**
 * A built-in kind's body decoded into its Go type as kube-apiserver decodes it: a field of the wrong JSON
 * type (a string or 2.5 for an int32, an object for a string, 1e12 past int32) is a 400 in Go's words.
 * False when the type table does not describe the kind (the coarser checkShape answers then).
 */
function checkTypes(info: ResourceInfo, object: Json, body: Buffer): boolean {
  if (!info.builtin) return false;
  const definition = typeDefinitionFor(info.group, info.version, info.kind);
  if (definition === undefined) return false;
  const text = body.toString('utf8');
  const literals = /^\s*\{/.test(text) ? numberLiterals(text) : undefined;
  const error = jsonDecodingError(lookupDefinition, definition, object, literals);
  if (error === undefined) return true;
  throw badRequest(
    `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: ${error}`,
  );
}

/**
 * A patched built-in object decoded into its Go type as kube-apiserver's patcher decodes it: a merge or
 * JSON patch result through the JSON decoder, a strategic merge patch result through the unstructured
 * converter. A field of the wrong type is kube's 422 on the field `patch` (valued as the patched document,
 * or as the patch map for a strategic merge patch).
 */
export function checkPatchedTypes(
  info: ResourceInfo,
  patched: KubeObject,
  request: DecodeRequest,
): void {
  if (!info.builtin) return;
  const definition = typeDefinitionFor(info.group, info.version, info.kind);
  if (definition === undefined) return;
  const contentType = contentTypeOf(request);
  const strategic = contentType === 'application/strategic-merge-patch+json';
  const text = request.body.toString('utf8');
  const error = strategic
    ? unstructuredConversionError(lookupDefinition, definition, patched)
    : jsonDecodingError(
        lookupDefinition,
        definition,
        patched,
        contentType === 'application/merge-patch+json' ? numberLiterals(text) : undefined,
      );
  if (error === undefined) return;
  const value = strategic ? goValueString(JSON.parse(text)) : goCompactJson(patched);
  throw invalid({ group: '', kind: '' }, '', [
    {
      type: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(value)}: ${error}`,
      field: 'patch',
    },
  ]);
}

/**
 * The decoding errors kube-apiserver's typed JSON decoder reports (400) for fields of the wrong JSON
 * type: metadata and its string fields, spec/status of built-in kinds, map[string]string fields.
 */
function checkShape(
  context: Pick<DecodeContext, 'strategyFor'>,
  info: ResourceInfo,
  object: Json,
): void {
  const fail = (field: string, value: unknown, goType: string): never => {
    throw badRequest(
      `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: json: cannot unmarshal ${jsonType(value)} into Go struct field ${field} of type ${goType}`,
    );
  };
  const metadata = object.metadata;
  if (metadata === undefined || metadata === null) return;
  if (!isRecord(metadata)) fail(`${info.kind}.metadata`, metadata, 'v1.ObjectMeta');
  const meta = metadata as Json;
  for (const field of ['name', 'generateName', 'namespace', 'resourceVersion', 'uid']) {
    const value = meta[field];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      fail(`ObjectMeta.metadata.${field}`, value, 'string');
    }
  }
  if (!info.builtin) return;
  for (const field of ['spec', 'status']) {
    const value = object[field];
    if (value !== undefined && value !== null && !isRecord(value)) {
      fail(
        `${info.kind}.${field}`,
        value,
        `v1.${info.kind}${field === 'spec' ? 'Spec' : 'Status'}`,
      );
    }
  }
  for (const field of context.strategyFor(info).stringMapFields ?? []) {
    const value = object[field];
    if (value === undefined || value === null) continue;
    if (!isRecord(value)) fail(`${info.kind}.${field}`, value, 'map[string]string');
    for (const [key, item] of Object.entries(value as Json)) {
      if (typeof item !== 'string') fail(`${info.kind}.${field}[${key}]`, item, 'string');
    }
  }
}

/** The field manager of an update: `?fieldManager`, else the User-Agent's product name. */
export function fieldManagerOf(request: DecodeRequest): string {
  const explicit = request.url.searchParams.get('fieldManager');
  if (explicit !== null && explicit !== '') return explicit;
  const agent = stringOf(request.headers['user-agent']) ?? '';
  const prefix = agent.split('/')[0]?.trim() ?? '';
  return prefix === '' ? 'unknown' : prefix;
}

/**
 * DeleteOptions from the body when there is one, else from the query (kube-apiserver reads one or the
 * other), checked as its decoder and ValidateDeleteOptions do.
 */
export function decodeDeleteOptions(request: DecodeRequest): Json {
  const query = request.url.searchParams;
  let options: Json = {};
  if (request.body.length > 0) {
    const parsed = parseJsonBody(request.body);
    if (!isRecord(parsed)) throw badRequest('the body of a delete request must be DeleteOptions');
    options = parsed;
  }
  if (
    options.preconditions !== undefined &&
    options.preconditions !== null &&
    !isRecord(options.preconditions)
  ) {
    throw badRequest(
      `json: cannot unmarshal ${jsonType(options.preconditions)} into Go struct field DeleteOptions.preconditions of type v1.Preconditions`,
    );
  }
  const propagation = request.body.length > 0 ? null : query.get('propagationPolicy');
  if (propagation !== null) options.propagationPolicy = propagation;
  const graceText = request.body.length > 0 ? null : query.get('gracePeriodSeconds');
  if (graceText !== null && graceText !== '') {
    if (!/^-?\d+$/.test(graceText)) {
      throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(graceText)}: invalid syntax`);
    }
    options.gracePeriodSeconds = Number(graceText);
  }
  const grace = options.gracePeriodSeconds;
  if (grace !== undefined && grace !== null && !Number.isInteger(grace)) {
    throw badRequest(
      `json: cannot unmarshal ${jsonType(grace)} into Go struct field DeleteOptions.gracePeriodSeconds of type int64`,
    );
  }
  const policy = options.propagationPolicy;
  if (
    policy !== undefined &&
    policy !== 'Orphan' &&
    policy !== 'Background' &&
    policy !== 'Foreground'
  ) {
    throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
      {
        type: 'FieldValueNotSupported',
        message: `Unsupported value: "${String(policy)}": supported values: "Foreground", "Background", "Orphan", "nil"`,
        field: 'propagationPolicy',
      },
    ]);
  }
  return options;
}

/** How a write treats fields its schema does not declare: `?fieldValidation`, Warn by default (1.27+). */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** The request's field validation directive; kube's default (Warn) when absent. */
export function fieldValidationOf(query: URLSearchParams): FieldValidation {
  const value = query.get('fieldValidation');
  return value === 'Strict' || value === 'Ignore' ? value : 'Warn';
}

/**
 * Strict decoding of a create or update body (the typed decoder's duplicate and unknown fields, in
 * document order): under Strict a 400 in kube's words, under Warn one Warning header value per finding.
 */
export function checkBodyFields(
  context: DecodeContext,
  query: URLSearchParams,
  info: ResourceInfo,
  object: KubeObject,
  request: DecodeRequest,
): string[] {
  const mode = fieldValidationOf(query);
  if (mode === 'Ignore' || context.unknownFields === undefined) return [];
  const unknown = context.unknownFields(
    { group: info.group, version: info.version, kind: info.kind },
    object,
  );
  const contentType = contentTypeOf(request);
  const json = contentType === '' || contentType === 'application/json' || contentType === '*/*';
  const scan = json
    ? scanFields(request.body.toString('utf8'))
    : { duplicates: [], positions: new Map<string, number>() };
  const findings = strictErrorsInOrder(scan, unknown);
  if (findings.length === 0) return [];
  if (mode === 'Strict') {
    throw badRequest(
      `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: strict decoding error: ${findings.join(', ')}`,
    );
  }
  return findings.map(strictWarning);
}

/**
 * Strict decoding of a patch: the duplicate fields of the patch document (for a JSON patch, of its
 * operations, and their unknown members), then the patched object's undeclared fields. Under Strict
 * kube-apiserver's 422 (field `patch`, valued as the patch map for a strategic merge patch, as the
 * patched document otherwise), under Warn one Warning header value per finding.
 */
export function checkPatchFields(
  context: DecodeContext,
  query: URLSearchParams,
  info: ResourceInfo,
  patched: KubeObject,
  request: DecodeRequest,
): string[] {
  const mode = fieldValidationOf(query);
  if (mode === 'Ignore') return [];
  const contentType = contentTypeOf(request);
  const text = request.body.toString('utf8');
  const patch: unknown = JSON.parse(text);
  const findings: string[] = [];
  const scan = scanFields(text);
  if (contentType === 'application/json-patch+json') {
    // The operations decode into a struct of op, path, from and value.
    const members = new Set(['op', 'path', 'from', 'value']);
    const operations = Array.isArray(patch) ? patch : [];
    const entries: Array<{ position: number; text: string }> = [];
    operations.forEach((operation, index) => {
      if (!isRecord(operation)) return;
      for (const key of Object.keys(operation)) {
        if (members.has(key)) continue;
        const path = `[${index}].${key}`;
        entries.push({
          position: scan.positions.get(path) ?? 0,
          text: `json patch unknown field "${path}"`,
        });
      }
    });
    for (const duplicate of scan.duplicates) {
      if (!/^\[\d+\]\.[^.[]+$/.test(duplicate.path)) continue;
      entries.push({
        position: duplicate.position,
        text: `json patch duplicate field "${duplicate.path}"`,
      });
    }
    findings.push(...entries.sort((a, b) => a.position - b.position).map((entry) => entry.text));
  } else {
    findings.push(...scan.duplicates.map((duplicate) => `duplicate field "${duplicate.path}"`));
  }
  if (context.unknownFields !== undefined) {
    // The patched document is decoded from Go's map encoding: keys sorted at every depth.
    const unknown = context.unknownFields(
      { group: info.group, version: info.version, kind: info.kind },
      sortKeysDeep(patched),
    );
    findings.push(...unknown.map((path) => `unknown field "${path}"`));
  }
  if (findings.length === 0) return [];
  if (mode === 'Warn') return findings.map(strictWarning);
  const value =
    contentType === 'application/strategic-merge-patch+json'
      ? goValueString(patch)
      : goCompactJson(patched);
  throw invalid({ group: '', kind: '' }, '', [
    {
      type: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(value)}: strict decoding error: ${findings.join(', ')}`,
      field: 'patch',
    },
  ]);
}
