// The columns kube-apiserver's built-in printers (pkg/printers/internalversion) give each kind in a
// meta.k8s.io Table, and how each row's cells are computed. The server prints wide: every column,
// priority 1 included; kubectl hides priority-1 columns unless asked for `-o wide`.

/** A column of a Table (`metav1.TableColumnDefinition`). */
export interface TableColumnDefinition {
  name: string;
  /** An OpenAPI type: `string`, `integer`, `number`, `boolean` (custom columns may say `date`). */
  type: string;
  /** An OpenAPI format hint; `name` marks the column that holds the object's name. */
  format: string;
  description: string;
  /** 0 for the default columns, higher for the ones `-o wide` adds. */
  priority: number;
}

/** How one kind is printed: its columns and a row's cells (one per column). */
export interface TablePrinter {
  columns: TableColumnDefinition[];
  cells(object: Record<string, unknown>, nowMs: number): unknown[];
}

type Json = Record<string, unknown>;

function record(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Json)
    : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : 0;
}

function column(
  name: string,
  type: string,
  description: string,
  priority = 0,
): TableColumnDefinition {
  return { name, type, format: '', description, priority };
}

const nameColumn: TableColumnDefinition = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace; the name of the object. Cannot be updated.',
  priority: 0,
};

const ageColumn = column(
  'Age',
  'string',
  'CreationTimestamp is the server time when this object was created, shown as the time since.',
);

/**
 * A duration as kubectl shows ages: seconds up to 2 minutes, then minutes (with seconds below 10 m),
 * hours (with minutes below 8 h), days (with hours below 8 d) and years (with days below 8 y).
 * Clocks up to a second apart count as now; further in the future is `<invalid>`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const rest = seconds % 60;
    return rest === 0 ? `${minutes}m` : `${minutes}m${rest}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const rest = minutes % 60;
    return rest === 0 ? `${hours}h` : `${hours}h${rest}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const rest = hours % 24;
    return rest === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${rest}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const years = Math.trunc(hours / 24 / 365);
    const days = Math.trunc(hours / 24) % 365;
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** The time since an RFC 3339 timestamp, as `humanDuration`; `<unknown>` when there is none. */
export function since(timestamp: unknown, nowMs: number): string {
  const parsed = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
  return Number.isNaN(parsed) ? '<unknown>' : humanDuration(nowMs - parsed);
}

function age(object: Json, nowMs: number): string {
  return since(record(object.metadata).creationTimestamp, nowMs);
}

function nameOf(object: Json): string {
  return text(record(object.metadata).name);
}

/** A label selector (`metav1.LabelSelector`) as kube prints it: `a=b,c in (d,e),!f`. */
export function labelSelectorText(selector: unknown): string {
  if (selector === undefined || selector === null) return '<none>';
  const value = record(selector);
  const parts: Array<[string, string]> = [];
  for (const [key, label] of Object.entries(record(value.matchLabels))) {
    parts.push([key, `${key}=${text(label)}`]);
  }
  for (const expression of list(value.matchExpressions)) {
    const { key, operator, values } = record(expression);
    const name = text(key);
    const sorted = list(values).map(text).sort();
    if (operator === 'In') parts.push([name, `${name} in (${sorted.join(',')})`]);
    else if (operator === 'NotIn') parts.push([name, `${name} notin (${sorted.join(',')})`]);
    else if (operator === 'Exists') parts.push([name, name]);
    else if (operator === 'DoesNotExist') parts.push([name, `!${name}`]);
  }
  // kube sorts a selector's requirements by key.
  parts.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return parts.map(([, part]) => part).join(',');
}

/** A plain label map as a selector (`app=a,tier=b`, sorted), `<none>` when empty. */
function mapSelectorText(selector: unknown): string {
  const entries = Object.entries(record(selector)).sort(([a], [b]) => (a < b ? -1 : 1));
  if (entries.length === 0) return '<none>';
  return entries.map(([key, value]) => `${key}=${text(value)}`).join(',');
}

function templateSpec(object: Json): Json {
  return record(record(record(object.spec).template).spec);
}

function containerNames(spec: Json): string {
  return list(spec.containers)
    .map((container) => text(record(container).name))
    .join(',');
}

function containerImages(spec: Json): string {
  return list(spec.containers)
    .map((container) => text(record(container).image))
    .join(',');
}

const containersColumn = column(
  'Containers',
  'string',
  'Names of each container in the template.',
  1,
);
const imagesColumn = column(
  'Images',
  'string',
  'Images referenced by each container in the template.',
  1,
);

function conditionTrue(object: Json, type: string): boolean {
  return list(record(object.status).conditions).some((condition) => {
    const value = record(condition);
    return value.type === type && value.status === 'True';
  });
}

/** Pod STATUS as kubectl shows it: init progress, a waiting or terminated reason, or the phase. */
function podStatus(pod: Json): { reason: string; ready: number; restarts: number } {
  const spec = record(pod.spec);
  const status = record(pod.status);
  let reason = text(status.reason) || text(status.phase);
  let restarts = 0;
  let ready = 0;
  const initContainers = list(spec.initContainers);
  let initializing = false;
  list(status.initContainerStatuses).some((entry, index) => {
    const container = record(entry);
    restarts += count(container.restartCount);
    const state = record(container.state);
    const terminated = state.terminated === undefined ? undefined : record(state.terminated);
    const waiting = state.waiting === undefined ? undefined : record(state.waiting);
    if (terminated !== undefined && count(terminated.exitCode) === 0) return false;
    initializing = true;
    if (terminated !== undefined) {
      reason =
        text(terminated.reason) ||
        (count(terminated.signal) !== 0
          ? `Init:Signal:${count(terminated.signal)}`
          : `Init:ExitCode:${count(terminated.exitCode)}`);
    } else if (
      waiting !== undefined &&
      text(waiting.reason) !== '' &&
      waiting.reason !== 'PodInitializing'
    ) {
      reason = `Init:${text(waiting.reason)}`;
    } else {
      reason = `Init:${index}/${initContainers.length}`;
    }
    return true;
  });
  if (!initializing || conditionTrue(pod, 'Initialized')) {
    restarts = 0;
    let running = false;
    for (const entry of [...list(status.containerStatuses)].reverse()) {
      const container = record(entry);
      restarts += count(container.restartCount);
      const state = record(container.state);
      const waiting = record(state.waiting);
      const terminated = state.terminated === undefined ? undefined : record(state.terminated);
      if (text(waiting.reason) !== '') reason = text(waiting.reason);
      else if (terminated !== undefined && text(terminated.reason) !== '') {
        reason = text(terminated.reason);
      } else if (terminated !== undefined) {
        reason =
          count(terminated.signal) !== 0
            ? `Signal:${count(terminated.signal)}`
            : `ExitCode:${count(terminated.exitCode)}`;
      } else if (container.ready === true && state.running !== undefined) {
        running = true;
        ready += 1;
      }
    }
    if (reason === 'Completed' && running) {
      reason = conditionTrue(pod, 'Ready') ? 'Running' : 'NotReady';
    }
  }
  const deleting = record(pod.metadata).deletionTimestamp !== undefined;
  if (deleting && status.reason === 'NodeLost') reason = 'Unknown';
  else if (deleting) reason = 'Terminating';
  return { reason, ready, restarts };
}

const podPrinter: TablePrinter = {
  columns: [
    nameColumn,
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    ageColumn,
    column('IP', 'string', 'IP address allocated to the pod.', 1),
    column('Node', 'string', 'The node the pod is scheduled onto.', 1),
    column('Nominated Node', 'string', 'The node a preempting pod is nominated to run on.', 1),
    column('Readiness Gates', 'string', 'How many of the pod readiness gates are met.', 1),
  ],
  cells(pod, nowMs) {
    const spec = record(pod.spec);
    const status = record(pod.status);
    const { reason, ready, restarts } = podStatus(pod);
    const gates = list(spec.readinessGates);
    let gatesCell = '<none>';
    if (gates.length > 0) {
      const met = gates.filter((gate) => conditionTrue(pod, text(record(gate).conditionType)));
      gatesCell = `${met.length}/${gates.length}`;
    }
    return [
      nameOf(pod),
      `${ready}/${list(spec.containers).length}`,
      reason,
      String(restarts),
      age(pod, nowMs),
      text(status.podIP) || '<none>',
      text(spec.nodeName) || '<none>',
      text(status.nominatedNodeName) || '<none>',
      gatesCell,
    ];
  },
};

function namedPrinter(
  columns: TableColumnDefinition[],
  cells: (object: Json, nowMs: number) => unknown[],
): TablePrinter {
  return {
    columns: [nameColumn, ...columns],
    cells: (object, nowMs) => [nameOf(object), ...cells(object, nowMs)],
  };
}

const configMapPrinter = namedPrinter(
  [column('Data', 'string', 'The number of keys in data and binaryData.'), ageColumn],
  (object, nowMs) => [
    Object.keys(record(object.data)).length + Object.keys(record(object.binaryData)).length,
    age(object, nowMs),
  ],
);

const secretPrinter = namedPrinter(
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

const serviceAccountPrinter = namedPrinter(
  [
    column('Secrets', 'string', 'The number of secrets listed for this service account.'),
    ageColumn,
  ],
  (object, nowMs) => [list(object.secrets).length, age(object, nowMs)],
);

const namespacePrinter = namedPrinter(
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

const servicePrinter = namedPrinter(
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

const deploymentPrinter = namedPrinter(
  [
    column('Ready', 'string', 'The number of ready pods out of the desired number.'),
    column('Up-to-date', 'integer', 'The number of pods running the current template.'),
    column('Available', 'integer', 'The number of available pods.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    column('Selector', 'string', 'The label selector of the pods.', 1),
  ],
  (object, nowMs) => {
    const spec = record(object.spec);
    const status = record(object.status);
    return [
      `${count(status.readyReplicas)}/${count(spec.replicas)}`,
      count(status.updatedReplicas),
      count(status.availableReplicas),
      age(object, nowMs),
      containerNames(templateSpec(object)),
      containerImages(templateSpec(object)),
      labelSelectorText(spec.selector),
    ];
  },
);

const replicaSetPrinter = namedPrinter(
  [
    column('Desired', 'integer', 'The number of desired replicas.'),
    column('Current', 'integer', 'The number of replicas observed.'),
    column('Ready', 'integer', 'The number of ready replicas.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    column('Selector', 'string', 'The label selector of the pods.', 1),
  ],
  (object, nowMs) => {
    const spec = record(object.spec);
    const status = record(object.status);
    return [
      count(spec.replicas),
      count(status.replicas),
      count(status.readyReplicas),
      age(object, nowMs),
      containerNames(templateSpec(object)),
      containerImages(templateSpec(object)),
      labelSelectorText(spec.selector),
    ];
  },
);

const statefulSetPrinter = namedPrinter(
  [
    column('Ready', 'string', 'The number of ready pods out of the desired number.'),
    ageColumn,
    containersColumn,
    imagesColumn,
  ],
  (object, nowMs) => [
    `${count(record(object.status).readyReplicas)}/${count(record(object.spec).replicas)}`,
    age(object, nowMs),
    containerNames(templateSpec(object)),
    containerImages(templateSpec(object)),
  ],
);

const daemonSetPrinter = namedPrinter(
  [
    column('Desired', 'integer', 'The number of nodes that should run the daemon pod.'),
    column('Current', 'integer', 'The number of nodes running at least one daemon pod.'),
    column('Ready', 'integer', 'The number of nodes whose daemon pod is ready.'),
    column('Up-to-date', 'integer', 'The number of nodes running the updated daemon pod.'),
    column('Available', 'integer', 'The number of nodes whose daemon pod is available.'),
    column('Node Selector', 'string', 'The node selector of the pod template.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    column('Selector', 'string', 'The label selector of the pods.', 1),
  ],
  (object, nowMs) => {
    const status = record(object.status);
    return [
      count(status.desiredNumberScheduled),
      count(status.currentNumberScheduled),
      count(status.numberReady),
      count(status.updatedNumberScheduled),
      count(status.numberAvailable),
      mapSelectorText(templateSpec(object).nodeSelector),
      age(object, nowMs),
      containerNames(templateSpec(object)),
      containerImages(templateSpec(object)),
      labelSelectorText(record(object.spec).selector),
    ];
  },
);

function jobStatus(job: Json): string {
  for (const type of ['Failed', 'Complete', 'Suspended', 'FailureTarget', 'SuccessCriteriaMet']) {
    if (conditionTrue(job, type)) return type;
  }
  return record(job.metadata).deletionTimestamp === undefined ? 'Running' : 'Terminating';
}

function jobCompletions(job: Json): string {
  const spec = record(job.spec);
  const succeeded = count(record(job.status).succeeded);
  if (spec.completions !== undefined && spec.completions !== null) {
    return `${succeeded}/${count(spec.completions)}`;
  }
  const parallelism = spec.parallelism === undefined ? 0 : count(spec.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: Json, nowMs: number): string {
  const status = record(job.status);
  const start = typeof status.startTime === 'string' ? Date.parse(status.startTime) : Number.NaN;
  if (Number.isNaN(start)) return '';
  const end = typeof status.completionTime === 'string' ? Date.parse(status.completionTime) : nowMs;
  return humanDuration(end - start);
}

const jobPrinter = namedPrinter(
  [
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', 'The number of pods which reached phase Succeeded.'),
    column('Duration', 'string', 'Time required to complete the job.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    column('Selector', 'string', 'The label selector of the pods.', 1),
  ],
  (job, nowMs) => [
    jobStatus(job),
    jobCompletions(job),
    jobDuration(job, nowMs),
    age(job, nowMs),
    containerNames(record(record(record(job.spec).template).spec)),
    containerImages(record(record(record(job.spec).template).spec)),
    labelSelectorText(record(job.spec).selector),
  ],
);

const cronJobPrinter = namedPrinter(
  [
    column('Schedule', 'string', 'The schedule in Cron format.'),
    column('Timezone', 'string', 'The time zone of the schedule.'),
    column('Suspend', 'boolean', 'Whether later executions are suspended.'),
    column('Active', 'integer', 'The number of running jobs.'),
    column('Last Schedule', 'string', 'When a job was last scheduled.'),
    ageColumn,
    containersColumn,
    imagesColumn,
    column('Selector', 'string', 'The label selector of the jobs pods.', 1),
  ],
  (object, nowMs) => {
    const spec = record(object.spec);
    const status = record(object.status);
    const jobSpec = record(record(spec.jobTemplate).spec);
    const podSpec = record(record(jobSpec.template).spec);
    return [
      text(spec.schedule),
      text(spec.timeZone) || '<none>',
      spec.suspend === true,
      list(status.active).length,
      status.lastScheduleTime === undefined ? '<none>' : since(status.lastScheduleTime, nowMs),
      age(object, nowMs),
      containerNames(podSpec),
      containerImages(podSpec),
      labelSelectorText(jobSpec.selector),
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

function eventPrinter(modern: boolean): TablePrinter {
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

const leasePrinter = namedPrinter(
  [column('Holder', 'string', 'The identity of the holder of the lease.'), ageColumn],
  (object, nowMs) => [text(record(object.spec).holderIdentity), age(object, nowMs)],
);

/** RBAC roles print their creation time as an RFC 3339 text. */
const rolePrinter = namedPrinter(
  [column('Created At', 'string', 'When the object was created, in RFC 3339.')],
  (object) => [text(record(object.metadata).creationTimestamp)],
);

function bindingPrinter(): TablePrinter {
  return namedPrinter(
    [
      column('Role', 'string', 'The role the binding grants.'),
      ageColumn,
      column('Users', 'string', 'Users in the binding.', 1),
      column('Groups', 'string', 'Groups in the binding.', 1),
      column('ServiceAccounts', 'string', 'ServiceAccounts in the binding.', 1),
    ],
    (binding, nowMs) => {
      const roleRef = record(binding.roleRef);
      const subjects = list(binding.subjects).map(record);
      const of = (kind: string): string =>
        subjects
          .filter((subject) => subject.kind === kind)
          .map((subject) =>
            kind === 'ServiceAccount'
              ? `${text(subject.namespace)}/${text(subject.name)}`
              : text(subject.name),
          )
          .join(', ');
      return [
        `${text(roleRef.kind)}/${text(roleRef.name)}`,
        age(binding, nowMs),
        of('User'),
        of('Group'),
        of('ServiceAccount'),
      ];
    },
  );
}

const ingressPrinter = namedPrinter(
  [
    column('Class', 'string', 'The name of the IngressClass cluster resource.'),
    column(
      'Hosts',
      'string',
      'Hosts that incoming requests are matched against before the ingress rule',
    ),
    column(
      'Address',
      'string',
      'Address is a list containing ingress points for the load-balancer',
    ),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    ageColumn,
  ],
  (ingress, nowMs) => {
    const spec = record(ingress.spec);
    const hosts = list(spec.rules)
      .map((rule) => text(record(rule).host))
      .filter((host) => host !== '');
    let hostsCell = hosts.length === 0 ? '*' : hosts.slice(0, 4).join(',');
    if (hosts.length > 4)
      hostsCell = `${hosts.slice(0, 3).join(',')} + ${hosts.length - 3} more...`;
    const addresses = list(record(record(ingress.status).loadBalancer).ingress)
      .map((entry) => text(record(entry).ip) || text(record(entry).hostname))
      .join(',');
    return [
      text(spec.ingressClassName) || '<none>',
      hostsCell,
      addresses,
      list(spec.tls).length > 0 ? '80, 443' : '80',
      age(ingress, nowMs),
    ];
  },
);

function intOrString(value: unknown): string {
  return value === undefined || value === null ? 'N/A' : String(value);
}

const podDisruptionBudgetPrinter = namedPrinter(
  [
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column(
      'Allowed Disruptions',
      'integer',
      'Calculated number of pods that may be disrupted at this time.',
    ),
    ageColumn,
  ],
  (object, nowMs) => {
    const spec = record(object.spec);
    return [
      intOrString(spec.minAvailable),
      intOrString(spec.maxUnavailable),
      count(record(object.status).disruptionsAllowed),
      age(object, nowMs),
    ];
  },
);

const priorityClassPrinter = namedPrinter(
  [
    column('Value', 'integer', 'The priority of pods of this class.'),
    column('Global-Default', 'boolean', 'Whether this class is the default for pods without one.'),
    column('Preemption Policy', 'string', 'Whether pods of this class preempt others.'),
    ageColumn,
  ],
  (object, nowMs) => [
    count(object.value),
    object.globalDefault === true,
    text(object.preemptionPolicy) || 'PreemptLowerPriority',
    age(object, nowMs),
  ],
);

const resourceQuotaPrinter = namedPrinter(
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

const printers = new Map<string, TablePrinter>([
  ['/pods', podPrinter],
  ['/configmaps', configMapPrinter],
  ['/secrets', secretPrinter],
  ['/serviceaccounts', serviceAccountPrinter],
  ['/namespaces', namespacePrinter],
  ['/services', servicePrinter],
  ['/events', eventPrinter(false)],
  ['/resourcequotas', resourceQuotaPrinter],
  ['events.k8s.io/events', eventPrinter(true)],
  ['apps/deployments', deploymentPrinter],
  ['apps/replicasets', replicaSetPrinter],
  ['apps/statefulsets', statefulSetPrinter],
  ['apps/daemonsets', daemonSetPrinter],
  ['batch/jobs', jobPrinter],
  ['batch/cronjobs', cronJobPrinter],
  ['coordination.k8s.io/leases', leasePrinter],
  ['rbac.authorization.k8s.io/roles', rolePrinter],
  ['rbac.authorization.k8s.io/clusterroles', rolePrinter],
  ['rbac.authorization.k8s.io/rolebindings', bindingPrinter()],
  ['rbac.authorization.k8s.io/clusterrolebindings', bindingPrinter()],
  ['networking.k8s.io/ingresses', ingressPrinter],
  ['policy/poddisruptionbudgets', podDisruptionBudgetPrinter],
  ['scheduling.k8s.io/priorityclasses', priorityClassPrinter],
]);

/** The printer kube-apiserver has for a built-in `group`/`resource`, or undefined (default columns). */
export function builtinPrinter(group: string, resource: string): TablePrinter | undefined {
  return printers.get(`${group}/${resource}`);
}

/** kube's columns for a kind without a printer: `Name` and `Created At` (RFC 3339 text). */
export const defaultPrinter: TablePrinter = {
  columns: [
    nameColumn,
    {
      name: 'Created At',
      type: 'date',
      format: '',
      description: 'CreationTimestamp is the server time when this object was created.',
      priority: 0,
    },
  ],
  cells: (object) => [nameOf(object), text(record(object.metadata).creationTimestamp)],
};

/** The Name column every printer starts with (CRD tables too). */
export const nameColumnDefinition: TableColumnDefinition = nameColumn;
