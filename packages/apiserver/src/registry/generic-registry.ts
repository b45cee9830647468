// What every kind shares on create, update and delete, as k8s.io/apiserver's generic registry Store does:
// names, uid and timestamps, generation, resourceVersion and UID preconditions, finalizers and graceful
// deletion, managedFields. What differs per kind comes from its Strategy (strategies/*.ts).
// size: one Store (create, update and delete share its preconditions and graceful-deletion rules).
import { randomUUID } from 'node:crypto';
import { validateObjectMeta } from '../apimachinery/name-validation.ts';
import { canonical, isRecord, type Json, metaOf, stringOf } from '../apimachinery/objects.ts';
import { omitEmpty } from '../apimachinery/omit-empty.ts';
import {
  alreadyExists,
  badRequest,
  conflict,
  failure,
  generateNameConflict,
  invalid,
  namespaceTerminating,
  notFound,
  StatusError,
} from '../apimachinery/status.ts';
import { recordManagedFields } from '../patch/patch-request.ts';
import { apiVersionOf, type ResourceInfo, storageKey } from '../resources/builtin-resources.ts';
import type { KubeObject } from '../storage/store.ts';
import type { ServerContext } from './server-context.ts';
import type { Cause } from './strategy.ts';

const namespacesKey = '/namespaces';
const generateNameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** A stored object as version `info` shows it (a new object). */
export function toVersion(
  context: Pick<ServerContext, 'strategyFor' | 'admission'>,
  info: ResourceInfo,
  given: KubeObject,
): KubeObject {
  // A CRD's conversion webhook (admission/conversion.ts), when the request runs with one.
  const object = context.admission?.convert(info, given, apiVersionOf(info)) ?? given;
  const convert = context.strategyFor(info).toVersion;
  if (convert !== undefined) return convert(info, structuredClone(object));
  const copy = structuredClone(object);
  copy.apiVersion = apiVersionOf(info);
  copy.kind = info.kind;
  return copy;
}

/** A decoded body in the shape it is stored in (kinds served in several shapes convert). */
export function toStored(
  context: Pick<ServerContext, 'strategyFor'>,
  info: ResourceInfo,
  object: KubeObject,
): KubeObject {
  return context.strategyFor(info).toStored?.(info, object) ?? object;
}

/** A list item: typed lists of built-in kinds carry no kind/apiVersion per item; custom resource lists do. */
export function stripListItem(info: ResourceInfo, object: KubeObject): KubeObject {
  if (info.builtin) {
    delete object.kind;
    delete object.apiVersion;
  }
  return object;
}

/** The live object, or the 404 kube-apiserver answers. */
export function mustGet(
  context: ServerContext,
  info: ResourceInfo,
  namespace: string,
  name: string,
): KubeObject {
  const found = context.store.get(storageKey(info), namespace, name);
  if (found === undefined) throw notFound(info, name);
  return found;
}

function checkNamespace(
  context: ServerContext,
  info: ResourceInfo,
  namespace: string,
  name: string,
): void {
  if (!info.namespaced) return;
  const found = context.store.get(namespacesKey, '', namespace);
  if (found === undefined) {
    throw notFound({ group: '', resource: 'namespaces' }, namespace);
  }
  if (isRecord(found.metadata) && found.metadata.deletionTimestamp !== undefined) {
    throw namespaceTerminating(info, name, namespace);
  }
}

/**
 * Store a new object: namespace and generated name, metadata validation, the kind's defaults,
 * validation and admission, then the storage checks (already exists). `track` records managedFields.
 */
export function createObject(
  context: ServerContext,
  info: ResourceInfo,
  namespace: string,
  object: KubeObject,
  track: (prepared: KubeObject) => KubeObject,
  admitted = false,
): KubeObject {
  const strategy = context.strategyFor(info);
  const metadata = metaOf(object);
  if (info.namespaced) {
    const given = stringOf(metadata.namespace);
    if (given !== undefined && given !== '' && given !== namespace) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    metadata.namespace = namespace;
  } else {
    delete metadata.namespace;
  }
  if (context.admission !== undefined && !admitted) {
    // Mutating webhooks see the create's managedFields (kube 1.20's create handler tracks fields before
    // admission) but no uid and a null creationTimestamp: BeforeCreate fills both only after mutating
    // admission, so validating webhooks see them. Storage fills all three in again after.
    const shown = track(structuredClone(object));
    metaOf(shown).creationTimestamp = metadata.creationTimestamp ?? null;
    const mutated = context.admission.mutate({ operation: 'CREATE', info, object: shown });
    if (mutated !== undefined) {
      const mutatedMeta = metaOf(mutated);
      delete mutatedMeta.creationTimestamp;
      if (canonical(mutatedMeta.managedFields) === canonical(metaOf(shown).managedFields)) {
        if (metadata.managedFields === undefined) delete mutatedMeta.managedFields;
        else mutatedMeta.managedFields = metadata.managedFields;
      }
      return createObject(context, info, namespace, mutated, track, true);
    }
  }
  const generated =
    (stringOf(metadata.name) ?? '') === '' && (stringOf(metadata.generateName) ?? '') !== '';
  if (generated) {
    // kube-apiserver retries a generated name that collides (up to 8 attempts).
    const scope = info.namespaced ? namespace : '';
    for (let attempt = 0; attempt < 8; attempt++) {
      let suffix = '';
      for (let index = 0; index < 5; index++) {
        const draw = context.admission?.random() ?? Math.random();
        suffix += generateNameAlphabet[Math.floor(draw * generateNameAlphabet.length)];
      }
      metadata.name = `${metadata.generateName as string}${suffix}`;
      if (!context.store.has(storageKey(info), scope, metadata.name as string)) break;
    }
  }
  const name = stringOf(metadata.name) ?? '';
  const causes: Cause[] = validateObjectMeta(metadata, {
    namespaced: info.namespaced,
    nameRule: info.nameRule,
  });
  if (info.namespaced && namespace === '') {
    causes.push({
      type: 'FieldValueRequired',
      message: 'Required value',
      field: 'metadata.namespace',
    });
  }
  strategy.canonicalize(context, info, object);
  causes.push(...strategy.validate(context, info, object));
  if (causes.length > 0) throw invalid(info, name, causes);
  if (metadata.resourceVersion !== undefined && metadata.resourceVersion !== '') {
    // The storage layer's plain error: kube-apiserver answers 500 with an empty (omitted) reason.
    throw new StatusError(
      failure(500, '', 'resourceVersion should not be set on objects to be created'),
    );
  }
  checkNamespace(context, info, namespace, name);
  const key = storageKey(info);
  if (context.store.has(key, info.namespaced ? namespace : '', name)) {
    // Every generated name collided: the server's failure, which the client may retry (CheckGeneratedNameError).
    throw generated ? generateNameConflict(info, name) : alreadyExists(info, name);
  }
  metadata.uid = context.admission?.uid() ?? randomUUID();
  metadata.creationTimestamp = context.now();
  delete metadata.deletionTimestamp;
  delete metadata.deletionGracePeriodSeconds;
  delete metadata.resourceVersion;
  delete metadata.selfLink;
  if (info.generation) metadata.generation = 1;
  else delete metadata.generation;
  strategy.prepareForCreate(context, info, object);
  strategy.admitCreate?.(context, info, object);
  const tracked = track(object);
  context.admission?.validate({ operation: 'CREATE', info, object: tracked });
  const stored = context.store.create(key, toStorage(context, info, tracked));
  strategy.afterCreate?.(context, stored);
  return stored;
}

function toStorage(context: ServerContext, info: ResourceInfo, object: KubeObject): KubeObject {
  if (info.storageVersion !== undefined && info.storageVersion !== info.version) {
    const apiVersion = `${info.group}/${info.storageVersion}`;
    return context.admission?.convert(info, object, apiVersion) ?? { ...object, apiVersion };
  }
  return object;
}

/**
 * The live object a PUT replaces. A body carrying metadata.uid is a UID precondition (checked before
 * the resourceVersion), so a PUT of an object that was deleted, or deleted and recreated, is 409
 * Conflict like kube-apiserver's storage answers, not 404; only a body without a uid gets 404
 * (undefined when the kind allows create on update).
 */
export function uidPrecondition(
  context: ServerContext,
  info: ResourceInfo,
  namespace: string,
  name: string,
  body: Json,
): KubeObject | undefined {
  const existing = context.store.get(storageKey(info), namespace, name);
  const uid = isRecord(body.metadata) ? (stringOf(body.metadata.uid) ?? '') : '';
  if (uid !== '') {
    const liveUid = existing === undefined ? '' : (stringOf(metaOf(existing).uid) ?? '');
    if (uid !== liveUid) {
      const at = info.namespaced ? { namespace, name } : { name };
      throw conflict(
        info,
        name,
        storageInvalid(
          info,
          at,
          `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${liveUid}`,
        ),
      );
    }
  }
  if (existing === undefined && !context.strategyFor(info).allowCreateOnUpdate)
    throw notFound(info, name);
  return existing;
}

/** How an update records its field manager and which resourceVersion rule it follows. */
export interface UpdateOptions {
  subresource: string | undefined;
  fieldManager: string;
  /** False for a PUT of a kind that does not allow unconditional update. */
  requireResourceVersion: boolean;
  /** Records managedFields instead of an Update entry for `fieldManager` (server-side apply). */
  managedFields?: ((previous: KubeObject, next: KubeObject) => KubeObject) | undefined;
}

/**
 * Replace `existing` with `incoming`: resourceVersion precondition, what the subresource may change,
 * immutable metadata, validation, generation, managedFields; a write that changes nothing is not
 * stored, and an update that removes the last finalizer of a deleted object deletes it.
 */
export function updateObject(
  context: ServerContext,
  info: ResourceInfo,
  stored: KubeObject,
  body: KubeObject,
  options: UpdateOptions,
): KubeObject {
  // With a conversion webhook, the update runs in the request's version and is stored converted back.
  const existing = context.admission?.convert(info, stored, apiVersionOf(info)) ?? stored;
  const mutated = context.admission?.mutate({
    operation: 'UPDATE',
    info,
    subresource: options.subresource,
    object: body,
    oldObject: existing,
  });
  const incoming = mutated ?? body;
  const strategy = context.strategyFor(info);
  const existingMeta = metaOf(existing);
  const name = stringOf(existingMeta.name) ?? '';
  const incomingMeta = metaOf(incoming);
  const incomingRv = stringOf(incomingMeta.resourceVersion) ?? '';
  if (incomingRv !== '' && !/^\d+$/.test(incomingRv)) {
    // The storage versioner's parse error is no Status: kube-apiserver answers 500 without a reason.
    throw new StatusError(
      failure(500, '', `strconv.ParseUint: parsing ${JSON.stringify(incomingRv)}: invalid syntax`),
    );
  }
  if (incomingRv !== '' && incomingRv !== existingMeta.resourceVersion) {
    throw conflict(info, name);
  }
  if (incomingRv === '' && options.requireResourceVersion) {
    // store.go names the resource where the kind belongs here (its TODO since kubernetes#18526).
    throw invalid({ group: info.group, kind: info.resource }, name, [
      {
        type: 'FieldValueInvalid',
        message: 'Invalid value: 0x0: must be specified for an update',
        field: 'metadata.resourceVersion',
      },
    ]);
  }
  let next: KubeObject;
  if (options.subresource === 'status') {
    next = structuredClone(existing);
    if (incoming.status === undefined) delete next.status;
    else next.status = incoming.status;
  } else if (options.subresource !== undefined && strategy.updateSubresource !== undefined) {
    next = strategy.updateSubresource(options.subresource, existing, incoming);
  } else {
    next = prepareMainUpdate(context, info, existing, incoming);
  }
  next.apiVersion = existing.apiVersion;
  next.kind = existing.kind;
  const tracked =
    options.managedFields?.(existing, next) ??
    recordManagedFields(existing, next, {
      fieldManager: options.fieldManager,
      time: context.now(),
      subresource: options.subresource,
      info,
    });
  context.admission?.validate({
    operation: 'UPDATE',
    info,
    subresource: options.subresource,
    object: tracked,
    oldObject: existing,
  });
  const key = storageKey(info);
  const nextMeta = metaOf(tracked);
  // ShouldDeleteDuringUpdate: a gracefully terminating object (a scheduled Pod) waits for its
  // grace period to be cut to 0 by a delete, whatever its finalizers.
  const grace = Number(existingMeta.deletionGracePeriodSeconds ?? 0);
  if (
    nextMeta.deletionTimestamp !== undefined &&
    (!Array.isArray(nextMeta.finalizers) || nextMeta.finalizers.length === 0) &&
    strategy.holdsDeletion?.(tracked) !== true &&
    grace === 0
  ) {
    return context.store.delete(
      key,
      existing === stored ? tracked : toStorage(context, info, tracked),
    );
  }
  if (comparable(tracked) === comparable(existing)) return stored;
  const written = context.store.update(
    key,
    existing === stored ? tracked : toStorage(context, info, tracked),
  );
  if (options.subresource === undefined) strategy.afterUpdate?.(context, written);
  return written;
}

/** An update of the main resource: what may not change is kept, then the whole object is validated. */
function prepareMainUpdate(
  context: ServerContext,
  info: ResourceInfo,
  existing: KubeObject,
  incoming: KubeObject,
): KubeObject {
  const strategy = context.strategyFor(info);
  const existingMeta = metaOf(existing);
  const name = stringOf(existingMeta.name) ?? '';
  const incomingUid = stringOf(metaOf(incoming).uid) ?? '';
  if (incomingUid !== '' && incomingUid !== existingMeta.uid) {
    // A patch that rewrites the uid (a PUT already failed its UID precondition).
    throw invalid(info, name, [
      {
        type: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(incomingUid)}: field is immutable`,
        field: 'metadata.uid',
      },
    ]);
  }
  const next = structuredClone(incoming);
  strategy.prepareForUpdate(context, info, existing, next);
  const nextMeta = metaOf(next);
  for (const field of [
    'uid',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'generation',
    'namespace',
    'name',
  ]) {
    if (existingMeta[field] === undefined) delete nextMeta[field];
    else nextMeta[field] = existingMeta[field];
  }
  const causes: Cause[] = validateObjectMeta(nextMeta, {
    namespaced: info.namespaced,
    nameRule: info.nameRule,
  });
  if (existingMeta.deletionTimestamp !== undefined) {
    const before = new Set(
      Array.isArray(existingMeta.finalizers) ? existingMeta.finalizers.map(String) : [],
    );
    const added = (Array.isArray(nextMeta.finalizers) ? nextMeta.finalizers : [])
      .map(String)
      .filter((finalizer) => !before.has(finalizer));
    if (added.length > 0) {
      causes.push({
        type: 'FieldValueInvalid',
        message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((item) => JSON.stringify(item)).join(', ')}}`,
        field: 'metadata.finalizers',
      });
    }
  }
  strategy.canonicalize(context, info, next);
  causes.push(...strategy.validate(context, info, next));
  causes.push(...(strategy.validateUpdate?.(existing, next, context, info) ?? []));
  if (causes.length > 0) throw invalid(info, name, causes);
  const hasStatus = info.subresources.includes('status');
  if (
    info.generation &&
    (strategy.bumpsGeneration?.(existing, next) === true || specChanged(existing, next, hasStatus))
  ) {
    nextMeta.generation = Number(existingMeta.generation ?? 0) + 1;
  }
  return next;
}

/**
 * The object without what a no-op write changes: a write that changes nothing but managedFields
 * timestamps is a no-op (kube-apiserver's IgnoreManagedFieldsTimestampsTransformer); a change of
 * ownership is a real write.
 */
function comparable(object: KubeObject): string {
  // Compared as stored: what omitempty drops cannot make a write real.
  const copy = omitEmpty(structuredClone(object));
  const meta = metaOf(copy);
  delete meta.resourceVersion;
  if (Array.isArray(meta.managedFields)) {
    meta.managedFields = meta.managedFields.map((entry: unknown) => {
      if (!isRecord(entry)) return entry;
      const { time: _time, ...rest } = entry;
      return rest;
    });
  }
  return canonical(copy);
}

function specChanged(existing: KubeObject, next: KubeObject, hasStatus: boolean): boolean {
  const strip = (object: KubeObject): string => {
    // apimachinery's semantic equality takes an empty map or slice for a missing one.
    const {
      metadata: _metadata,
      status,
      apiVersion: _a,
      kind: _k,
      ...rest
    } = omitEmpty(structuredClone(object));
    return canonical(hasStatus ? rest : { ...rest, status });
  };
  return strip(existing) !== strip(next);
}

/**
 * Delete `existing` with DeleteOptions `options`: preconditions, the kind's own delete (namespaces,
 * CRDs, graceful pods), then finalizers: an object with finalizers (or a Foreground/Orphan policy) is
 * marked deleted and stays until they are removed. Answers the response body.
 */
export function deleteObject(
  context: ServerContext,
  info: ResourceInfo,
  existing: KubeObject,
  options: Json,
): unknown {
  const strategy = context.strategyFor(info);
  const key = storageKey(info);
  const metadata = metaOf(existing);
  const name = stringOf(metadata.name) ?? '';
  const preconditions = isRecord(options.preconditions) ? options.preconditions : {};
  // rest.BeforeDelete checks the preconditions before storage does, naming the kind, not the resource.
  const byKind = { group: info.group, resource: info.kind };
  if (preconditions.uid !== undefined && preconditions.uid !== metadata.uid) {
    throw conflict(
      byKind,
      name,
      `the UID in the precondition (${String(preconditions.uid)}) does not match the UID in record (${String(metadata.uid)}). The object might have been deleted and then recreated`,
    );
  }
  if (
    preconditions.resourceVersion !== undefined &&
    preconditions.resourceVersion !== metadata.resourceVersion
  ) {
    throw conflict(
      byKind,
      name,
      `the ResourceVersion in the precondition (${String(preconditions.resourceVersion)}) does not match the ResourceVersion in record (${String(metadata.resourceVersion)}). The object might have been modified`,
    );
  }
  if (context.admission !== undefined) {
    context.admission.mutate({ operation: 'DELETE', info, oldObject: existing });
    context.admission.validate({ operation: 'DELETE', info, oldObject: existing });
  }
  const finalizers = Array.isArray(metadata.finalizers) ? metadata.finalizers.map(String) : [];
  if (strategy.delete !== undefined) {
    const answered = strategy.delete(context, info, existing, options, finalizers);
    if (answered !== undefined) return answered;
  }
  if (metadata.deletionTimestamp !== undefined) return toVersion(context, info, existing);
  addPropagationFinalizer(finalizers, options, strategy.orphanDependentsByDefault === true);
  if (finalizers.length > 0) {
    const next = structuredClone(existing);
    const nextMeta = metaOf(next);
    nextMeta.finalizers = finalizers;
    nextMeta.deletionTimestamp = context.now();
    nextMeta.deletionGracePeriodSeconds = 0;
    if (info.generation) nextMeta.generation = Number(nextMeta.generation ?? 0) + 1;
    return toVersion(context, info, context.store.update(key, next));
  }
  const deleted = context.store.delete(key, existing);
  if (strategy.returnDeletedObject) return toVersion(context, info, deleted);
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    // StatusDetails.group is omitempty: core resources carry no group key.
    details: {
      name,
      ...(info.group === '' ? {} : { group: info.group }),
      kind: info.resource,
      uid: metadata.uid,
    },
  };
}

/**
 * The finalizers the garbage collector acts on, as kube-apiserver's store sets them on delete
 * (deletionFinalizersForGarbageCollection): `orphanDependents`, else `propagationPolicy`, else an
 * `orphan` or `foregroundDeletion` finalizer the object already has, else the kind's default (Orphan
 * for batch/v1 Jobs, Background for the others). At most one of the two stays, after the others.
 */
export function addPropagationFinalizer(
  finalizers: string[],
  options: Json,
  orphanByDefault = false,
): void {
  let orphan: boolean;
  let foreground = false;
  const policy = options.propagationPolicy;
  if (typeof options.orphanDependents === 'boolean') orphan = options.orphanDependents;
  else if (policy === 'Orphan' || policy === 'Foreground' || policy === 'Background') {
    orphan = policy === 'Orphan';
    foreground = policy === 'Foreground';
  } else {
    const first = finalizers.find((item) => item === 'orphan' || item === 'foregroundDeletion');
    orphan = first === undefined ? orphanByDefault : first === 'orphan';
    foreground = first === 'foregroundDeletion';
  }
  const next = finalizers.filter((item) => item !== 'orphan' && item !== 'foregroundDeletion');
  if (orphan) next.push('orphan');
  if (foreground) next.push('foregroundDeletion');
  const same = next.length === finalizers.length && next.every((item) => finalizers.includes(item));
  if (!same) finalizers.splice(0, finalizers.length, ...next);
}

/**
 * The text of etcd3's StorageError for a failed precondition, which kube-apiserver wraps in its 409
 * (storage/errors.go): built-in resources live under /registry/{resource}, custom ones under
 * /registry/{group}/{resource}.
 */
function storageInvalid(info: ResourceInfo, metadata: Json, message: string): string {
  const prefix = info.builtin ? info.resource : `${info.group}/${info.resource}`;
  const namespace = stringOf(metadata.namespace);
  const key = `/registry/${prefix}/${namespace === undefined ? '' : `${namespace}/`}${String(metadata.name)}`;
  return `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: ${message}`;
}
