// CREATE (POST to a collection, or to a create-only subresource such as TokenRequest).

import { checkBodyFields, decodeObject, fieldManagerOf } from '../../decoding/decode.ts';
import { enforceFieldValidation } from '../../openapi/field-validation.ts';
import { recordManagedFields } from '../../patch/patch-request.ts';
import { createObject, toStored, toVersion } from '../../registry/generic-registry.ts';
import type { ApiRequest, ApiResult, ServerContext } from '../../registry/server-context.ts';
import type { ResourceRequestInfo } from '../../request/request-info.ts';
import { createOnlyResource } from '../../strategies/create-only.ts';

/** Answer a create: decode, then the generic registry prepares, validates, admits and stores. */
export function handleCreate(
  context: ServerContext,
  request: ResourceRequestInfo,
  raw: ApiRequest,
): ApiResult {
  const { info } = request;
  const createOnly = createOnlyResource(request.apiGroup, request.resource, request.subresource);
  if (createOnly !== undefined) return createOnly.create(context, request, raw);
  const decoded = decodeObject(context, info, raw);
  const warnings = checkBodyFields(context, request.query, info, decoded, raw);
  enforceFieldValidation(context.unknownFields, request.query, info, decoded);
  const object = toStored(context, info, decoded);
  const created = createObject(context, info, request.namespace ?? '', object, (prepared) =>
    recordManagedFields(undefined, prepared, {
      fieldManager: fieldManagerOf(raw),
      time: context.now(),
      info,
    }),
  );
  return { type: 'json', code: 201, body: toVersion(context, info, created), warnings };
}
