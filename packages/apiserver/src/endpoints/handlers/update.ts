// UPDATE (PUT) of an object, its status, its Scale, or a Namespace's finalize.

import { isRecord, metaOf, stringOf } from '../../apimachinery/objects.ts';
import { badRequest, notFound } from '../../apimachinery/status.ts';
import { checkBodyFields, checkKind, decodeBody, fieldManagerOf } from '../../decoding/decode.ts';
import { enforceFieldValidation } from '../../openapi/field-validation.ts';
import { recordManagedFields } from '../../patch/patch-request.ts';
import {
  createObject,
  toStored,
  toVersion,
  uidPrecondition,
  updateObject,
} from '../../registry/generic-registry.ts';
import { applyScale, toScale } from '../../registry/scale.ts';
import type { ApiRequest, ApiResult, ServerContext } from '../../registry/server-context.ts';
import type { ResourceRequestInfo } from '../../request/request-info.ts';

/** Answer an update: decode, check name and namespace against the URL, preconditions, then store. */
export function handleUpdate(
  context: ServerContext,
  request: ResourceRequestInfo,
  raw: ApiRequest,
): ApiResult {
  const { info, subresource } = request;
  const namespace = request.namespace ?? '';
  const name = request.name ?? '';
  const parsed = decodeBody(raw, subresource === 'scale' ? 'Scale' : info.kind);
  if (subresource === 'scale') {
    const scale = isRecord(parsed) ? parsed : {};
    const existing = uidPrecondition(context, info, namespace, name, scale);
    if (existing === undefined) throw notFound(info, name);
    const result = applyScale(context, info, existing, scale, fieldManagerOf(raw));
    return { type: 'json', code: 200, body: toScale(context, info, result) };
  }
  const decoded = checkKind(context, info, parsed, raw);
  const warnings = checkBodyFields(context, request.query, info, decoded, raw);
  enforceFieldValidation(context.unknownFields, request.query, info, decoded);
  const incoming = toStored(context, info, decoded);
  const metadata = metaOf(incoming);
  const bodyName = stringOf(metadata.name) ?? '';
  if (bodyName !== name) {
    throw badRequest(
      `the name of the object (${bodyName}) does not match the name on the URL (${name})`,
    );
  }
  if (info.namespaced) {
    const given = stringOf(metadata.namespace);
    if (given !== undefined && given !== '' && given !== namespace) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
  }
  const existing = uidPrecondition(context, info, namespace, name, incoming);
  if (existing === undefined) {
    // Only kinds that allow create on update get here; subresources never create.
    if (subresource !== undefined) throw notFound(info, name);
    const created = createObject(context, info, namespace, incoming, (prepared) =>
      recordManagedFields(undefined, prepared, {
        fieldManager: fieldManagerOf(raw),
        time: context.now(),
        info,
      }),
    );
    return { type: 'json', code: 201, body: toVersion(context, info, created), warnings };
  }
  const result = updateObject(context, info, existing, incoming, {
    subresource,
    fieldManager: fieldManagerOf(raw),
    requireResourceVersion: !context.strategyFor(info).allowUnconditionalUpdate,
  });
  return { type: 'json', code: 200, body: toVersion(context, info, result), warnings };
}
