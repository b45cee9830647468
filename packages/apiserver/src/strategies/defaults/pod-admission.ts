// The mutating admission plugins kube-apiserver enables by default that change a Pod on create besides
// ServiceAccount: DefaultTolerationSeconds and Priority.

import { isRecord, type Json, metaOf, stringOf } from '../../apimachinery/objects.ts';
import { failure, StatusError } from '../../apimachinery/status.ts';
import type { ServerContext } from '../../registry/server-context.ts';

/** How long a Pod stays bound to a node that turned not-ready or unreachable (--default-*-toleration-seconds). */
const defaultTolerationSeconds = 300;

/**
 * DefaultTolerationSeconds: a Pod that does not tolerate the not-ready and unreachable NoExecute taints
 * tolerates each for 300 s.
 */
export function addDefaultTolerations(spec: Json): void {
  const tolerations = Array.isArray(spec.tolerations) ? [...spec.tolerations] : [];
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    const tolerated = tolerations.some(
      (toleration) =>
        isRecord(toleration) &&
        (toleration.key === key || (toleration.key ?? '') === '') &&
        (toleration.effect === 'NoExecute' || (toleration.effect ?? '') === ''),
    );
    if (!tolerated) {
      tolerations.push({
        key,
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: defaultTolerationSeconds,
      });
    }
  }
  spec.tolerations = tolerations;
}

/** The classes kube-apiserver creates at startup, in case the store does not hold them. */
const systemClasses: Record<string, number> = {
  'system-node-critical': 2_000_001_000,
  'system-cluster-critical': 2_000_000_000,
};

/**
 * Priority admission: a Pod's priority (and preemption policy) comes from its PriorityClass, from the
 * global default class when it names none, else 0; a Pod may not state other values itself.
 */
export function admitPriority(context: ServerContext, pod: Json, spec: Json): void {
  const podName = stringOf(metaOf(pod).name) ?? '';
  const forbidden = (message: string): StatusError =>
    new StatusError(
      failure(403, 'Forbidden', `pods "${podName}" is forbidden: ${message}`, {
        name: podName,
        kind: 'pods',
      }),
    );
  const className = stringOf(spec.priorityClassName) ?? '';
  let priority = 0;
  let policy = 'PreemptLowerPriority';
  const classes = context.store.list('scheduling.k8s.io/priorityclasses', undefined);
  if (className === '') {
    const global = classes.find((item) => item.globalDefault === true);
    if (global !== undefined) {
      spec.priorityClassName = stringOf(metaOf(global).name) ?? '';
      priority = Number(global.value ?? 0);
      policy = stringOf(global.preemptionPolicy) ?? policy;
    }
  } else {
    const found = classes.find((item) => metaOf(item).name === className);
    if (found !== undefined) {
      priority = Number(found.value ?? 0);
      policy = stringOf(found.preemptionPolicy) ?? policy;
    } else if (systemClasses[className] !== undefined) {
      priority = systemClasses[className];
    } else {
      throw forbidden(`no PriorityClass with name ${className} was found`);
    }
  }
  if (typeof spec.priority === 'number' && spec.priority !== priority) {
    throw forbidden(
      `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
    );
  }
  spec.priority = priority;
  if (typeof spec.preemptionPolicy === 'string' && spec.preemptionPolicy !== policy) {
    throw forbidden(
      `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`,
    );
  }
  spec.preemptionPolicy = policy;
}
