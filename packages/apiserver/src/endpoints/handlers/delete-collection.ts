// DELETECOLLECTION: delete every object a list with the same selectors would return.

import { metaOf, stringOf } from '../../apimachinery/objects.ts';
import { decodeDeleteOptions } from '../../decoding/decode.ts';
import { deleteIsDryRun, withDryRun } from '../../registry/dry-run.ts';
import { deleteObject, stripListItem, toVersion } from '../../registry/generic-registry.ts';
import type { ApiRequest, ApiResult, ServerContext } from '../../registry/server-context.ts';
import type { ResourceRequestInfo } from '../../request/request-info.ts';
import { apiVersionOf, storageKey } from '../../resources/builtin-resources.ts';
import { matches, selectorsOf, shardSelectorOf } from '../../selection/predicate.ts';

/** Answer a deletecollection: the list of what was deleted (or marked deleted). */
export function handleDeleteCollection(
  context: ServerContext,
  request: ResourceRequestInfo,
  raw: ApiRequest,
): ApiResult {
  const { info } = request;
  const options = decodeDeleteOptions(raw);
  const serving = deleteIsDryRun(options, raw.body, request.query) ? withDryRun(context) : context;
  const { store } = serving;
  const selectors = selectorsOf(info, request.query);
  // kube's DeleteCollection lists with the same options, shardSelector included.
  selectors.shard = shardSelectorOf(serving, request.query);
  const key = storageKey(info);
  const items: unknown[] = [];
  for (const object of store.list(key, request.namespace)) {
    if (!matches(info, selectors, object)) continue;
    const current = store.get(
      key,
      stringOf(metaOf(object).namespace) ?? '',
      String(metaOf(object).name),
    );
    if (current === undefined) continue;
    deleteObject(serving, info, current, options);
    items.push(stripListItem(info, toVersion(context, info, current)));
  }
  const body = {
    kind: info.listKind,
    apiVersion: apiVersionOf(info),
    metadata: { resourceVersion: String(store.currentRv()) },
    items,
  };
  return { type: 'json', code: 200, body };
}
