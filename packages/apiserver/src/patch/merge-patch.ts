// RFC 7386 JSON merge patch, as kube-apiserver applies it.
import { clone, isObject, type JsonObject, PatchError } from './patch-error.ts';

function mergeInto(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const result: JsonObject = isObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergeInto(result[key], value);
  }
  return result;
}

/**
 * Apply an RFC 7386 JSON merge patch: objects merge recursively, `null` deletes a key, anything else
 * (lists included) replaces. Returns a new document.
 *
 * Throws {@link PatchError} 400 `Invalid JSON Patch` for a `null` patch, as kube-apiserver does.
 */
export function applyMergePatch(document: unknown, patch: unknown): unknown {
  if (patch === null || patch === undefined) throw new PatchError(400, 'Invalid JSON Patch');
  return mergeInto(clone(document), patch);
}
