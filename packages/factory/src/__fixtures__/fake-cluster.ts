// A fake cluster for unit tests: served kinds backed by FakeListerWatchers, a health switch, and a
// SharedClientFactory over them whose clients record every list and watch.
import { FakeListerWatcher } from '@lasso/cache/testing';
import {
  ApiError,
  type Client,
  type GroupVersionKind,
  type GroupVersionResource,
  type KubeObject,
  type KubeObjectLike,
  type ListOptions,
  type RestConfig,
  type RestMapper,
  type RestMapping,
  type RestTransport,
  type WatchOptions,
} from '@lasso/client';
import { LassoError, raceSignal } from '@lasso/core';
import { gvkString, gvrString } from '../names.ts';
import type { SharedClientFactory } from '../shared-client-factory.ts';

export interface FakeKind {
  readonly gvk: GroupVersionKind;
  readonly gvr: GroupVersionResource;
  readonly namespaced: boolean;
  readonly store: FakeListerWatcher<KubeObject>;
  /** Namespace argument of every list call, in order. */
  readonly listNamespaces: Array<string | undefined>;
  /** Options of every list call after the tweak, in order. */
  readonly lists: ListOptions[];
  readonly watches: WatchOptions[];
  /** Hold every list until the returned function is called. */
  holdLists(): () => void;
}

interface KindState extends FakeKind {
  hold: Promise<void> | undefined;
}

/** A deferred promise. */
export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
} {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export class FakeCluster {
  readonly #kinds = new Map<string, KindState>();
  /** Answers of the next pings (true = healthy); once empty, `healthy` answers. */
  readonly pingAnswers: boolean[] = [];
  healthy = true;
  pings = 0;
  /** Lookups through the factory (resourceForGVK / forResource / gvkForResource). */
  lookups = 0;
  /** Clients created. */
  clientsCreated = 0;
  /** When set, lookups wait for it (to line up concurrent callers). */
  lookupGate: Promise<void> | undefined;

  serve(
    gvk: GroupVersionKind,
    resource: string,
    namespaced: boolean,
    objects: KubeObject[] = [],
  ): FakeKind {
    const state: KindState = {
      gvk,
      gvr: { group: gvk.group, version: gvk.version, resource },
      namespaced,
      store: new FakeListerWatcher<KubeObject>({ objects }),
      listNamespaces: [],
      lists: [],
      watches: [],
      hold: undefined,
      holdLists: () => {
        const gate = deferred();
        state.hold = gate.promise;
        return () => {
          state.hold = undefined;
          gate.resolve();
        };
      },
    };
    this.#kinds.set(gvkString(gvk), state);
    return state;
  }

  unserve(gvk: GroupVersionKind): void {
    this.#kinds.delete(gvkString(gvk));
  }

  kind(gvk: GroupVersionKind): FakeKind {
    const state = this.#kinds.get(gvkString(gvk));
    if (state === undefined) throw new Error(`not served: ${gvkString(gvk)}`);
    return state;
  }

  /** Kinds that were listed or watched at least once. */
  touched(): string[] {
    return [...this.#kinds.values()]
      .filter((kind) => kind.lists.length > 0 || kind.watches.length > 0)
      .map((kind) => gvkString(kind.gvk))
      .sort();
  }

  #byResource(gvr: GroupVersionResource): KindState | undefined {
    return [...this.#kinds.values()].find((kind) => gvrString(kind.gvr) === gvrString(gvr));
  }

  #mapping(kind: KindState): RestMapping {
    return { gvr: kind.gvr, gvk: kind.gvk, namespaced: kind.namespaced };
  }

  async #lookup<R>(
    signal: AbortSignal | undefined,
    find: () => R | undefined,
    what: string,
  ): Promise<R> {
    this.lookups++;
    if (this.lookupGate !== undefined) await raceSignal(this.lookupGate, signal);
    const found = find();
    if (found === undefined) throw new LassoError('LASSO_NO_KIND_MATCH', `no matches for ${what}`);
    return found;
  }

  #client(gvr: GroupVersionResource, kind: string, namespaced: boolean): Client<KubeObjectLike> {
    const cluster = this;
    this.clientsCreated++;
    const apiVersion = gvr.group === '' ? gvr.version : `${gvr.group}/${gvr.version}`;
    const served = (): KindState => {
      const state = cluster.#byResource(gvr);
      if (state === undefined) {
        throw new ApiError({
          status: 404,
          message: `the server could not find ${gvrString(gvr)}`,
        });
      }
      return state;
    };
    const fake = {
      gvr,
      kind,
      namespaced,
      apiVersion,
      async list(namespace: string | undefined, options: ListOptions = {}) {
        const state = served();
        state.listNamespaces.push(namespace);
        state.lists.push({ ...options, signal: undefined });
        if (state.hold !== undefined) await raceSignal(state.hold, options.signal);
        return state.store.list(options);
      },
      watch(namespace: string | undefined, options: WatchOptions = {}) {
        const state = served();
        // The reflector's streaming-list attempt (refused by the FakeListerWatcher, as by servers without the
        // WatchList feature) is not a watch of the kind.
        if (options.sendInitialEvents === undefined) state.watches.push({ ...options, signal: undefined });
        return state.store.watch(options);
      },
    };
    return fake as unknown as Client<KubeObjectLike>;
  }

  /** The request guards registered on the transport of {@link clientFactory}'s factories. */
  readonly requestGuards = new Set<() => void>();

  /** A SharedClientFactory over this cluster. */
  clientFactory(): SharedClientFactory {
    const cluster = this;
    const clients = new Map<string, Client<KubeObjectLike>>();
    const factory: SharedClientFactory = {
      config: { server: 'https://fake.invalid' } as RestConfig,
      // Only what the factories ask of a transport: request guards (a sharded factory's fence check).
      transport: {
        addRequestGuard: (guard: () => void) => {
          cluster.requestGuards.add(guard);
          return () => cluster.requestGuards.delete(guard);
        },
      } as unknown as RestTransport,
      restMapper: () => ({}) as RestMapper,
      async forKind(gvk: GroupVersionKind, options: { signal?: AbortSignal | undefined } = {}) {
        const mapping = await factory.resourceForGVK(gvk, options);
        return factory.forResourceKind(mapping.gvr, mapping.gvk.kind, mapping.namespaced);
      },
      async forResource(gvr, namespaced, options = {}) {
        const mapping = await cluster.#lookup(
          options.signal,
          () => {
            const state = cluster.#byResource(gvr);
            return state === undefined ? undefined : cluster.#mapping(state);
          },
          gvrString(gvr),
        );
        return factory.forResourceKind(mapping.gvr, mapping.gvk.kind, namespaced);
      },
      forResourceKind<T extends KubeObjectLike = KubeObject>(
        gvr: GroupVersionResource,
        kind: string,
        namespaced: boolean,
      ): Client<T> {
        const key = gvrString(gvr);
        let client = clients.get(key);
        if (client === undefined) {
          client = cluster.#client(gvr, kind, namespaced);
          clients.set(key, client);
        }
        return client as unknown as Client<T>;
      },
      async isNamespaced(gvk, options = {}) {
        return (await factory.resourceForGVK(gvk, options)).namespaced;
      },
      resourceForGVK(gvk, options = {}) {
        return cluster.#lookup(
          options.signal,
          () => {
            const state = cluster.#kinds.get(gvkString(gvk));
            return state === undefined ? undefined : cluster.#mapping(state);
          },
          gvkString(gvk),
        );
      },
      async gvkForResource(gvr, options = {}) {
        return cluster.#lookup(options.signal, () => cluster.#byResource(gvr)?.gvk, gvrString(gvr));
      },
      async isHealthy() {
        cluster.pings++;
        return cluster.pingAnswers.shift() ?? cluster.healthy;
      },
      async ping() {
        cluster.pings++;
        if (!(cluster.pingAnswers.shift() ?? cluster.healthy)) {
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
        }
      },
      async close() {},
    } as SharedClientFactory;
    return factory;
  }
}

/** An object of a kind with the fields a store needs. */
export function object(
  apiVersion: string,
  kind: string,
  name: string,
  namespace?: string,
  extra: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion,
    kind,
    metadata: {
      name,
      uid: `uid-${name}`,
      ...(namespace !== undefined ? { namespace } : {}),
    },
    ...extra,
  };
}
