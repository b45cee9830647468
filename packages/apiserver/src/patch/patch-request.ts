// Glue between the REST handlers and the pure patch modules (json-patch.ts, merge-patch.ts,
// strategic-merge-patch.ts, server-side-apply.ts):
// content-type dispatch, kube-apiserver's 415 for strategic merge on custom resources, managedFields.
import { goJsonSyntaxError } from '../apimachinery/go-json-errors.ts';
import { omitEmpty } from '../apimachinery/omit-empty.ts';
import {
  badRequest,
  failure,
  patchNotApplicable,
  routeUnsupportedMediaType,
  StatusError,
  unsupportedMediaType,
} from '../apimachinery/status.ts';
import type { ResourceInfo } from '../resources/builtin-resources.ts';
import type { KubeObject } from '../storage/store.ts';
import { applyJsonPatch } from './json-patch.ts';
import { applyMergePatch } from './merge-patch.ts';
import { PatchError } from './patch-error.ts';
import {
  type ApplyConflict,
  applyConflictCauses,
  applyConflictMessage,
  serverSideApply,
  trackUpdate,
} from './server-side-apply.ts';
import { applyStrategicMergePatch, strategicSchemaFor } from './strategic-merge-patch.ts';
import { yamlModule } from './yaml-module.ts';

const customPatchTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
];

function patchFailure(error: unknown): never {
  if (error instanceof PatchError) {
    // kube-apiserver's NewGenericServerResponse(422, ..., isUnexpectedResponse=false): no cause.
    if (error.status === 422) throw patchNotApplicable();
    const reason = error.status === 409 ? 'Conflict' : 'BadRequest';
    throw new StatusError(failure(error.status, reason, error.message));
  }
  throw error;
}

/** Go's encoding/json refuses nesting deeper than this (scanner maxNestingDepth). */
const maxNestingDepth = 10_000;

/**
 * Throw a SyntaxError for a document nested deeper than Go's JSON decoder accepts. Iterative on
 * purpose: every later step (merge, prune, compare) recurses and would overflow the stack.
 */
export function checkNestingDepth(value: unknown): unknown {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > maxNestingDepth) throw new SyntaxError('exceeded max depth');
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return value;
}

function parseJson(body: Buffer): unknown {
  try {
    return checkNestingDepth(JSON.parse(body.toString('utf8')));
  } catch (error) {
    const detail =
      goJsonSyntaxError(body) ?? (error instanceof Error ? error.message : String(error));
    throw badRequest(`error decoding patch: ${detail}`);
  }
}

/** The document `base` after the patch in `body` of media type `contentType`. */
export function computePatch(
  contentType: string,
  base: KubeObject,
  body: Buffer,
  options: { builtin: boolean; apiVersion: string; kind: string },
): unknown {
  try {
    switch (contentType) {
      case 'application/json-patch+json':
        return applyJsonPatch(base, parseJson(body));
      case 'application/merge-patch+json':
        return applyMergePatch(base, parseJson(body));
      case 'application/strategic-merge-patch+json': {
        if (!options.builtin) throw unsupportedMediaType(customPatchTypes);
        const schema = strategicSchemaFor(options.apiVersion, options.kind) ?? {};
        return applyStrategicMergePatch(base, parseJson(body), schema);
      }
      default:
        // Built-in kinds are routed by go-restful, which refuses the Content-Type before any handler.
        throw options.builtin
          ? routeUnsupportedMediaType()
          : unsupportedMediaType(customPatchTypes);
    }
  } catch (error) {
    return patchFailure(error);
  }
}

/** An apply-patch+yaml body (YAML or JSON) as an object. */
export function parseApplyBody(body: Buffer): unknown {
  try {
    // Go's YAML decoding keeps the last of duplicate keys; strict decoding reports them (yamlDuplicateKeys).
    return checkNestingDepth(yamlModule().parse(body.toString('utf8'), { uniqueKeys: false }));
  } catch (error) {
    throw badRequest(
      `error decoding YAML: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * The duplicate keys of a YAML (or JSON) document as go-yaml's strict decoding lists them:
 * `line 10: key "paused" already set in map`, in document order.
 */
export function yamlDuplicateKeys(body: Buffer): string[] {
  const text = body.toString('utf8');
  const lines = text.split('\n');
  const found: string[] = [];
  for (const error of yamlModule().parseDocument(text).errors) {
    if (error.code !== 'DUPLICATE_KEY' || error.linePos === undefined) continue;
    const { line, col } = error.linePos[0];
    const rest = (lines[line - 1] ?? '').slice(col - 1);
    let key: string;
    const quoted = /^"(?:[^"\\]|\\.)*"/.exec(rest);
    if (quoted !== null) key = JSON.parse(quoted[0]) as string;
    else if (rest.startsWith("'")) key = rest.slice(1, rest.indexOf("'", 1));
    else key = rest.split(':')[0]!.trim();
    found.push(`line ${line}: key ${JSON.stringify(key)} already set in map`);
  }
  return found;
}

/** Server-side apply of `configuration` over `live` (undefined when the object does not exist yet). */
export function runApply(
  live: KubeObject | undefined,
  configuration: KubeObject,
  options: {
    info: ResourceInfo;
    fieldManager: string;
    force: boolean;
    time: string;
    subresource: string | undefined;
  },
): { object: KubeObject; conflicts: ApplyConflict[] } {
  const schema = schemaOf(options.info);
  const ignoredFields =
    options.subresource === undefined && options.info.subresources.includes('status')
      ? ['status']
      : [];
  try {
    const result = serverSideApply(live, configuration, {
      fieldManager: options.fieldManager,
      force: options.force,
      time: options.time,
      ignoredFields,
      ...(options.subresource === undefined ? {} : { subresource: options.subresource }),
      ...(schema === undefined ? {} : { schema }),
    });
    return { object: result.object as KubeObject, conflicts: result.conflicts };
  } catch (error) {
    return patchFailure(error);
  }
}

function schemaOf(info: ResourceInfo) {
  if (!info.builtin) return undefined;
  return strategicSchemaFor(
    info.group === '' ? info.version : `${info.group}/${info.version}`,
    info.kind,
  );
}

/** kube-apiserver's 409 for apply conflicts. */
export function applyConflictError(conflicts: readonly ApplyConflict[]): StatusError {
  return new StatusError(
    failure(409, 'Conflict', applyConflictMessage(conflicts), {
      causes: applyConflictCauses(conflicts).map((cause) => ({
        reason: cause.type,
        message: cause.message,
        field: cause.field,
      })),
    }),
  );
}

/** `next` with metadata.managedFields updated for an Update operation by `fieldManager`. */
export function recordManagedFields(
  previous: KubeObject | undefined,
  next: KubeObject,
  options: {
    fieldManager: string;
    time: string;
    subresource?: string | undefined;
    info?: ResourceInfo;
  },
): KubeObject {
  const schema = options.info === undefined ? undefined : schemaOf(options.info);
  // Fields omitempty drops are not there to own (the typed object kube tracks has none of them).
  omitEmpty(next);
  return trackUpdate(previous, next, {
    ...(schema === undefined ? {} : { schema }),
    fieldManager: options.fieldManager,
    operation: 'Update',
    time: options.time,
    ...(options.subresource === undefined ? {} : { subresource: options.subresource }),
  }) as KubeObject;
}
