// dryRun=All: the request runs every stage of a real write (decoding, defaulting, validation, admission,
// the storage checks) against a view of the store that answers what it would have stored and stores
// nothing, as kube-apiserver's storage does for a dry run: no object, no watch event, no resourceVersion.

import { orderKeys } from '../apimachinery/key-order.ts';
import { isRecord, jsonType } from '../apimachinery/objects.ts';
import { omitEmpty } from '../apimachinery/omit-empty.ts';
import { badRequest, invalid } from '../apimachinery/status.ts';
import type { KubeObject } from '../storage/store.ts';
import type { ObjectStore, ServerContext } from './server-context.ts';

/** The options type a verb's dryRun belongs to, which names the 422 for a bad value. */
export type DryRunOptionsKind =
  | 'CreateOptions'
  | 'UpdateOptions'
  | 'PatchOptions'
  | 'DeleteOptions';

/**
 * True when `values` (the dryRun query values or DeleteOptions.dryRun) ask for a dry run; 422 Invalid
 * for any value but `All`, as ValidateDryRun words it.
 */
export function isDryRun(values: readonly unknown[], kind: DryRunOptionsKind): boolean {
  if (values.length === 0) return false;
  if (values.some((value) => value !== 'All')) {
    const listed = values.map((value) => JSON.stringify(String(value))).join(', ');
    throw invalid({ group: 'meta.k8s.io', kind }, '', [
      {
        type: 'FieldValueNotSupported',
        message: `Unsupported value: []string{${listed}}: supported values: "All"`,
        field: 'dryRun',
      },
    ]);
  }
  return true;
}

/** `context` with a store that does not persist, for a request that asked for a dry run. */
export function withDryRun(context: ServerContext): ServerContext {
  if (context.dryRun) return context;
  return { ...context, dryRun: true, store: dryRunStore(context.store) };
}

/**
 * Reads go to `store`; writes answer what the store would have returned. A created object has no
 * resourceVersion yet; an updated or deleted one keeps the live one (etcd3's dry-run update answers
 * the new object at the existing revision).
 */
function dryRunStore(store: ObjectStore): ObjectStore {
  const liveRv = (key: string, object: KubeObject): unknown => {
    const metadata = isRecord(object.metadata) ? object.metadata : {};
    const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : '';
    const live = store.get(key, namespace, String(metadata.name ?? ''));
    return isRecord(live?.metadata) ? live.metadata.resourceVersion : undefined;
  };
  return {
    get: (key, namespace, name) => store.get(key, namespace, name),
    has: (key, namespace, name) => store.has(key, namespace, name),
    list: (key, namespace, atRv) => store.list(key, namespace, atRv),
    snapshot: (key, atRv) => store.snapshot(key, atRv),
    currentRv: () => store.currentRv(),
    eventsAfter: (rv) => store.eventsAfter(rv),
    subscribe: (listener) => store.subscribe(listener),
    create: (_key, object) => written(object, undefined),
    update: (key, object) => written(object, liveRv(key, object)),
    delete: (key, object) => written(object, liveRv(key, object)),
  };
}

function written(object: KubeObject, resourceVersion: unknown): KubeObject {
  const copy = structuredClone(object);
  const metadata = { ...(isRecord(copy.metadata) ? copy.metadata : {}) };
  delete metadata.resourceVersion;
  if (typeof resourceVersion === 'string') metadata.resourceVersion = resourceVersion;
  copy.metadata = metadata;
  return orderKeys(omitEmpty(copy));
}

/**
 * True when a delete asks for a dry run: DeleteOptions.dryRun from the body when there is one, else
 * the dryRun query values (kube-apiserver reads DeleteOptions from one or the other).
 */
export function deleteIsDryRun(
  options: Record<string, unknown>,
  body: Buffer,
  query: URLSearchParams,
): boolean {
  const values = body.length > 0 ? options.dryRun : query.getAll('dryRun');
  if (values === undefined || values === null) return false;
  if (!Array.isArray(values)) {
    throw badRequest(
      `json: cannot unmarshal ${jsonType(values)} into Go struct field DeleteOptions.dryRun of type []string`,
    );
  }
  return isDryRun(values, 'DeleteOptions');
}
