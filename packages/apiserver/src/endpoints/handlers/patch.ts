// PATCH of an object, its status or its Scale: JSON, merge and strategic merge patches, and
// server-side apply (which creates what does not exist).

import { isRecord, metaOf, stringOf, truthy } from '../../apimachinery/objects.ts';
import {
  badRequest,
  failure,
  invalid,
  methodNotAllowed,
  notFound,
  StatusError,
} from '../../apimachinery/status.ts';
import { strictWarning } from '../../apimachinery/strict-decoding.ts';
import {
  applyNonNumericPaths,
  checkKind,
  checkPatchedTypes,
  checkPatchFields,
  contentTypeOf,
  decodeApplyBody,
  fieldManagerOf,
  fieldValidationOf,
} from '../../decoding/decode.ts';
import {
  applyConflictError,
  computePatch,
  runApply,
  yamlDuplicateKeys,
} from '../../patch/patch-request.ts';
import { Authorizer } from '../../rbac/authorizer.ts';
import { checkEscalation } from '../../rbac/escalation.ts';
import {
  createObject,
  mustGet,
  toStored,
  toVersion,
  updateObject,
} from '../../registry/generic-registry.ts';
import { applyScale, toScale } from '../../registry/scale.ts';
import type { ApiRequest, ApiResult, ServerContext } from '../../registry/server-context.ts';
import type { ResourceRequestInfo } from '../../request/request-info.ts';
import { storageKey } from '../../resources/builtin-resources.ts';
import type { KubeObject } from '../../storage/store.ts';

/** Answer a patch: server-side apply by its content type, any other patch type otherwise. */
export function handlePatch(
  context: ServerContext,
  request: ResourceRequestInfo,
  raw: ApiRequest,
): ApiResult {
  if (contentTypeOf(raw) === 'application/apply-patch+yaml') return apply(context, request, raw);
  const { info, subresource, query } = request;
  const name = request.name ?? '';
  if (query.has('force')) {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
      {
        type: 'FieldValueForbidden',
        message: 'Forbidden: may not be specified for non-apply patch',
        field: 'force',
      },
    ]);
  }
  const existing = mustGet(context, info, request.namespace ?? '', name);
  const base =
    subresource === 'scale' ? toScale(context, info, existing) : toVersion(context, info, existing);
  const patched = computePatch(contentTypeOf(raw), base, raw.body, {
    builtin: info.builtin || subresource === 'scale',
    apiVersion: stringOf(base.apiVersion) ?? '',
    kind: stringOf(base.kind) ?? '',
  });
  if (!isRecord(patched)) throw badRequest('the patched object is not a JSON object');
  if (subresource === 'scale') {
    const result = applyScale(context, info, existing, patched, fieldManagerOf(raw));
    return { type: 'json', code: 200, body: toScale(context, info, result) };
  }
  checkPatchedTypes(info, patched as KubeObject, raw);
  const warnings = checkPatchFields(context, query, info, patched as KubeObject, raw);
  admitRbacPatch(context, request, raw, patched as KubeObject);
  const checked = toStored(context, info, checkKind(context, info, patched));
  const patchedMeta = metaOf(checked);
  if (patchedMeta.name !== name) {
    throw badRequest(
      `the name of the object (${String(patchedMeta.name)}) does not match the name on the URL (${name})`,
    );
  }
  const updated = updateObject(context, info, existing, checked, {
    subresource,
    fieldManager: fieldManagerOf(raw),
    requireResourceVersion: false,
  });
  return { type: 'json', code: 200, body: toVersion(context, info, updated), warnings };
}

/** Server-side apply: merge the configuration into the live object (or create it), tracking owners. */
function apply(context: ServerContext, request: ResourceRequestInfo, raw: ApiRequest): ApiResult {
  const { info, subresource, query } = request;
  const namespace = request.namespace ?? '';
  const name = request.name ?? '';
  const fieldManager = query.get('fieldManager') ?? '';
  if (fieldManager === '') {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
      {
        type: 'FieldValueRequired',
        message: 'Required value: is required for apply patch',
        field: 'fieldManager',
      },
    ]);
  }
  if (subresource === 'scale') throw methodNotAllowed();
  const configuration = checkKind(context, info, decodeApplyBody(raw));
  const configName = stringOf(metaOf(configuration).name) ?? '';
  if (configName !== name) {
    throw badRequest(
      `the name of the object (${configName}) does not match the name on the URL (${name})`,
    );
  }
  refuseUndeclaredApplyFields(context, info, namespace, configuration);
  const existing = context.store.get(storageKey(info), namespace, name);
  // Subresources never create on update (kube's StatusREST passes forceAllowCreate=false).
  if (existing === undefined && subresource !== undefined) throw notFound(info, name);
  const versioned = existing === undefined ? undefined : toVersion(context, info, existing);
  const applied = runApply(versioned, configuration, {
    info,
    fieldManager,
    force: truthy(query.get('force')),
    time: context.now(),
    subresource,
  });
  if (applied.conflicts.length > 0) throw applyConflictError(applied.conflicts);
  // kube checks strictness once the field manager has applied (a conflict answers first).
  const mode = fieldValidationOf(query);
  const duplicates = mode === 'Ignore' ? [] : yamlDuplicateKeys(raw.body);
  if (duplicates.length > 0 && mode === 'Strict') {
    throw badRequest(
      `error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`,
    );
  }
  const warnings = duplicates.map(strictWarning);
  admitRbacPatch(context, request, raw, applied.object);
  const object = toStored(context, info, applied.object);
  if (existing === undefined) {
    const created = createObject(context, info, namespace, object, (prepared) => {
      metaOf(prepared).managedFields = metaOf(object).managedFields;
      return prepared;
    });
    return { type: 'json', code: 201, body: toVersion(context, info, created), warnings };
  }
  const updated = updateObject(context, info, existing, object, {
    subresource,
    fieldManager,
    requireResourceVersion: false,
    managedFields: (_previous, next) => {
      metaOf(next).managedFields = metaOf(object).managedFields;
      return next;
    },
  });
  return { type: 'json', code: 200, body: toVersion(context, info, updated), warnings };
}

/**
 * RBAC's escalation check on the patched Role, ClusterRole or binding (kube's policy-based storage checks
 * the object an update produces, whatever the request's verb): a patch may grant no more than the
 * writer holds.
 */
function admitRbacPatch(
  context: ServerContext,
  request: ResourceRequestInfo,
  raw: ApiRequest,
  object: KubeObject,
): void {
  if (request.apiGroup !== 'rbac.authorization.k8s.io' || request.subresource !== undefined) return;
  checkEscalation({
    authorizer: new Authorizer(context.store),
    user: raw.user,
    resource: request.resource,
    namespace: request.namespace ?? '',
    object,
  });
}

/** A list item in structured-merge-diff's path notation: by its `name` key when it has one. */
function smdSegment(list: unknown, index: number): string {
  const item = Array.isArray(list) ? list[index] : undefined;
  const key = isRecord(item) ? item.name : undefined;
  return typeof key === 'string' ? `[name=${JSON.stringify(key)}]` : `[${index}]`;
}

/** `path` (`spec.containers[0].bogus`) as structured-merge-diff writes it (`.spec.containers[name="main"].bogus`). */
function smdPath(object: KubeObject, path: string): string {
  let current: unknown = object;
  let result = '';
  for (const token of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    if (token.startsWith('[')) {
      const index = Number(token.slice(1, -1));
      result += smdSegment(current, index);
      current = Array.isArray(current) ? current[index] : undefined;
    } else {
      result += `.${token}`;
      current = isRecord(current) ? current[token] : undefined;
    }
  }
  return result;
}

/**
 * An apply configuration of a built-in kind must fit the kind's schema: the field manager cannot type a
 * field the schema does not declare nor give a numeric field anything but a number, and kube-apiserver
 * answers its plain error as a 500 without a
 * reason, whatever `fieldValidation` says.
 */
function refuseUndeclaredApplyFields(
  context: ServerContext,
  info: ResourceRequestInfo['info'],
  namespace: string,
  configuration: KubeObject,
): void {
  if (!info.builtin || context.unknownFields === undefined) return;
  const unknown = context.unknownFields(
    { group: info.group, version: info.version, kind: info.kind },
    configuration,
  );
  const errors = [
    ...unknown.map((path) => `${smdPath(configuration, path)}: field not declared in schema`),
    ...applyNonNumericPaths(info, configuration).map(
      (path) =>
        `${smdPath(configuration, path)}: expected numeric (int or float), got *value.valueUnstructured`,
    ),
  ];
  if (errors.length === 0) return;
  const detail =
    errors.length === 1
      ? errors[0]
      : ['errors:', ...errors.map((error) => `  ${error}`)].join('\n');
  const name = stringOf(metaOf(configuration).name) ?? '';
  const gvk = `${info.group}/${info.version}, Kind=${info.kind}`;
  throw new StatusError(
    failure(
      500,
      '',
      `failed to create typed patch object (${namespace}/${name}; ${gvk}): ${detail}`,
    ),
  );
}
