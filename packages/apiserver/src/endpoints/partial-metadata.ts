// Metadata-only answers, as kube-apiserver's transformObject gives them (endpoints/handlers/response.go):
// a get, list or watch whose Accept header asks for `as=PartialObjectMetadata` or
// `as=PartialObjectMetadataList` (g=meta.k8s.io, v=v1 or v1beta1) gets the objects' ObjectMeta alone, with
// kind and apiVersion of meta.k8s.io. client-go's metadata client and controller-runtime's metadata-only
// watches ask for them. Answers are JSON whatever the clause's media type, as every answer of this server.
import { isRecord, type Json } from '../apimachinery/objects.ts';
import { failure, StatusError } from '../apimachinery/status.ts';
import type { ApiRequest } from '../registry/server-context.ts';
import type { ResourceInfo } from '../resources/builtin-resources.ts';
import type { WatchPlan } from '../storage/watch-fanout.ts';
import { acceptOf } from './accept.ts';

/** What a request asked for: one object's metadata, or a list of them, in a meta.k8s.io version. */
export interface MetadataTarget {
  kind: 'PartialObjectMetadata' | 'PartialObjectMetadataList';
  version: 'v1' | 'v1beta1';
}

/** Types a metadata clause may name (kube allows the transform in every serializer it has). */
const metadataMediaTypes = new Set([
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
]);

/** Types a plain clause may name that end the search (the server prefers the plain object). */
const plainMediaTypes = new Set([...metadataMediaTypes, '*/*', 'application/*']);

/**
 * The metadata form the Accept header asks for, when its first clause the server can serve asks for one;
 * undefined when the first such clause is a plain type or a Table (printers/table-negotiation.ts judges
 * those), or when no clause is servable (the Table negotiation answers that 406).
 */
export function metadataTarget(request: ApiRequest): MetadataTarget | undefined {
  const accept = acceptOf(request);
  if (accept === undefined || accept.trim() === '') return undefined;
  for (const clause of accept.split(',')) {
    const [rawType = '', ...rest] = clause.split(';').map((part) => part.trim());
    const type = rawType.toLowerCase();
    if (type === '') continue;
    const parameters = new Map<string, string>();
    for (const part of rest) {
      const index = part.indexOf('=');
      if (index > 0)
        parameters.set(part.slice(0, index).trim().toLowerCase(), part.slice(index + 1).trim());
    }
    const as = parameters.get('as');
    if (as === undefined) {
      if (plainMediaTypes.has(type)) return undefined;
      continue;
    }
    const group = parameters.get('g');
    const version = parameters.get('v');
    if (group !== 'meta.k8s.io' || (version !== 'v1' && version !== 'v1beta1')) continue;
    if (as === 'Table') {
      if (type === 'application/json' || type === 'application/yaml') return undefined;
      continue;
    }
    if (
      (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') &&
      metadataMediaTypes.has(type)
    ) {
      return { kind: as, version };
    }
  }
  return undefined;
}

/** The Go type kube names in its 406 (`*core.ConfigMap`, `*apps.DeploymentList`, `*unstructured.Unstructured`). */
function goType(info: ResourceInfo, list: boolean): string {
  if (!info.builtin) return list ? '*unstructured.UnstructuredList' : '*unstructured.Unstructured';
  const pkg =
    info.group === '' || info.group === 'events.k8s.io' ? 'core' : info.group.split('.')[0];
  return `*${pkg}.${list ? info.listKind : info.kind}`;
}

function notAcceptableTransform(message: string): StatusError {
  return new StatusError(failure(406, 'NotAcceptable', message));
}

function partial(object: Json, version: string): Json {
  return {
    kind: 'PartialObjectMetadata',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: isRecord(object.metadata) ? object.metadata : {},
  };
}

/** One object's answer in the asked form; throws kube's 406 (500 for a custom resource) for a list form. */
export function metadataOfObject(info: ResourceInfo, target: MetadataTarget, object: Json): Json {
  if (target.kind === 'PartialObjectMetadataList') {
    // kube's unstructured objects pass its list check and fail on their items: a 500 without a reason.
    if (!info.builtin) throw new StatusError(failure(500, '', 'content is not a list'));
    throw notAcceptableTransform(
      `you requested PartialObjectMetadataList, but the requested object is not a list (${goType(info, false)})`,
    );
  }
  return partial(object, target.version);
}

/** A list's answer in the asked form: the list's metadata (resourceVersion, continue, remainingItemCount) and each item's. */
export function metadataOfList(info: ResourceInfo, target: MetadataTarget, list: Json): Json {
  if (target.kind === 'PartialObjectMetadata') {
    throw notAcceptableTransform(
      `you requested PartialObjectMetadata, but the requested object is a list (${goType(info, true)})`,
    );
  }
  const items = Array.isArray(list.items) ? list.items : [];
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: `meta.k8s.io/${target.version}`,
    metadata: isRecord(list.metadata) ? list.metadata : {},
    items: items.map((item) => partial(isRecord(item) ? item : {}, target.version)),
  };
}

/**
 * `plan` with each event's object (BOOKMARKs included; ERROR Status objects as they are) turned into a
 * PartialObjectMetadata. A watch asking for the list form fails on its first object, as kube's does: the
 * stream ends without an event.
 */
export function metadataWatchPlan(target: MetadataTarget, plan: WatchPlan): WatchPlan {
  return {
    timeoutMs: plan.timeoutMs,
    bookmarks: plan.bookmarks,
    key: plan.key,
    start(send, end) {
      let failed = false;
      return plan.start((event) => {
        if (failed) return;
        if (!isRecord(event) || !isRecord(event.object) || event.type === 'ERROR') {
          send(event);
          return;
        }
        if (target.kind === 'PartialObjectMetadataList') {
          failed = true;
          end();
          return;
        }
        send({ type: event.type, object: partial(event.object, target.version) });
      }, end);
    },
  };
}
