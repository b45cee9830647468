// Printers of the core/v1 kinds other than Pods, and of Events in both their API groups.
import {
  age,
  ageColumn,
  column,
  count,
  type Json,
  list,
  mapSelectorText,
  nameColumn,
  namedPrinter,
  nameOf,
  record,
  since,
  type TablePrinter,
  text,
} from './cells.ts';

/** kube-apiserver's printer for ConfigMaps. */
export const configMapPrinter = namedPrinter(
  [column('Data', 'string', 'The number of keys in data and binaryData.'), ageColumn],
  (object, nowMs) => [
    Object.keys(record(object.data)).length + Object.keys(record(object.binaryData)).length,
    age(object, nowMs),
  ],
);

/** kube-apiserver's printer for Secrets. */
export const secretPrinter = namedPrinter(
  [
    column('Type', 'string', 'The type of the secret.'),
    column('Data', 'string', 'The number of keys in data.'),
    ageColumn,
  ],
  (object, nowMs) => [
    text(object.type),
    Object.keys(record(object.data)).length,
    age(object, nowMs),
  ],
);

/** kube-apiserver's printer for ServiceAccounts. */
export const serviceAccountPrinter = namedPrinter(
  [
    column('Secrets', 'string', 'The number of secrets listed for this service account.'),
    ageColumn,
  ],
  (object, nowMs) => [list(object.secrets).length, age(object, nowMs)],
);

/** kube-apiserver's printer for Namespaces. */
export const namespacePrinter = namedPrinter(
  [column('Status', 'string', 'The status of the namespace'), ageColumn],
  (object, nowMs) => [text(record(object.status).phase), age(object, nowMs)],
);

function servicePorts(spec: Json): string {
  const ports = list(spec.ports).map((entry) => {
    const port = record(entry);
    const protocol = text(port.protocol) || 'TCP';
    return port.nodePort === undefined || port.nodePort === 0
      ? `${count(port.port)}/${protocol}`
      : `${count(port.port)}:${count(port.nodePort)}/${protocol}`;
  });
  return ports.length === 0 ? '<none>' : ports.join(',');
}

function serviceExternalIp(service: Json): string {
  const spec = record(service.spec);
  const external = list(spec.externalIPs).map(text);
  switch (spec.type) {
    case 'ExternalName':
      return text(spec.externalName);
    case 'LoadBalancer': {
      const ingress = list(record(record(service.status).loadBalancer).ingress).map((entry) => {
        const point = record(entry);
        return text(point.ip) || text(point.hostname);
      });
      const all = [...ingress, ...external].filter((address) => address !== '');
      if (all.length === 0) return '<pending>';
      const joined = all.join(',');
      // kube keeps the column at most 16 characters wide.
      return joined.length > 16 ? `${joined.slice(0, 13)}...` : joined;
    }
    default:
      return external.length === 0 ? '<none>' : external.join(',');
  }
}

/** kube-apiserver's printer for Services. */
export const servicePrinter = namedPrinter(
  [
    column('Type', 'string', 'How the service is exposed.'),
    column('Cluster-IP', 'string', 'The IP address of the service inside the cluster.'),
    column(
      'External-IP',
      'string',
      'Addresses the service is reachable at from outside the cluster.',
    ),
    column('Port(s)', 'string', 'The ports the service exposes.'),
    ageColumn,
    column('Selector', 'string', 'The labels of the pods the service routes to.', 1),
  ],
  (service, nowMs) => {
    const spec = record(service.spec);
    return [
      text(spec.type) || 'ClusterIP',
      text(spec.clusterIP) || '<none>',
      serviceExternalIp(service),
      servicePorts(spec),
      age(service, nowMs),
      mapSelectorText(spec.selector),
    ];
  },
);

/** Core and events.k8s.io Events print alike; the latter's fields are read under their new names. */
function eventCells(event: Json, nowMs: number, modern: boolean): unknown[] {
  const involved = record(modern ? event.regarding : event.involvedObject);
  const source = record(modern ? event.deprecatedSource : event.source);
  const firstTimestamp = modern ? event.deprecatedFirstTimestamp : event.firstTimestamp;
  const lastTimestamp = modern ? event.deprecatedLastTimestamp : event.lastTimestamp;
  let first = since(firstTimestamp, nowMs);
  if (firstTimestamp === undefined || firstTimestamp === null)
    first = since(event.eventTime, nowMs);
  let last =
    lastTimestamp === undefined || lastTimestamp === null ? first : since(lastTimestamp, nowMs);
  let total = count(modern ? event.deprecatedCount : event.count);
  const series =
    event.series === undefined || event.series === null ? undefined : record(event.series);
  if (series !== undefined) {
    last = since(series.lastObservedTime, nowMs);
    total = count(series.count);
  } else if (total === 0) {
    total = 1;
  }
  const kind = text(involved.kind).toLowerCase();
  const target = text(involved.name) === '' ? kind : `${kind}/${text(involved.name)}`;
  let origin = text(source.component);
  if (origin === '') {
    origin = [text(event.reportingController), text(event.reportingInstance)]
      .filter((part) => part !== '')
      .join(', ');
  } else if (text(source.host) !== '') {
    origin = `${origin}, ${text(source.host)}`;
  }
  return [
    last,
    text(event.type),
    text(event.reason),
    target,
    text(involved.fieldPath),
    origin,
    text(modern ? event.note : event.message).trim(),
    first,
    total,
    nameOf(event),
  ];
}

/** kube-apiserver's printer for Events (core/v1 and events.k8s.io/v1). */
export function eventPrinter(modern: boolean): TablePrinter {
  return {
    columns: [
      column(
        'Last Seen',
        'string',
        'The time at which the most recent occurrence of this event was recorded.',
      ),
      column('Type', 'string', 'Type of this event (Normal, Warning).'),
      column('Reason', 'string', 'Why the event happened, short and machine-readable.'),
      column('Object', 'string', 'The object that this event is about.'),
      column('Subobject', 'string', 'The part of the object the event is about.', 1),
      column('Source', 'string', 'The component reporting this event.', 1),
      column('Message', 'string', 'A human-readable description of the event.'),
      column('First Seen', 'string', 'The time at which the event was first recorded.', 1),
      column('Count', 'string', 'The number of times this event has occurred.', 1),
      { ...nameColumn, priority: 1 },
    ],
    cells: (event, nowMs) => eventCells(event, nowMs, modern),
  };
}

/** kube-apiserver's printer for ResourceQuotas. */
export const resourceQuotaPrinter = namedPrinter(
  [
    ageColumn,
    column(
      'Request',
      'string',
      'Request represents a minimum amount of cpu/memory that a container may consume.',
    ),
    column(
      'Limit',
      'string',
      'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
    ),
  ],
  (quota, nowMs) => {
    const status = record(quota.status);
    const hard = record(status.hard);
    const used = record(status.used);
    const requests: string[] = [];
    const limits: string[] = [];
    for (const resource of Object.keys(hard).sort()) {
      const entry = `${resource}: ${String(used[resource] ?? '0')}/${String(hard[resource])}`;
      if (resource.startsWith('limits.')) limits.push(entry);
      else requests.push(entry);
    }
    return [age(quota, nowMs), requests.join(', '), limits.join(', ')];
  },
);
