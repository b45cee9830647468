// Printers of the apps/v1 and batch/v1 workloads.
import {
  age,
  ageColumn,
  column,
  conditionTrue,
  containerImages,
  containerNames,
  containersColumn,
  count,
  humanDuration,
  imagesColumn,
  type Json,
  labelSelectorText,
  list,
  mapSelectorText,
  namedPrinter,
  record,
  since,
  templateSpec,
  text,
} from './cells.ts';

/** kube-apiserver's printer for Deployments. */
export const deploymentPrinter = namedPrinter(
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

/** kube-apiserver's printer for ReplicaSets. */
export const replicaSetPrinter = namedPrinter(
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

/** kube-apiserver's printer for StatefulSets. */
export const statefulSetPrinter = namedPrinter(
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

/** kube-apiserver's printer for DaemonSets. */
export const daemonSetPrinter = namedPrinter(
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

/** kube-apiserver's printer for Jobs. */
export const jobPrinter = namedPrinter(
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

/** kube-apiserver's printer for CronJobs. */
export const cronJobPrinter = namedPrinter(
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
