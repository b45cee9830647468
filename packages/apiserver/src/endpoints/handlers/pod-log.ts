// GET /api/v1/namespaces/{namespace}/pods/{name}/log without a kubelet: what kube-apiserver answers a
// client before it would connect to one (pkg/registry/core/pod/rest/log.go, LogLocation). The options are
// decoded and validated first, then the pod and its container are looked up; an unscheduled pod has no
// log to stream, which kube answers 204 No Content.

import { isRecord, type Json, stringOf } from '../../apimachinery/objects.ts';
import { integerOptions } from '../../apimachinery/query-integers.ts';
import { badRequest, invalid, notFound } from '../../apimachinery/status.ts';
import type { ApiResult, ServerContext } from '../../registry/server-context.ts';
import type { ResourceRequestInfo } from '../../request/request-info.ts';
import { storageKey } from '../../resources/builtin-resources.ts';

type Cause = { type: string; message: string; field: string };

/** Answer a pod's log: kube's 400, 422 and 404 in its words, 204 where a kubelet would stream it. */
export function podLog(context: ServerContext, request: ResourceRequestInfo): ApiResult {
  const name = request.name ?? '';
  const query = request.query;
  // PodLogOptions' integer fields, in their order.
  const numbers = integerOptions(query, ['sinceSeconds', 'tailLines', 'limitBytes']);
  const causes = optionCauses(query, numbers);
  if (causes.length > 0) invalidOptions(name, causes);
  const pod = context.store.get(storageKey(request.info), request.namespace ?? '', name);
  if (pod === undefined) throw notFound(request.info, name);
  const spec = isRecord(pod.spec) ? pod.spec : {};
  requireContainer(name, spec, query.get('container') ?? '');
  const nodeName = stringOf(spec.nodeName) ?? '';
  if (
    nodeName !== '' &&
    !context.store.has(storageKey({ group: '', resource: 'nodes' }), '', nodeName)
  ) {
    throw notFound({ group: '', resource: 'nodes' }, nodeName);
  }
  // No kubelet serves the log: an empty answer, as for a pod no node has taken yet.
  return { type: 'raw', code: 204, contentType: '', headers: {}, body: '' };
}

function optionCauses(query: URLSearchParams, numbers: Map<string, number | undefined>): Cause[] {
  const causes: Cause[] = [];
  const tailLines = numbers.get('tailLines');
  if (tailLines !== undefined && tailLines < 0) {
    causes.push(invalidCause('tailLines', tailLines, 'must be greater than or equal to 0'));
  }
  const limitBytes = numbers.get('limitBytes');
  if (limitBytes !== undefined && limitBytes < 1) {
    causes.push(invalidCause('limitBytes', limitBytes, 'must be greater than 0'));
  }
  const sinceSeconds = numbers.get('sinceSeconds');
  if (sinceSeconds !== undefined && query.get('sinceTime') !== null) {
    causes.push({
      type: 'FieldValueForbidden',
      message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified',
      field: '[]',
    });
  }
  if (sinceSeconds !== undefined && sinceSeconds < 1) {
    causes.push(invalidCause('sinceSeconds', sinceSeconds, 'must be greater than 0'));
  }
  return causes;
}

function invalidCause(field: string, value: number, detail: string): Cause {
  return { type: 'FieldValueInvalid', message: `Invalid value: ${value}: ${detail}`, field };
}

function invalidOptions(name: string, causes: Cause[]): never {
  throw invalid({ group: '', kind: 'PodLogOptions' }, name, causes);
}

/** The container the log is of: the named one, or the only one; kube's 400 otherwise. */
function requireContainer(pod: string, spec: Json, container: string): void {
  const names = (key: string): string[] =>
    (Array.isArray(spec[key]) ? spec[key] : [])
      .map((entry: unknown) => (isRecord(entry) ? (stringOf(entry.name) ?? '') : ''))
      .filter((entry: string) => entry !== '');
  const containers = names('containers');
  const init = names('initContainers');
  const ephemeral = names('ephemeralContainers');
  if (container !== '') {
    if (![...containers, ...init, ...ephemeral].includes(container)) {
      throw badRequest(`container ${container} is not valid for pod ${pod}`);
    }
    return;
  }
  if (containers.length === 1) return;
  let message = `a container name must be specified for pod ${pod}, choose one of: [${containers.join(' ')}]`;
  if (init.length > 0) message += ` or one of the init containers: [${init.join(' ')}]`;
  if (ephemeral.length > 0)
    message += ` or one of the ephemeral containers: [${ephemeral.join(' ')}]`;
  throw badRequest(message);
}
