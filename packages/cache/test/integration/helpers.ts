// Shared pieces of the cache integration tests: an environment with clients, a bounded-concurrency runner, and a
// handler that records each key's latest state and lets tests await a condition driven by its callbacks.
import {
  Client,
  type KubeObject,
  loadKubeConfig,
  type RestConfig,
  type RestTransport,
} from '@lasso/client';
import { Waiter } from '@lasso/core/testing';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { isDeletedFinalStateUnknown } from '../../src/delta-fifo.ts';
import type {
  EventHandlerRegistration,
  ResourceEventHandler,
} from '../../src/processor-listener.ts';
import type { SharedIndexInformer } from '../../src/shared-informer.ts';
import { metaNamespaceKeyFunc } from '../../src/store.ts';

export interface TestCluster {
  env: Environment;
  rest: RestConfig;
  configMaps: Client;
  /** Create a fresh namespace and return its name. */
  namespace(prefix: string): Promise<string>;
  stop(): Promise<void>;
}

/** A ConfigMap client on `rest`. */
export function configMapClient(rest: RestConfig | RestTransport): Client {
  return new Client({
    gvr: { group: '', version: 'v1', resource: 'configmaps' },
    kind: 'ConfigMap',
    namespaced: true,
    rest,
  });
}

export async function startCluster(): Promise<TestCluster> {
  const env = await startEnvironment();
  const rest = await loadKubeConfig({ path: env.kubeconfigPath });
  const configMaps = configMapClient(rest);
  const namespaces = new Client({
    gvr: { group: '', version: 'v1', resource: 'namespaces' },
    kind: 'Namespace',
    namespaced: false,
    rest,
  });
  let counter = 0;
  return {
    env,
    rest,
    configMaps,
    async namespace(prefix) {
      const name = `${prefix}-${process.pid}-${++counter}`;
      await namespaces.create(undefined, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
      return name;
    },
    async stop() {
      await env.stop();
    },
  };
}

/** Run `task` for every item with at most `concurrency` in flight. */
export async function forEachConcurrent<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** Key -> resourceVersion of every object the server has in `namespace`. */
export async function serverState(client: Client, namespace: string): Promise<Map<string, string>> {
  const state = new Map<string, string>();
  for await (const object of client.listAll(namespace, { limit: 500 })) {
    state.set(metaNamespaceKeyFunc(object), object.metadata?.resourceVersion ?? '');
  }
  return state;
}

/** Key -> resourceVersion of a list of objects. */
export function versions(objects: readonly KubeObject[]): Map<string, string> {
  return new Map(
    objects.map((object) => [metaNamespaceKeyFunc(object), object.metadata?.resourceVersion ?? '']),
  );
}

export function sameState(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, version] of a) if (b.get(key) !== version) return false;
  return true;
}

/**
 * Runs `informer` with a {@link StateRecorder} as a handler while `test` runs, then stops it and awaits its end,
 * whether `test` passed or threw.
 */
export async function whileRunning(
  informer: SharedIndexInformer<KubeObject>,
  test: (recorder: StateRecorder, registration: EventHandlerRegistration) => Promise<void>,
): Promise<void> {
  const recorder = new StateRecorder();
  const registration = informer.addEventHandler(recorder.handler());
  const controller = new AbortController();
  await informer.start(controller.signal);
  try {
    await test(recorder, registration);
  } finally {
    controller.abort();
    await informer.stopped();
  }
}

/**
 * An event handler that keeps the latest state each key was delivered in (deleted keys removed), and
 * `until(predicate)` which re-checks the predicate after every callback, with a real-time deadline.
 */
export class StateRecorder {
  readonly state = new Map<string, string>();
  /**
   * Callbacks that contradict what this handler saw before: an add of a key it has, an update whose old
   * object is not the state it last saw, a delete of a key it does not have.
   */
  readonly violations: string[] = [];
  events = 0;
  readonly #waiter = new Waiter();

  handler(options: { slow?: boolean } = {}): ResourceEventHandler<KubeObject> {
    const settle = options.slow
      ? () => new Promise<void>((resolve) => setImmediate(resolve))
      : () => undefined;
    return {
      onAdd: (object) => {
        const key = metaNamespaceKeyFunc(object);
        if (this.state.has(key)) this.violations.push(`add of ${key}, already seen`);
        this.#set(object);
        return settle();
      },
      onUpdate: (old, object) => {
        const key = metaNamespaceKeyFunc(object);
        const seen = this.state.get(key);
        const oldVersion = old.metadata?.resourceVersion ?? '';
        if (seen !== oldVersion) {
          this.violations.push(`update of ${key} from ${oldVersion}, last seen ${seen ?? 'none'}`);
        }
        this.#set(object);
        return settle();
      },
      onDelete: (object) => {
        const key = isDeletedFinalStateUnknown(object) ? object.key : metaNamespaceKeyFunc(object);
        if (!this.state.has(key)) this.violations.push(`delete of ${key}, never seen`);
        this.state.delete(key);
        this.#changed();
        return settle();
      },
    };
  }

  /** Resolve once `predicate()` holds; checked now and after every callback. Rejects after `timeoutMs`. */
  until(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    return this.#waiter.until(predicate, what, timeoutMs);
  }

  /** Re-check the pending `until` predicates now (after a change they depend on that is not a callback). */
  recheck(): void {
    this.#waiter.notify();
  }

  #set(object: KubeObject): void {
    this.state.set(metaNamespaceKeyFunc(object), object.metadata?.resourceVersion ?? '');
    this.#changed();
  }

  #changed(): void {
    this.events++;
    this.#waiter.notify();
  }
}
