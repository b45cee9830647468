// Glue between the REST handlers and the pure patch / server-side-apply modules (patch.ts, apply.ts):
// content-type dispatch, kube-apiserver's 415 for strategic merge on custom resources, managedFields.
import { parse as parseYaml } from 'yaml';

// TEMP-SHIM
const serverSideApply = (
  _live: Record<string, unknown> | undefined,
  _configuration: Record<string, unknown>,
  _o: unknown,
): { object: Record<string, unknown>; conflicts: Array<{ manager: string; field: string }> } => {
  throw unsupportedMediaType(['pending apply.ts']);
};
const trackUpdate = (
  _p: unknown,
  next: Record<string, unknown>,
  _o: unknown,
): Record<string, unknown> => next;

import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  PatchError,
  strategicSchemaFor,
} from '../patch.ts';
import type { ResourceInfo } from './resources.ts';
import { badRequest, failure, StatusError, unsupportedMediaType } from './status.ts';
import type { KubeObject } from './storage.ts';

const builtinPatchTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];
const customPatchTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
];

function patchFailure(error: unknown): never {
  if (error instanceof PatchError) {
    const reason =
      error.status === 422 ? 'Invalid' : error.status === 409 ? 'Conflict' : 'BadRequest';
    throw new StatusError(failure(error.status, reason, error.message));
  }
  throw error;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw badRequest(
      `error decoding patch: ${error instanceof Error ? error.message : String(error)}`,
    );
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
        throw unsupportedMediaType(options.builtin ? builtinPatchTypes : customPatchTypes);
    }
  } catch (error) {
    return patchFailure(error);
  }
}

/** An apply-patch+yaml body (YAML or JSON) as an object. */
export function parseApplyBody(body: Buffer): unknown {
  try {
    return parseYaml(body.toString('utf8')) as unknown;
  } catch (error) {
    throw badRequest(
      `error decoding YAML: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
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
): { object: KubeObject; conflicts: Array<{ manager: string; field: string }> } {
  const schema = options.info.builtin
    ? strategicSchemaFor(
        options.info.group === ''
          ? options.info.version
          : `${options.info.group}/${options.info.version}`,
        options.info.kind,
      )
    : undefined;
  try {
    const result = serverSideApply(live, configuration, {
      fieldManager: options.fieldManager,
      force: options.force,
      time: options.time,
      ...(schema === undefined ? {} : { schema }),
    });
    return { object: result.object as KubeObject, conflicts: result.conflicts };
  } catch (error) {
    return patchFailure(error);
  }
}

/** `next` with metadata.managedFields updated for an Update operation by `fieldManager`. */
export function recordManagedFields(
  previous: KubeObject | undefined,
  next: KubeObject,
  options: { fieldManager: string; time: string; subresource?: string | undefined },
): KubeObject {
  return trackUpdate(previous, next, {
    fieldManager: options.fieldManager,
    operation: 'Update',
    time: options.time,
    ...(options.subresource === undefined ? {} : { subresource: options.subresource }),
  }) as KubeObject;
}
