// apps/v1 workloads and batch Jobs: the zero status each sets on create, Deployment defaults, and the
// selector rules every apps/v1 workload shares.
import { canonical, isRecord, metaOf } from '../objects.ts';
import { type LabelRequirement, matchesLabelSelector } from '../selectors.ts';
import type { KubeObject } from '../storage.ts';
import { builtinStrategy, type Cause, type Strategy } from './strategy.ts';

/** A workload whose create sets `status` to what Go serializes for its zero status. */
function withZeroStatus(status: () => Record<string, unknown>, apps: boolean): Strategy {
  return {
    ...builtinStrategy,
    prepareForCreate(context, info, object) {
      builtinStrategy.prepareForCreate(context, info, object);
      object.status = status();
    },
    ...(apps ? { validate: (_context, _info, object) => validateWorkloadSelector(object) } : {}),
  };
}

const deploymentStrategy: Strategy = {
  ...builtinStrategy,
  prepareForCreate(context, info, object) {
    builtinStrategy.prepareForCreate(context, info, object);
    const spec = isRecord(object.spec) ? object.spec : {};
    object.spec = spec;
    if (spec.replicas === undefined) spec.replicas = 1;
    if (spec.revisionHistoryLimit === undefined) spec.revisionHistoryLimit = 10;
    if (spec.progressDeadlineSeconds === undefined) spec.progressDeadlineSeconds = 600;
    // SetDefaults_Deployment defaults field by field: a protobuf body carries an empty strategy.
    const strategy = isRecord(spec.strategy) ? spec.strategy : {};
    spec.strategy = strategy;
    if (strategy.type === undefined || strategy.type === '') strategy.type = 'RollingUpdate';
    if (strategy.type === 'RollingUpdate') {
      const rollingUpdate = isRecord(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
      strategy.rollingUpdate = rollingUpdate;
      if (rollingUpdate.maxUnavailable === undefined) rollingUpdate.maxUnavailable = '25%';
      if (rollingUpdate.maxSurge === undefined) rollingUpdate.maxSurge = '25%';
    }
    object.status = {};
  },
  validate: (_context, _info, object) => validateWorkloadSelector(object),
  // Deployments also bump generation on annotation changes (they are copied to ReplicaSets).
  bumpsGeneration: (existing, next) =>
    canonical(metaOf(existing).annotations ?? {}) !== canonical(metaOf(next).annotations ?? {}),
};

/** Workload strategies by `group/resource`. */
export const workloadStrategies: Record<string, Strategy> = {
  'apps/deployments': deploymentStrategy,
  'apps/replicasets': withZeroStatus(() => ({ replicas: 0 }), true),
  'apps/statefulsets': withZeroStatus(() => ({ replicas: 0, availableReplicas: 0 }), true),
  'apps/daemonsets': withZeroStatus(
    () => ({
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    }),
    true,
  ),
  'batch/jobs': withZeroStatus(() => ({}), false),
};

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
