// The Icecream reconciler: one Deployment per Icecream, owned by it, kept at the spec; status copied back from
// the Deployment and its Pods; failures reported in the Ready condition. Pure logic over injected clients and
// listers, so tests drive it directly; every client call carries the reconcile's signal.
import { type Client, isInvalid, isNotFound } from '@lasso/client';
import {
  AlreadyOwnedError,
  type CreateOrUpdateClient,
  createOrUpdate,
  type EventRecorder,
  isControlledBy,
  type Lister,
  type ReconcileContext,
  type SharedHandlerResult,
  setControllerReference,
} from '@lasso/controller';
import { type Clock, errorMessage, type Logger, systemClock } from '@lasso/core';
import type { Deployment, DeploymentSpec } from 'kubernetes-types/apps/v1.js';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import type {
  IcecreamStatusConditionsItem as Condition,
  Icecream,
  IcecreamStatus,
} from './generated/index.ts';
import { icecreamLabel, icecreamLabelValue } from './icecream.ts';
import { deploymentNameProblem, specProblems } from './spec-validation.ts';

/** The writes the reconciler makes: `Client<Deployment>` and `Client<Icecream>` fit. */
export interface ReconcilerClients {
  deployments: CreateOrUpdateClient<Deployment> & Pick<Client<Deployment>, 'delete'>;
  icecreams: Pick<Client<Icecream>, 'updateStatus'>;
}

/** What the reconciler reads: the controllers' caches (never the API, but to confirm a cleanup). */
export interface ReconcilerCaches {
  deployments: Pick<Lister<Deployment>, 'get'>;
  /** Pods indexed by {@link podsByIcecreamIndex}. */
  pods: Pick<Lister<Pod>, 'byIndex'>;
}

/** Index of Pods (and of Icecreams) by `namespace/<value of the Icecream label>`. */
export const podsByIcecreamIndex = 'byIcecream';

/** Index function of {@link podsByIcecreamIndex} over Pods: their Icecream label. */
export function podIcecreamKeys(pod: Pod): string[] {
  const value = pod.metadata?.labels?.[icecreamLabel];
  return value ? [`${pod.metadata?.namespace ?? ''}/${value}`] : [];
}

/**
 * Index function of {@link podsByIcecreamIndex} over Icecreams: the key their Pods are indexed by. A label value
 * is not always the name (see `icecreamLabelValue`), so a Pod finds its Icecream through this index.
 */
export function icecreamLabelKeys(icecream: Icecream): string[] {
  const name = icecream.metadata?.name;
  return name ? [`${icecream.metadata?.namespace ?? ''}/${icecreamLabelValue(name)}`] : [];
}

/** The image every scoop runs; the flavour goes in as an environment variable. */
export const scoopImage = 'registry.k8s.io/pause:3.10';

/** The field manager of the operator's Deployment writes. */
export const fieldManager = 'icecream-operator';

function ownLabels(icecream: Icecream): Record<string, string> {
  return {
    [icecreamLabel]: icecreamLabelValue(icecream.metadata?.name ?? ''),
    'app.kubernetes.io/managed-by': 'icecream-operator',
  };
}

function scoop(icecream: Icecream): Container {
  return {
    name: 'scoop',
    image: scoopImage,
    env: [{ name: 'FLAVOR', value: icecream.spec?.flavor ?? '' }],
  };
}

/** The Deployment spec an Icecream wants. */
export function desiredDeploymentSpec(icecream: Icecream): DeploymentSpec {
  const labels = ownLabels(icecream);
  return {
    replicas: icecream.spec?.replicas ?? 0,
    selector: { matchLabels: { [icecreamLabel]: labels[icecreamLabel] ?? '' } },
    template: { metadata: { labels }, spec: { containers: [scoop(icecream)] } },
  };
}

/** The Deployment an Icecream wants, with its controller reference. */
export function desiredDeployment(icecream: Icecream): Deployment {
  return setControllerReference(icecream, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: icecream.spec?.deploymentName ?? '',
      namespace: icecream.metadata?.namespace ?? '',
      labels: ownLabels(icecream),
    },
    spec: desiredDeploymentSpec(icecream),
  });
}

/**
 * Bring `deployment` (a copy of the current one, or of {@link desiredDeployment}) to the spec, in place: the
 * controller reference (AlreadyOwnedError when another owner controls it), the labels, the replicas and the scoop
 * container. Only the fields the operator owns are set, so the server's defaults stay and `createOrUpdate`
 * writes only on a real drift. The selector is immutable: an adopted Deployment keeps its own, and its Pods get
 * the Icecream label through the template.
 */
export function bringToSpec(deployment: Deployment, icecream: Icecream): void {
  const labels = ownLabels(icecream);
  const owned = setControllerReference(icecream, deployment);
  deployment.metadata = {
    ...owned.metadata,
    labels: { ...deployment.metadata?.labels, ...labels },
  };
  const wanted = desiredDeploymentSpec(icecream);
  const spec: DeploymentSpec = deployment.spec ?? { selector: {}, template: {} };
  deployment.spec = spec;
  spec.replicas = icecream.spec?.replicas ?? 0;
  if (spec.selector?.matchLabels === undefined && spec.selector?.matchExpressions === undefined) {
    spec.selector = wanted.selector;
  }
  const template = spec.template ?? {};
  spec.template = template;
  template.metadata = {
    ...template.metadata,
    labels: { ...template.metadata?.labels, ...labels },
  };
  const containers = template.spec?.containers ?? [];
  const current = containers.find((container) => container.name === 'scoop');
  if (current === undefined) template.spec = { ...template.spec, containers: [scoop(icecream)] };
  else {
    current.image = scoopImage;
    current.env = [{ name: 'FLAVOR', value: icecream.spec?.flavor ?? '' }];
  }
}

function condition(
  previous: Condition | undefined,
  status: Condition['status'],
  reason: string,
  message: string,
  generation: number | undefined,
  now: string,
): Condition {
  // lastTransitionTime moves only when the status changes, as metav1.Condition requires.
  const lastTransitionTime =
    previous !== undefined && previous.status === status ? previous.lastTransitionTime : now;
  return {
    type: 'Ready',
    status,
    reason,
    message,
    lastTransitionTime,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
}

// Key order does not count: kube-apiserver returns a custom resource's keys sorted, not in the order written.
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, field: unknown) =>
    typeof field === 'object' && field !== null && !Array.isArray(field)
      ? Object.fromEntries(Object.entries(field).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : field,
  );
}

function sameStatus(a: IcecreamStatus | undefined, b: IcecreamStatus): boolean {
  return canonical(a ?? {}) === canonical(b);
}

/** A condition message is bounded (metav1.Condition: 32 768); an error's text is cut well before that. */
const maxMessageLength = 1_024;

/** Why a reconcile failed, as the Ready condition and a Warning Event say it. */
interface Failure {
  /** The condition's reason (CamelCase). */
  readonly reason: string;
  /** The Event's reason and action. */
  readonly event: readonly [reason: string, action: string];
  readonly message: string;
  /**
   * Retrying the same spec cannot help (another owner, a Deployment the server refuses): reported and not
   * retried. A change of the spec is a new event, and a new reconcile.
   */
  readonly terminal: boolean;
}

function failureOf(error: unknown, deploymentName: string): Failure {
  if (error instanceof AlreadyOwnedError) {
    const owner = error.existing;
    return {
      reason: 'DeploymentNotOwned',
      event: ['NotOwned', 'AdoptDeployment'],
      message:
        `Deployment ${deploymentName} is controlled by ${owner?.kind ?? 'another owner'} ${owner?.name ?? ''}`.trim(),
      terminal: true,
    };
  }
  const text = errorMessage(error).slice(0, maxMessageLength);
  if (isInvalid(error)) {
    return {
      reason: 'DeploymentInvalid',
      event: ['ReconcileFailed', 'ReconcileDeployment'],
      message: `Deployment ${deploymentName} refused by the API server: ${text}`,
      terminal: true,
    };
  }
  return {
    reason: 'ReconcileFailed',
    event: ['ReconcileFailed', 'ReconcileDeployment'],
    message: text,
    terminal: false,
  };
}

/** Options of {@link createIcecreamReconciler}. */
export interface IcecreamReconcilerOptions {
  clients: ReconcilerClients;
  caches: ReconcilerCaches;
  events: EventRecorder;
  /** Time of the conditions' `lastTransitionTime` (RFC 3339, whole seconds). Default `systemClock`. */
  clock?: Clock | undefined;
}

/**
 * The part of the reconcile context the reconciler uses: the signal every client call gets, and the logger of
 * the reconcile (an invalid spec is logged there; none when omitted).
 */
export type IcecreamReconcileContext = Pick<ReconcileContext, 'signal'> & {
  readonly logger?: Logger | undefined;
};

/** The reconcile and cleanup handlers of the Icecream controller. */
export interface IcecreamReconciler {
  /**
   * Brings the Deployment to the spec and the status to the Deployment; returns the Icecream it wrote. A
   * failure sets Ready=False with its reason and message (and a Warning Event); it is thrown again for a retry
   * unless retrying cannot help (DeploymentNotOwned, DeploymentInvalid, InvalidSpec). A spec the CRD's schema
   * would refuse (`spec.deploymentName` a number, say, under a CRD without the schema) is InvalidSpec, with a
   * message naming each bad field, reported once per spec: no Deployment is touched. Once `context.signal`
   * aborted (stop, leadership lost) nothing more is written.
   */
  reconcile(
    key: string,
    icecream: Icecream,
    context: IcecreamReconcileContext,
  ): Promise<SharedHandlerResult<Icecream>>;
  /**
   * Finalizer cleanup: deletes the Deployment this Icecream controls (idempotent); none when its
   * `spec.deploymentName` is invalid, since no Deployment was made for it.
   */
  cleanup(key: string, icecream: Icecream, context: IcecreamReconcileContext): Promise<void>;
}

/** Create the reconciler (register `reconcile` behind `finalizerHandler`'s `onChange`, `cleanup` as `onRemove`). */
export function createIcecreamReconciler(options: IcecreamReconcilerOptions): IcecreamReconciler {
  const { clients, caches, events } = options;
  const clock = options.clock ?? systemClock;
  const timestamp = (): string => `${new Date(clock.now()).toISOString().slice(0, 19)}Z`;

  async function writeStatus(
    icecream: Icecream,
    status: IcecreamStatus,
    signal: AbortSignal,
  ): Promise<Icecream | undefined> {
    if (sameStatus(icecream.status, status)) return undefined;
    return clients.icecreams.updateStatus(
      icecream.metadata?.namespace,
      { ...icecream, status },
      { signal },
    );
  }

  /** Report `failure` in the Ready condition (the rest of the status stays) and an Event. */
  function reportFailure(
    icecream: Icecream,
    deployment: Deployment | undefined,
    failure: Failure,
    signal: AbortSignal,
  ): Promise<Icecream | undefined> {
    const generation = icecream.metadata?.generation;
    const previous = icecream.status?.conditions?.find((c) => c.type === 'Ready');
    events.event(icecream, deployment, 'Warning', ...failure.event, failure.message);
    return writeStatus(
      icecream,
      {
        ...icecream.status,
        ...(generation === undefined ? {} : { observedGeneration: generation }),
        conditions: [
          ...(icecream.status?.conditions ?? []).filter((c) => c.type !== 'Ready'),
          condition(previous, 'False', failure.reason, failure.message, generation, timestamp()),
        ],
      },
      signal,
    );
  }

  /**
   * Report a spec the CRD's schema would refuse (stored before the schema, or under a CRD without one): Ready=False
   * InvalidSpec naming each bad field, then a Warning Event and a warning log, once per spec and generation. The
   * Event and the log follow the status write, and only a write that changed the status: the write is itself an
   * update event, and its reconcile (or one of a stale cached copy, whose write conflicts) says nothing more. A
   * bad spec costs one write and one Event until it changes.
   */
  async function reportInvalidSpec(
    icecream: Icecream,
    problems: readonly string[],
    signal: AbortSignal,
    logger: Logger | undefined,
  ): Promise<Icecream | undefined> {
    const message = `invalid spec: ${problems.join('; ')}`.slice(0, maxMessageLength);
    const generation = icecream.metadata?.generation;
    const previous = icecream.status?.conditions?.find((c) => c.type === 'Ready');
    const written = await writeStatus(
      icecream,
      {
        ...icecream.status,
        ...(generation === undefined ? {} : { observedGeneration: generation }),
        conditions: [
          ...(icecream.status?.conditions ?? []).filter((c) => c.type !== 'Ready'),
          condition(previous, 'False', 'InvalidSpec', message, generation, timestamp()),
        ],
      },
      signal,
    );
    if (written === undefined) return undefined;
    logger?.warn('invalid spec: not reconciled until the spec changes', {
      problems: problems.join('; '),
    });
    events.event(icecream, undefined, 'Warning', 'InvalidSpec', 'ValidateSpec', message);
    return written;
  }

  return {
    async reconcile(_key, icecream, { signal, logger }) {
      const problems = specProblems(icecream.spec);
      if (problems.length > 0) return reportInvalidSpec(icecream, problems, signal, logger);
      const namespace = icecream.metadata?.namespace ?? '';
      const generation = icecream.metadata?.generation;
      const previous = icecream.status?.conditions?.find((c) => c.type === 'Ready');
      const deploymentName = icecream.spec?.deploymentName ?? '';
      const cached = caches.deployments.get(namespace, deploymentName);
      let deployment: Deployment;
      let adopted = false;
      try {
        const result = await createOrUpdate(
          clients.deployments,
          desiredDeployment(icecream),
          (current) => {
            // An existing Deployment (it has a uid) that is not ours yet is adopted, or refused if controlled.
            adopted = current.metadata?.uid !== undefined && !isControlledBy(current, icecream);
            bringToSpec(current, icecream);
          },
          { lister: caches.deployments, signal, fieldManager },
        );
        deployment = result.object;
        if (result.operation === 'created') {
          events.event(
            icecream,
            deployment,
            'Normal',
            'Created',
            'CreateDeployment',
            `Created Deployment ${deploymentName}`,
          );
        } else if (result.operation === 'updated' && adopted) {
          events.event(
            icecream,
            deployment,
            'Normal',
            'Adopted',
            'AdoptDeployment',
            `Adopted Deployment ${deploymentName}`,
          );
        } else if (result.operation === 'updated') {
          events.event(
            icecream,
            deployment,
            'Normal',
            'Updated',
            'UpdateDeployment',
            `Updated Deployment ${deploymentName} to ${icecream.spec?.replicas} replicas`,
          );
        }
      } catch (error) {
        // Stopping, or no longer leading: write nothing more (the next leader reconciles this key again).
        if (signal.aborted) throw error;
        const failure = failureOf(error, deploymentName);
        if (failure.terminal) return reportFailure(icecream, cached, failure, signal);
        // The retry writes the condition again if this write fails: the Deployment's error is the one to keep.
        await reportFailure(icecream, cached, failure, signal).catch(() => undefined);
        throw error;
      }
      const wanted = icecream.spec?.replicas ?? 0;
      const available = deployment.status?.availableReplicas ?? 0;
      const nodes = [
        ...new Set(
          icecreamLabelKeys(icecream)
            .flatMap((key) => caches.pods.byIndex(podsByIcecreamIndex, key))
            .map((pod) => pod.spec?.nodeName)
            .filter((node): node is string => typeof node === 'string' && node !== ''),
        ),
      ].sort();
      const ready = available >= wanted;
      const status: IcecreamStatus = {
        availableReplicas: available,
        nodes,
        ...(generation === undefined ? {} : { observedGeneration: generation }),
        conditions: [
          ...(icecream.status?.conditions ?? []).filter((c) => c.type !== 'Ready'),
          condition(
            previous,
            ready ? 'True' : 'False',
            ready ? 'ScoopsAvailable' : 'ScoopsProgressing',
            `${available}/${wanted} replicas of Deployment ${deploymentName} available`,
            generation,
            timestamp(),
          ),
        ],
      };
      return writeStatus(icecream, status, signal);
    },

    async cleanup(_key, icecream, { signal }) {
      const namespace = icecream.metadata?.namespace ?? '';
      const name: unknown = (icecream.spec as { deploymentName?: unknown } | undefined)
        ?.deploymentName;
      // An invalid name never got a Deployment (and is no key to look one up by): nothing to delete.
      if (typeof name !== 'string' || deploymentNameProblem(name) !== undefined) return;
      let deployment = caches.deployments.get(namespace, name);
      try {
        // The cache may not have seen a Deployment created moments ago: ask the server before giving up.
        deployment ??= await clients.deployments.get(namespace, name, { signal });
        if (!isControlledBy(deployment, icecream)) return;
        await clients.deployments.delete(namespace, name, { signal });
      } catch (error) {
        if (isNotFound(error)) return;
        throw error;
      }
      events.event(
        icecream,
        deployment,
        'Normal',
        'Deleted',
        'DeleteDeployment',
        `Deleted Deployment ${name}`,
      );
    },
  };
}
