// kube-controller-manager's namespace controller (pkg/controller/namespace), in-process: a namespace
// deleted (Terminating, `spec.finalizers: [kubernetes]`) has every object of every served namespaced
// resource in it deleted (custom resources included), waits while some remain (finalizers, graceful
// deletion), reports that in the namespace's conditions as kube words them, and once it is empty removes
// the `kubernetes` finalizer through `/finalize`, so the namespace goes.
import type { Logger } from '@lasso/core';
import { isRecord, type Json, metaOf, stringOf } from '../apimachinery/objects.ts';
import { type ResourceInfo, storageKey } from '../resources/builtin-resources.ts';
import type { Registry } from '../resources/served-resources.ts';
import type { HistoryEvent, KubeObject, Store } from '../storage/store.ts';
import type { Enqueue, InProcessController } from './controller-manager.ts';
import { finalizersOf, InProcessClient, type RequestHandler } from './in-process-client.ts';

const namespacesKey = '/namespaces';
const kubernetesFinalizer = 'kubernetes';

/** The conditions the namespace deleter maintains, in its order, with its words for "all is well". */
const okConditions: ReadonlyArray<readonly [type: string, reason: string, message: string]> = [
  [
    'NamespaceDeletionDiscoveryFailure',
    'ResourcesDiscovered',
    'All resources successfully discovered',
  ],
  [
    'NamespaceDeletionGroupVersionParsingFailure',
    'ParsedGroupVersions',
    'All legacy kube types successfully parsed',
  ],
  [
    'NamespaceDeletionContentFailure',
    'ContentDeleted',
    'All content successfully deleted, may be waiting on finalization',
  ],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  [
    'NamespaceFinalizersRemaining',
    'ContentHasNoFinalizers',
    'All content-preserving finalizers finished',
  ],
];

function waitsForController(object: KubeObject): boolean {
  const spec = isRecord(object.spec) ? object.spec : {};
  return (
    metaOf(object).deletionTimestamp !== undefined &&
    Array.isArray(spec.finalizers) &&
    spec.finalizers.includes(kubernetesFinalizer)
  );
}

/** The namespace lifecycle controller of one built-in server. */
export class NamespaceLifecycle implements InProcessController {
  readonly #store: Store;
  readonly #registry: Registry;
  readonly #client: InProcessClient;
  readonly #logger: Logger;
  readonly #now: () => string;
  /** Namespaces waiting for this controller: a change of their content wakes them. */
  readonly #terminating = new Set<string>();
  #enqueue: Enqueue = () => {};

  constructor(options: {
    store: Store;
    registry: Registry;
    handle: RequestHandler;
    logger: Logger;
    now: () => string;
  }) {
    this.#store = options.store;
    this.#registry = options.registry;
    this.#logger = options.logger;
    this.#now = options.now;
    this.#client = new InProcessClient({
      handle: options.handle,
      registry: options.registry,
      serviceAccount: 'namespace-controller',
    });
  }

  resync(enqueue: Enqueue): void {
    this.#enqueue = enqueue;
    this.#terminating.clear();
    for (const namespace of this.#store.snapshot(namespacesKey).objects(undefined)) {
      if (waitsForController(namespace)) this.#queue(String(metaOf(namespace).name));
    }
  }

  observe(event: HistoryEvent, enqueue: Enqueue): void {
    this.#enqueue = enqueue;
    if (event.key === namespacesKey) {
      if (event.type !== 'DELETED' && waitsForController(event.object)) this.#queue(event.name);
      else this.#terminating.delete(event.name);
      return;
    }
    if (event.namespace !== '' && this.#terminating.has(event.namespace))
      this.#queue(event.namespace);
  }

  #queue(name: string): void {
    this.#terminating.add(name);
    this.#enqueue(`namespace/${name}`, () => this.#sync(name));
  }

  /** One pass of the namespace deleter: delete what is left, report, finalize when empty. */
  #sync(name: string): void {
    const namespace = this.#store.get(namespacesKey, '', name);
    if (namespace === undefined || !waitsForController(namespace)) {
      this.#terminating.delete(name);
      return;
    }
    const resources = new Map<string, ResourceInfo>();
    for (const info of this.#registry.all()) {
      if (!info.namespaced || !info.verbs.includes('delete') || !info.verbs.includes('list'))
        continue;
      const key = storageKey(info);
      const known = resources.get(key);
      if (known === undefined || (info.group === '' && known.group !== ''))
        resources.set(key, info);
    }
    const failures: string[] = [];
    for (const [key, info] of resources) {
      for (const object of this.#store.list(key, name)) {
        const metadata = metaOf(object);
        if (metadata.deletionTimestamp !== undefined) continue;
        const outcome = this.#client.delete(info, name, String(metadata.name), {
          propagationPolicy: 'Background',
          preconditions: { uid: metadata.uid },
        });
        if (!outcome.ok && outcome.code !== 404 && outcome.code !== 409) {
          failures.push(`${info.resource}.${info.group}: ${outcome.message}`);
        }
      }
    }
    // What is still there: objects waiting for finalizers or a graceful deletion.
    const remaining: string[] = [];
    const byFinalizer = new Map<string, number>();
    for (const [key, info] of resources) {
      const objects = this.#store.list(key, name);
      if (objects.length === 0) continue;
      remaining.push(`${info.resource}.${info.group} has ${objects.length} resource instances`);
      for (const object of objects) {
        for (const finalizer of finalizersOf(object)) {
          byFinalizer.set(finalizer, (byFinalizer.get(finalizer) ?? 0) + 1);
        }
      }
    }
    const problems = new Map<string, readonly [reason: string, message: string]>();
    if (failures.length > 0) {
      problems.set('NamespaceDeletionContentFailure', [
        'ContentDeletionFailed',
        `Failed to delete all resource types, ${failures.length} remaining: ${failures.sort().join(', ')}`,
      ]);
    }
    if (remaining.length > 0) {
      problems.set('NamespaceContentRemaining', [
        'SomeResourcesRemain',
        `Some resources are remaining: ${remaining.sort().join(', ')}`,
      ]);
    }
    if (byFinalizer.size > 0) {
      const listed = [...byFinalizer].map(
        ([finalizer, count]) => `${finalizer} in ${count} resource instances`,
      );
      problems.set('NamespaceFinalizersRemaining', [
        'SomeFinalizersRemain',
        `Some content in the namespace has finalizers remaining: ${listed.sort().join(', ')}`,
      ]);
    }
    const current = this.#writeConditions(namespace, problems);
    if (remaining.length > 0 || failures.length > 0) return; // a change of the content wakes it again
    const spec = isRecord(current.spec) ? current.spec : {};
    const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
    const finalized = {
      ...current,
      spec: { ...spec, finalizers: finalizers.filter((item) => item !== kubernetesFinalizer) },
    };
    const info = this.#client.resourceOf(namespacesKey);
    if (info === undefined) return;
    const outcome = this.#client.put(info, name, 'finalize', finalized);
    if (!outcome.ok && outcome.code === 409) this.#queue(name);
    else if (!outcome.ok && outcome.code !== 404) {
      this.#logger.warn('namespace controller: finalize failed', { name, error: outcome.message });
    }
  }

  /** Write the deleter's conditions through `/status` when they change; answers the namespace after. */
  #writeConditions(
    namespace: KubeObject,
    problems: ReadonlyMap<string, readonly [reason: string, message: string]>,
  ): KubeObject {
    const status = isRecord(namespace.status) ? namespace.status : {};
    // updateConditions: a condition is changed in place (its lastTransitionTime moves only when its
    // status does), a missing one is appended in the deleter's order.
    const conditions: Json[] = (Array.isArray(status.conditions) ? status.conditions : [])
      .filter(isRecord)
      .map((condition) => ({ ...condition }));
    const now = this.#now();
    let unchanged = true;
    for (const [type, okReason, okMessage] of okConditions) {
      const problem = problems.get(type);
      const next = {
        type,
        status: problem === undefined ? 'False' : 'True',
        reason: problem?.[0] ?? okReason,
        message: problem?.[1] ?? okMessage,
      };
      const old = conditions.find((condition) => condition.type === type);
      if (old === undefined) {
        // NamespaceCondition's field order.
        const { reason, message } = next;
        conditions.push({ type, status: next.status, lastTransitionTime: now, reason, message });
        unchanged = false;
      } else if (
        old.status !== next.status ||
        old.reason !== next.reason ||
        old.message !== next.message
      ) {
        if (old.status !== next.status) old.lastTransitionTime = now;
        Object.assign(old, next);
        unchanged = false;
      }
    }
    if (unchanged) return namespace;
    const info = this.#client.resourceOf(namespacesKey);
    if (info === undefined) return namespace;
    const outcome = this.#client.put(info, String(metaOf(namespace).name), 'status', {
      ...namespace,
      status: { ...status, conditions },
    });
    if (outcome.ok && isRecord(outcome.body)) return outcome.body;
    if (!outcome.ok && outcome.code !== 404 && outcome.code !== 409) {
      this.#logger.warn('namespace controller: status update failed', {
        name: stringOf(metaOf(namespace).name),
        error: outcome.message,
      });
    }
    return this.#store.get(namespacesKey, '', String(metaOf(namespace).name)) ?? namespace;
  }
}
