// Pods: what happens to a Pod on create (defaults, status, the ServiceAccount, DefaultTolerationSeconds
// and Priority admission), on delete (graceful deletion while scheduled) and through its Eviction
// subresource.

import { isRecord, type Json, metaOf, stringOf } from '../apimachinery/objects.ts';
import { badRequest, failure, StatusError } from '../apimachinery/status.ts';
import { decodeBody } from '../decoding/decode.ts';
import { isDryRun, withDryRun } from '../registry/dry-run.ts';
import {
  addPropagationFinalizer,
  deleteObject,
  mustGet,
  toVersion,
} from '../registry/generic-registry.ts';
import type { ApiRequest, ApiResult, ServerContext } from '../registry/server-context.ts';
import type { Strategy } from '../registry/strategy.ts';
import type { ResourceRequestInfo } from '../request/request-info.ts';
import { type ResourceInfo, storageKey } from '../resources/builtin-resources.ts';
import type { KubeObject } from '../storage/store.ts';
import { builtinStrategy } from './builtin-strategy.ts';
import { addDefaultTolerations, admitPriority } from './defaults/pod-admission.ts';
import { defaultPod } from './defaults/pod-spec.ts';
import { podQosClass } from './defaults/qos-class.ts';
import { mountServiceAccountToken } from './defaults/service-account-volume.ts';

/** Pod strategy. */
export const podStrategy: Strategy = {
  ...builtinStrategy,
  returnDeletedObject: true,
  canonicalize(context, info, object) {
    builtinStrategy.canonicalize.call(this, context, info, object);
    // Decoding defaults every Pod written (create, update, patch), as the scheme's defaulter does.
    defaultPod(object);
  },
  prepareForCreate(context, info, object) {
    builtinStrategy.prepareForCreate(context, info, object);
    const spec = isRecord(object.spec) ? object.spec : {};
    object.status = { phase: 'Pending', qosClass: podQosClass(spec) };
  },
  admitCreate(context, info, object) {
    admitServiceAccount(context, info, object);
    const spec = object.spec as Json;
    addDefaultTolerations(spec);
    admitPriority(context, object, spec);
  },
  delete: deleteGracefully,
};

/**
 * The ServiceAccount admission plugin: a Pod runs as a service account, which must exist, and gets its
 * token mounted.
 */
function admitServiceAccount(context: ServerContext, _info: ResourceInfo, pod: KubeObject): void {
  const metadata = metaOf(pod);
  const namespace = stringOf(metadata.namespace) ?? '';
  const name = stringOf(metadata.name) ?? '';
  const spec = isRecord(pod.spec) ? pod.spec : {};
  pod.spec = spec;
  const account = stringOf(spec.serviceAccountName) || stringOf(spec.serviceAccount) || 'default';
  spec.serviceAccountName = account;
  spec.serviceAccount = account;
  const found = context.store.get('/serviceaccounts', namespace, account);
  if (found === undefined) {
    throw new StatusError(
      failure(
        403,
        'Forbidden',
        `pods "${name}" is forbidden: error looking up service account ${namespace}/${account}: serviceaccount "${account}" not found`,
        { name, kind: 'pods' },
      ),
    );
  }
  mountServiceAccountToken(spec, found);
}

/**
 * Graceful deletion of a Pod (podStrategy.CheckGracefulDelete + rest.BeforeDelete): a scheduled,
 * unfinished Pod gets deletionTimestamp = now + grace period and stays until a kubelet (or a test)
 * deletes it with a shorter grace period; 0 removes it at once, answering it with deletionTimestamp
 * now and grace period 0 as kube's graceful path does. Undefined: delete it like any object.
 */
function deleteGracefully(
  context: ServerContext,
  info: ResourceInfo,
  existing: KubeObject,
  options: Json,
  finalizers: string[],
): unknown {
  const key = storageKey(info);
  const metadata = metaOf(existing);
  const spec = isRecord(existing.spec) ? existing.spec : {};
  const phase = isRecord(existing.status) ? existing.status.phase : undefined;
  const requested =
    typeof options.gracePeriodSeconds === 'number' ? options.gracePeriodSeconds : undefined;
  let period =
    requested ??
    (typeof spec.terminationGracePeriodSeconds === 'number'
      ? spec.terminationGracePeriodSeconds
      : 30);
  if ((stringOf(spec.nodeName) ?? '') === '' || phase === 'Failed' || phase === 'Succeeded') {
    period = 0;
  }
  if (period < 0) period = 1;
  const current = Number(metadata.deletionGracePeriodSeconds ?? 0);
  const deletionMs =
    metadata.deletionTimestamp === undefined
      ? undefined
      : Date.parse(String(metadata.deletionTimestamp));
  if (deletionMs !== undefined && current === 0) return undefined;
  if (deletionMs !== undefined && (requested === undefined || period >= current)) {
    return toVersion(context, info, existing); // graceful deletion already pending
  }
  // Only a shorter grace period may follow: the deadline moves back by the difference.
  const deadline =
    deletionMs === undefined
      ? context.clock.now() + period * 1000
      : deletionMs - current * 1000 + period * 1000;
  const next = structuredClone(existing);
  const nextMeta = metaOf(next);
  nextMeta.deletionTimestamp = new Date(deadline).toISOString().replace(/\.\d{3}Z$/, 'Z');
  nextMeta.deletionGracePeriodSeconds = period;
  if (deletionMs === undefined) {
    addPropagationFinalizer(finalizers, options);
    if (finalizers.length > 0) nextMeta.finalizers = finalizers;
  }
  if (period === 0 && finalizers.length === 0) {
    return toVersion(context, info, context.store.delete(key, next));
  }
  return toVersion(context, info, context.store.update(key, next));
}

/**
 * The Eviction subresource (policy/v1): with no PodDisruptionBudgets served nothing blocks it, so it
 * deletes the Pod with the Eviction's deleteOptions (gracefully when the Pod is scheduled).
 */
export function createEviction(
  context: ServerContext,
  request: ResourceRequestInfo,
  raw: ApiRequest,
): ApiResult {
  const name = request.name ?? '';
  const eviction = decodeBody(raw);
  if (!isRecord(eviction)) throw badRequest('the body of an eviction must be an Eviction object');
  const apiVersion = stringOf(eviction.apiVersion) ?? '';
  const kind = stringOf(eviction.kind) ?? '';
  if (
    (kind !== '' && kind !== 'Eviction') ||
    (apiVersion !== '' && apiVersion !== 'policy/v1' && apiVersion !== 'policy/v1beta1')
  ) {
    throw badRequest(
      `${kind} in version "${apiVersion}" cannot be handled as a Eviction: no kind "${kind}" is registered for version "${apiVersion}"`,
    );
  }
  const evictionName = isRecord(eviction.metadata) ? stringOf(eviction.metadata.name) : undefined;
  if (evictionName !== undefined && evictionName !== '' && evictionName !== name) {
    throw badRequest('name in URL does not match name in Eviction object');
  }
  const options = isRecord(eviction.deleteOptions) ? eviction.deleteOptions : {};
  // The query's dryRun (already in `context`) carries over to the delete, as does the Eviction's own
  // deleteOptions.dryRun (propagateDryRun).
  const ownDryRun = Array.isArray(options.dryRun) && isDryRun(options.dryRun, 'DeleteOptions');
  const serving = ownDryRun ? withDryRun(context) : context;
  const existing = mustGet(serving, request.info, request.namespace ?? '', name);
  deleteObject(serving, request.info, existing, options);
  const body = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
  return { type: 'json', code: 201, body };
}
