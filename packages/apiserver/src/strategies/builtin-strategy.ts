// The strategy of a built-in kind with nothing special, and the typed decoding's pruning of fields a Go
// type does not have, which most kinds' strategies start from.
import { isRecord } from '../apimachinery/objects.ts';
import type { Strategy } from '../registry/strategy.ts';
import type { KubeObject } from '../storage/store.ts';
import { objectMetaFieldOrder } from '../types/index.ts';

/**
 * Drop top-level and ObjectMeta fields a Go type does not have, as kube-apiserver's typed decoding does
 * (fieldValidation Warn/Ignore), so what is stored matches a real server.
 */
export function pruneTopLevel(fields: readonly string[], object: KubeObject): void {
  for (const key of Object.keys(object)) {
    if (key !== 'apiVersion' && key !== 'kind' && key !== 'metadata' && !fields.includes(key)) {
      delete object[key];
    }
  }
  if (isRecord(object.metadata)) {
    for (const key of Object.keys(object.metadata)) {
      if (!objectMetaFields.has(key)) delete object.metadata[key];
    }
  }
}

const objectMetaFields = new Set(objectMetaFieldOrder);

/**
 * The strategy of a built-in kind with nothing special: spec and status, status reset on create and
 * kept on update when the kind has a status subresource.
 */
export const builtinStrategy: Strategy = {
  topLevelFields: ['spec', 'status'],
  allowUnconditionalUpdate: true,
  allowCreateOnUpdate: false,
  returnDeletedObject: false,
  prepareForCreate(_context, info, object) {
    // Every built-in strategy with a status subresource resets status in PrepareForCreate (only the
    // status subresource writes it); kinds then set the zero status Go serializes.
    if (info.subresources.includes('status')) delete object.status;
  },
  prepareForUpdate(_context, info, existing, next) {
    if (!info.subresources.includes('status')) return;
    if (existing.status === undefined) delete next.status;
    else next.status = structuredClone(existing.status);
  },
  canonicalize(_context, _info, object) {
    pruneTopLevel(this.topLevelFields ?? [], object);
  },
  validate() {
    return [];
  },
};
