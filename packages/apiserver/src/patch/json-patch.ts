// RFC 6902 JSON patch, as kube-apiserver applies it (evanphx/json-patch's errors and wording).
import { clone, isObject, type JsonObject, jsonEqual, PatchError } from './patch-error.ts';

function parsePointer(pointer: string, op: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) {
    throw new PatchError(
      422,
      `${op} operation does not apply: doc is missing path: "${pointer}": missing value`,
    );
  }
  // ~1 first would turn "~01" into "/"; RFC 6901 decodes ~1 then ~0.
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function arrayIndex(token: string, length: number, allowEnd: boolean, context: string): number {
  if (allowEnd && token === '-') return length;
  if (!/^(0|[1-9]\d*)$/.test(token)) {
    throw new PatchError(
      422,
      `${context}: strconv.Atoi: parsing ${JSON.stringify(token)}: invalid syntax`,
    );
  }
  const index = Number(token);
  if (index > length || (!allowEnd && index === length)) {
    throw new PatchError(
      422,
      `${context}: Unable to access invalid index: ${index}: invalid index referenced`,
    );
  }
  return index;
}

/** The container holding the last token of `tokens`, or undefined when an intermediate is missing. */
function findParent(document: unknown, tokens: readonly string[]): unknown {
  let current = document;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= current.length) return undefined;
      current = current[Number(token)];
    } else if (isObject(current) && Object.hasOwn(current, token)) {
      current = current[token];
    } else {
      return undefined;
    }
    if (current === null) return undefined;
  }
  return current;
}

function getAt(document: unknown, pointer: string, op: string): { found: boolean; value: unknown } {
  const tokens = parsePointer(pointer, op);
  if (tokens.length === 0) return { found: true, value: document };
  const parent = findParent(document, tokens);
  const last = tokens[tokens.length - 1] ?? '';
  if (Array.isArray(parent)) {
    if (!/^(0|[1-9]\d*)$/.test(last) || Number(last) >= parent.length)
      return { found: false, value: undefined };
    return { found: true, value: parent[Number(last)] };
  }
  if (isObject(parent) && Object.hasOwn(parent, last)) return { found: true, value: parent[last] };
  return { found: false, value: undefined };
}

function addAt(document: unknown, pointer: string, value: unknown, op = 'add'): unknown {
  const tokens = parsePointer(pointer, op);
  if (tokens.length === 0) return value;
  const parent = findParent(document, tokens);
  const last = tokens[tokens.length - 1] ?? '';
  if (Array.isArray(parent)) {
    parent.splice(
      arrayIndex(last, parent.length, true, `error in ${op} for path: '${pointer}'`),
      0,
      value,
    );
  } else if (isObject(parent)) {
    parent[last] = value;
  } else {
    throw new PatchError(
      422,
      `${op} operation does not apply: doc is missing path: "${pointer}": missing value`,
    );
  }
  return document;
}

function removeAt(
  document: unknown,
  pointer: string,
  op = 'remove',
): { document: unknown; removed: unknown } {
  const tokens = parsePointer(pointer, op);
  if (tokens.length === 0) return { document: null, removed: document };
  const parent = findParent(document, tokens);
  const last = tokens[tokens.length - 1] ?? '';
  if (Array.isArray(parent)) {
    const index = arrayIndex(last, parent.length, false, `error in ${op} for path: '${pointer}'`);
    return { document, removed: parent.splice(index, 1)[0] };
  }
  if (isObject(parent)) {
    if (!Object.hasOwn(parent, last)) {
      throw new PatchError(
        422,
        `error in ${op} for path: '${pointer}': Unable to remove nonexistent key: ${last}: missing value`,
      );
    }
    const removed = parent[last];
    delete parent[last];
    return { document, removed };
  }
  throw new PatchError(
    422,
    `${op} operation does not apply: doc is missing path: "${pointer}": missing value`,
  );
}

/**
 * Apply an RFC 6902 JSON patch (add, remove, replace, move, copy, test; `~0`/`~1` escapes; `-` appends).
 * Returns a new document; `document` is not modified.
 *
 * Throws {@link PatchError}: 400 when `operations` is not a list of operation objects, 422 when an
 * operation does not apply (missing path, bad index, failed `test`), worded as kube-apiserver does.
 */
export function applyJsonPatch(document: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) {
    const kind =
      operations === null
        ? 'null'
        : Array.isArray(operations)
          ? 'array'
          : typeof operations === 'object'
            ? 'object'
            : typeof operations === 'string'
              ? 'string'
              : typeof operations === 'number'
                ? 'number'
                : 'bool';
    throw new PatchError(
      400,
      `json: cannot unmarshal ${kind} into Go value of type jsonpatch.Patch`,
    );
  }
  for (const operation of operations) {
    if (!isObject(operation)) {
      throw new PatchError(
        400,
        'json: cannot unmarshal non-object into Go value of type jsonpatch.Operation',
      );
    }
  }
  let result = clone(document);
  for (const operation of operations as JsonObject[]) {
    const op = typeof operation.op === 'string' ? operation.op : 'unknown';
    const path = operation.path;
    if (!['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(op)) {
      throw new PatchError(422, `Unexpected kind: ${op}`);
    }
    if (typeof path !== 'string') {
      throw new PatchError(422, `${op} operation failed to decode path: missing value`);
    }
    const needsValue = op === 'add' || op === 'replace' || op === 'test';
    if (needsValue && !Object.hasOwn(operation, 'value')) {
      throw new PatchError(422, `${op} operation for path "${path}" has no value: missing value`);
    }
    const value = clone(operation.value);
    switch (op) {
      case 'add':
        result = addAt(result, path, value);
        break;
      case 'remove':
        result = removeAt(result, path).document;
        break;
      case 'replace': {
        if (!getAt(result, path, op).found) {
          throw new PatchError(
            422,
            `replace operation does not apply: doc is missing key: ${path}: missing value`,
          );
        }
        const tokens = parsePointer(path, op);
        if (tokens.length === 0) {
          result = value;
          break;
        }
        const parent = findParent(result, tokens);
        const last = tokens[tokens.length - 1] ?? '';
        if (Array.isArray(parent)) parent[Number(last)] = value;
        else (parent as JsonObject)[last] = value;
        break;
      }
      case 'move':
      case 'copy': {
        const from = operation.from;
        if (typeof from !== 'string') {
          throw new PatchError(422, `${op} operation failed to decode from: missing value`);
        }
        const source = getAt(result, from, op);
        if (!source.found) {
          throw new PatchError(
            422,
            `${op} operation does not apply: doc is missing from path: ${from}: missing value`,
          );
        }
        if (op === 'move') {
          if (path !== from && path.startsWith(`${from}/`)) {
            throw new PatchError(
              422,
              `move operation does not apply: cannot move ${from} into its own child ${path}`,
            );
          }
          if (path === from) break;
          result = removeAt(result, from, op).document;
          result = addAt(result, path, source.value, op);
        } else {
          result = addAt(result, path, clone(source.value), op);
        }
        break;
      }
      case 'test': {
        const current = getAt(result, path, op);
        if (!current.found || !jsonEqual(current.value, value)) {
          throw new PatchError(422, `testing value ${path} failed: test failed`);
        }
        break;
      }
    }
  }
  return result;
}
