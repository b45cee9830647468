// LIST of a collection: a consistent snapshot (now, or at an exact resourceVersion), paged by limit and
// continue, filtered by selectors.

import { type Json, metaOf, stringOf } from '../../apimachinery/objects.ts';
import { integerOptions } from '../../apimachinery/query-integers.ts';
import { badRequest, expired, failure, StatusError } from '../../apimachinery/status.ts';
import { tableResponse } from '../../printers/table-negotiation.ts';
import { stripListItem, toVersion } from '../../registry/generic-registry.ts';
import type { ApiRequest, ApiResult, ServerContext } from '../../registry/server-context.ts';
import type { ResourceRequestInfo } from '../../request/request-info.ts';
import { apiVersionOf, storageKey } from '../../resources/builtin-resources.ts';
import {
  continueTooOld,
  decodeContinue,
  encodeContinue,
  requireReached,
  validateListOptions,
} from '../../selection/list-options.ts';
import { matches, selectorsOf, shardSelectorOf } from '../../selection/predicate.ts';
import { CompactedError, type KubeObject, type Snapshot } from '../../storage/store.ts';
import { metadataOfList, metadataTarget } from '../partial-metadata.ts';

/** Answer a list. */
export function handleList(
  context: ServerContext,
  request: ResourceRequestInfo,
  raw: ApiRequest,
): ApiResult {
  const { info, query, namespace } = request;
  const { store } = context;
  const selectors = selectorsOf(info, query);
  // ListOptions decode timeoutSeconds before limit; a limit below 1 pages nothing.
  const limit = Math.max(0, integerOptions(query, ['timeoutSeconds', 'limit']).get('limit') ?? 0);
  const continueToken = query.get('continue') ?? '';
  validateListOptions(query, false);
  // The registry store reads shardSelector before storage reads the continue token or resourceVersion.
  selectors.shard = shardSelectorOf(context, query);
  let atRv: number | undefined;
  let start: string | undefined;
  if (continueToken !== '') {
    const decoded = decodeContinue(continueToken);
    const rvText = query.get('resourceVersion') ?? '';
    if (rvText !== '' && rvText !== '0') {
      throw badRequest('specifying resource version is not allowed when using continue');
    }
    atRv = decoded.rv;
    start = decoded.start;
  } else {
    const rvText = query.get('resourceVersion') ?? '';
    const match = query.get('resourceVersionMatch') ?? '';
    // An Exact list past the newest revision fails on etcd too; never label old state with it.
    requireReached(context, rvText);
    if (match === 'Exact') atRv = Number(rvText);
  }
  const key = storageKey(info);
  let snapshot: Snapshot;
  try {
    snapshot = store.snapshot(key, atRv);
  } catch (error) {
    if (error instanceof CompactedError) {
      if (continueToken !== '') {
        const status = failure(410, 'Expired', continueTooOld);
        status.metadata = { continue: encodeContinue(store.currentRv(), start ?? '') };
        throw new StatusError(status);
      }
      throw expired(`too old resource version: ${error.requested} (${error.oldest})`);
    }
    throw error;
  }
  const snapshotRv = atRv ?? store.currentRv();
  const idOf = (object: KubeObject): string =>
    `${stringOf(metaOf(object).namespace) ?? ''}/${stringOf(metaOf(object).name) ?? ''}`;
  // Walk in key order only as far as the page needs: one more match than the limit says whether
  // anything is left, so a page costs its own size, not the resource's.
  const page: KubeObject[] = [];
  let more = false;
  for (const object of snapshot.objects(namespace, start)) {
    if (!matches(info, selectors, object)) continue;
    if (limit > 0 && page.length === limit) {
      more = true;
      break;
    }
    page.push(object);
  }
  const metadata: Json = { resourceVersion: String(snapshotRv) };
  if (more) {
    metadata.continue = encodeContinue(snapshotRv, `${idOf(page[page.length - 1]!)}\u0000`);
    if (selectors.empty && selectors.shard === undefined) {
      metadata.remainingItemCount = snapshot.count(namespace, start) - limit;
    }
  }
  const body = {
    kind: info.listKind,
    apiVersion: apiVersionOf(info),
    metadata,
    // The snapshot hands out the stored objects: toVersion copies each.
    items: page.map((object) => stripListItem(info, toVersion(context, info, object))),
  };
  const asMetadata = metadataTarget(raw);
  if (asMetadata !== undefined) {
    return { type: 'json', code: 200, body: metadataOfList(info, asMetadata, body) };
  }
  const table = tableResponse(context, request, raw, body);
  if (table !== undefined) return { type: 'json', code: 200, body: table };
  // Only the full list keeps shardInfo: kube 1.36 builds a PartialObjectMetadataList or a Table from the
  // list's resourceVersion, continue and remainingItemCount alone (endpoints/handlers/response.go).
  if (selectors.shard !== undefined) metadata.shardInfo = { selector: selectors.shard.text };
  return { type: 'json', code: 200, body };
}
