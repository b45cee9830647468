// apps/v1 workloads and batch Jobs and CronJobs: their defaults (and their pod templates'), the zero
// status each sets on create, a Job's generated selector, and the selector rules every apps/v1 workload
// shares.
import { canonical, isRecord, type Json, metaOf, stringOf } from '../apimachinery/objects.ts';
import { type LabelRequirement, matchesLabelSelector } from '../apimachinery/selectors.ts';
import type { Cause, Strategy } from '../registry/strategy.ts';
import type { KubeObject } from '../storage/store.ts';
import { builtinStrategy } from './builtin-strategy.ts';
import { defaultPodTemplate } from './defaults/pod-spec.ts';
import { defaultClaimSpec } from './defaults/volumes.ts';

/** How a kind defaults its spec (pod template included), as its SetDefaults_* function does. */
type Defaulter = (spec: Json, object: KubeObject) => void;

/**
 * A workload: the kind's defaults on every write (the scheme defaults whatever it decodes), the zero
 * status Go serializes on create, and apps/v1's selector rules.
 */
function workload(options: {
  defaults: Defaulter;
  status: () => Json;
  apps: boolean;
  extra?: Partial<Strategy>;
}): Strategy {
  return {
    ...builtinStrategy,
    canonicalize(context, info, object) {
      builtinStrategy.canonicalize.call(this, context, info, object);
      if (!isRecord(object.spec)) object.spec = {};
      options.defaults(object.spec as Json, object);
    },
    prepareForCreate(context, info, object) {
      builtinStrategy.prepareForCreate(context, info, object);
      object.status = options.status();
    },
    ...(options.apps
      ? {
          validate: (_context, _info, object) => [
            ...validateCounts(object),
            ...validateWorkloadSelector(object),
          ],
        }
      : {}),
    ...options.extra,
  };
}

/** A record-valued field of `parent`, created empty when absent. */
function child(parent: Json, key: string): Json {
  if (!isRecord(parent[key])) parent[key] = {};
  return parent[key] as Json;
}

function unset(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** SetDefaults_Deployment, field by field (a protobuf body carries an empty strategy). */
function defaultDeployment(spec: Json): void {
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  const strategy = child(spec, 'strategy');
  if (unset(strategy.type)) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate = child(strategy, 'rollingUpdate');
    rollingUpdate.maxUnavailable ??= '25%';
    rollingUpdate.maxSurge ??= '25%';
  }
  defaultPodTemplate(spec.template);
}

function defaultReplicaSet(spec: Json): void {
  spec.replicas ??= 1;
  defaultPodTemplate(spec.template);
}

/** SetDefaults_StatefulSet, and the claim templates' PersistentVolumeClaim defaults. */
function defaultStatefulSet(spec: Json): void {
  if (unset(spec.podManagementPolicy)) spec.podManagementPolicy = 'OrderedReady';
  const strategy = child(spec, 'updateStrategy');
  if (unset(strategy.type)) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate = child(strategy, 'rollingUpdate');
    rollingUpdate.partition ??= 0;
  }
  // StatefulSetAutoDeletePVC, on by default since 1.27.
  const retention = child(spec, 'persistentVolumeClaimRetentionPolicy');
  if (unset(retention.whenDeleted)) retention.whenDeleted = 'Retain';
  if (unset(retention.whenScaled)) retention.whenScaled = 'Retain';
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  if (Array.isArray(spec.volumeClaimTemplates)) {
    for (const claim of spec.volumeClaimTemplates.filter(isRecord)) {
      defaultClaimSpec(child(claim, 'spec'));
      const status = child(claim, 'status');
      if (unset(status.phase)) status.phase = 'Pending';
    }
  }
  defaultPodTemplate(spec.template);
}

/** SetDefaults_DaemonSet (maxSurge from DaemonSetUpdateSurge, on by default since 1.22). */
function defaultDaemonSet(spec: Json): void {
  const strategy = child(spec, 'updateStrategy');
  if (unset(strategy.type)) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate = child(strategy, 'rollingUpdate');
    rollingUpdate.maxUnavailable ??= 1;
    rollingUpdate.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  defaultPodTemplate(spec.template);
}

/** SetDefaults_Job: a non-parallel job runs once, six retries, and takes its template's labels. */
function defaultJob(spec: Json, object: KubeObject): void {
  if (spec.completions === undefined && spec.parallelism === undefined) spec.completions = 1;
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex === undefined ? 6 : 2_147_483_647;
  if (unset(spec.completionMode)) spec.completionMode = 'NonIndexed';
  spec.suspend ??= false;
  if (isRecord(spec.podFailurePolicy) && Array.isArray(spec.podFailurePolicy.rules)) {
    for (const rule of spec.podFailurePolicy.rules.filter(isRecord)) {
      if (!Array.isArray(rule.onPodConditions)) continue;
      for (const pattern of rule.onPodConditions.filter(isRecord)) {
        if (unset(pattern.status)) pattern.status = 'True';
      }
    }
  }
  if (unset(spec.podReplacementPolicy)) {
    spec.podReplacementPolicy =
      spec.podFailurePolicy === undefined ? 'TerminatingOrFailed' : 'Failed';
  }
  defaultPodTemplate(spec.template);
  copyTemplateLabels(spec, object);
}

/** A Job without labels of its own carries its template's. */
function copyTemplateLabels(spec: Json, object: KubeObject): void {
  const metadata = metaOf(object);
  const templateMeta = isRecord(spec.template) ? spec.template.metadata : undefined;
  const labels = isRecord(templateMeta) ? templateMeta.labels : undefined;
  if (
    (!isRecord(metadata.labels) || Object.keys(metadata.labels).length === 0) &&
    isRecord(labels)
  ) {
    metadata.labels = { ...labels };
  }
}

/**
 * The selector a Job's create generates unless it asks for a manual one (jobStrategy's
 * generateSelector): its uid, as label of the template and as the selector's only requirement.
 */
function generateJobSelector(object: KubeObject): void {
  const spec = object.spec as Json;
  if (spec.manualSelector === true) return;
  const metadata = metaOf(object);
  const uid = stringOf(metadata.uid) ?? '';
  const name = stringOf(metadata.name) ?? '';
  const template = child(spec, 'template');
  const templateMeta = child(template, 'metadata');
  templateMeta.labels = {
    ...(isRecord(templateMeta.labels) ? templateMeta.labels : {}),
    'batch.kubernetes.io/controller-uid': uid,
    'batch.kubernetes.io/job-name': name,
    'controller-uid': uid,
    'job-name': name,
  };
  if (spec.selector === undefined) {
    spec.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
  }
  copyTemplateLabels(spec, object);
}

function defaultCronJob(spec: Json): void {
  if (unset(spec.concurrencyPolicy)) spec.concurrencyPolicy = 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  const jobTemplate = child(spec, 'jobTemplate');
  defaultPodTemplate(child(jobTemplate, 'spec').template);
}

/** The annotation apps/v1 keeps a DaemonSet's template generation in (bumped when the template changes). */
const templateGeneration = 'deprecated.daemonset.template.generation';

const daemonSetExtra: Partial<Strategy> = {
  prepareForCreate(context, info, object) {
    builtinStrategy.prepareForCreate(context, info, object);
    object.status = {
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    };
    const metadata = metaOf(object);
    metadata.annotations = {
      ...(isRecord(metadata.annotations) ? metadata.annotations : {}),
      [templateGeneration]: '1',
    };
  },
  prepareForUpdate(context, info, existing, next) {
    builtinStrategy.prepareForUpdate(context, info, existing, next);
    const existingSpec = isRecord(existing.spec) ? existing.spec : {};
    const nextSpec = child(next, 'spec');
    defaultDaemonSet(nextSpec);
    const existingAnnotations = metaOf(existing).annotations;
    const previous = isRecord(existingAnnotations)
      ? Number(existingAnnotations[templateGeneration] ?? 0)
      : 0;
    const changed =
      canonical(existingSpec.template ?? null) !== canonical(nextSpec.template ?? null);
    const metadata = metaOf(next);
    metadata.annotations = {
      ...(isRecord(metadata.annotations) ? metadata.annotations : {}),
      [templateGeneration]: String(changed ? previous + 1 : previous),
    };
  },
};

/** Workload strategies by `group/resource`. */
export const workloadStrategies: Record<string, Strategy> = {
  'apps/deployments': workload({
    defaults: defaultDeployment,
    status: () => ({}),
    apps: true,
    extra: {
      // Deployments also bump generation on annotation changes (they are copied to ReplicaSets).
      bumpsGeneration: (existing, next) =>
        canonical(metaOf(existing).annotations ?? {}) !== canonical(metaOf(next).annotations ?? {}),
    },
  }),
  'apps/replicasets': workload({
    defaults: defaultReplicaSet,
    status: () => ({ replicas: 0 }),
    apps: true,
  }),
  'apps/statefulsets': workload({
    defaults: defaultStatefulSet,
    status: () => ({ replicas: 0, availableReplicas: 0 }),
    apps: true,
  }),
  'apps/daemonsets': workload({
    defaults: defaultDaemonSet,
    status: () => ({}),
    apps: true,
    extra: daemonSetExtra,
  }),
  'batch/jobs': workload({
    defaults: defaultJob,
    status: () => ({}),
    apps: false,
    extra: {
      // jobStrategy.DefaultGarbageCollectionPolicy: OrphanDependents for batch/v1.
      orphanDependentsByDefault: true,
      prepareForCreate(context, info, object) {
        builtinStrategy.prepareForCreate(context, info, object);
        object.status = {};
        generateJobSelector(object);
      },
    },
  }),
  'batch/cronjobs': workload({ defaults: defaultCronJob, status: () => ({}), apps: false }),
};

/** The counts apps/v1 validation (ValidateNonnegativeField) refuses below zero, in its order. */
const nonNegativeFields = [
  'replicas',
  'minReadySeconds',
  'revisionHistoryLimit',
  'progressDeadlineSeconds',
];

function validateCounts(object: KubeObject): Cause[] {
  const spec = isRecord(object.spec) ? object.spec : {};
  return nonNegativeFields
    .filter((field) => typeof spec[field] === 'number' && (spec[field] as number) < 0)
    .map((field) => ({
      type: 'FieldValueInvalid',
      message: `Invalid value: ${String(spec[field])}: must be greater than or equal to 0`,
      field: `spec.${field}`,
    }));
}

/** Go's %#v of a map[string]string, as field.Invalid prints it in kube-apiserver 1.30. */
function goStringMap(value: unknown): string {
  if (!isRecord(value)) return 'map[string]string(nil)';
  const entries = Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${JSON.stringify(String(value[key]))}`);
  return `map[string]string{${entries.join(', ')}}`;
}

/**
 * The selector rules every apps/v1 workload shares (ValidateDeploymentSpec and its ReplicaSet,
 * StatefulSet and DaemonSet siblings): a selector is required and must match the template labels.
 */
function validateWorkloadSelector(object: KubeObject): Cause[] {
  const spec = isRecord(object.spec) ? object.spec : {};
  const selector = spec.selector;
  if (!isRecord(selector)) {
    return [{ type: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' }];
  }
  const requirements: LabelRequirement[] = [];
  if (isRecord(selector.matchLabels)) {
    for (const [key, value] of Object.entries(selector.matchLabels)) {
      requirements.push({ key, operator: '=', values: [String(value)] });
    }
  }
  const operators: Record<string, LabelRequirement['operator']> = {
    In: 'in',
    NotIn: 'notin',
    Exists: 'exists',
    DoesNotExist: '!',
  };
  for (const expression of Array.isArray(selector.matchExpressions)
    ? selector.matchExpressions
    : []) {
    if (!isRecord(expression)) continue;
    const operator = operators[String(expression.operator)];
    if (operator === undefined) return []; // the selector itself is invalid; other checks report it
    requirements.push({
      key: String(expression.key),
      operator,
      values: Array.isArray(expression.values) ? expression.values.map(String) : [],
    });
  }
  if (requirements.length === 0) return []; // an empty selector has its own message in kube
  const template = isRecord(spec.template) ? spec.template : {};
  const templateMeta = isRecord(template.metadata) ? template.metadata : {};
  const labels = isRecord(templateMeta.labels) ? templateMeta.labels : undefined;
  const asStrings =
    labels === undefined
      ? undefined
      : Object.fromEntries(Object.entries(labels).map(([key, value]) => [key, String(value)]));
  if (matchesLabelSelector(requirements, asStrings)) return [];
  return [
    {
      type: 'FieldValueInvalid',
      message: `Invalid value: ${goStringMap(labels)}: \`selector\` does not match template \`labels\``,
      field: 'spec.template.metadata.labels',
    },
  ];
}
