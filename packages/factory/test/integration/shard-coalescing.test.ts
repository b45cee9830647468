// A replica joining a sharded ring whose lists are slow (issue 32): its ranges arrive in several hand-offs (one per
// member that acknowledges), the later ones before the list of the first completed. The ranges that arrive while a
// list is in flight wait for it and are listed together: no list the replica sends is abandoned. Counted by the
// replica's dispatcher (so on the built-in server and on a real kube-apiserver alike): every ConfigMap LIST it sends,
// held back `listLatencyMs` before it goes out (a large collection on a busy server), and how each ended. Before
// the coalescing, the second hand-off aborted the first list (2 lists sent, 1 completed on the built-in server).
import { Client, createRestConfig, loadKubeConfig, type RestConfig } from '@lasso/client';
import type { SharedController } from '@lasso/controller';
import type { Logger } from '@lasso/core';
import { fnv1a64Hex } from '@lasso/core/sharding';
import { startEnvironment } from '@lasso/envtest';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { SharedControllerFactory } from '../../src/controller-factory-api.ts';
import { kindFor } from '../../src/kind.ts';
import { createSharedControllerFactoryFromConfig } from '../../src/shared-controller-factory.ts';
import {
  collectionOf,
  isListRequest,
  type RecordingConfig,
  tlsAgentFor,
  Waiter,
} from './helpers.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const listLatencyMs = 1_000;
const objects = 40;

/** The range (of 256) an object's uid hashes to. */
function rangeOf(uid: string): number {
  return Math.floor(Number.parseInt(fnv1a64Hex(uid).slice(0, 8), 16) / 2 ** 24);
}

/** A logger that wakes the waiter after each entry (ring changes, claims, lists: each is logged). */
function wakingLogger(waiter: Waiter): Logger {
  const wake = (): void => queueMicrotask(() => waiter.notify());
  const logger: Logger = { debug: wake, info: wake, warn: wake, error: wake, child: () => logger };
  return logger;
}

/** ConfigMap LISTs of one replica: sent, still open, ended by an error (an abort among them). */
interface ListCounts {
  sent: number;
  open: number;
  failed: number;
}

// Where an undici handler learns that its request ended (the legacy and the new handler API).
const endings = new Set(['onComplete', 'onError', 'onResponseEnd', 'onResponseError']);
const failures = new Set(['onError', 'onResponseError']);

/** `handler` with `ended(failed)` called once, when the request completes or fails. */
function watching<H extends object>(handler: H, ended: (failed: boolean) => void): H {
  let done = false;
  return new Proxy(handler, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (typeof property !== 'string' || !endings.has(property)) return value.bind(target);
      return (...args: unknown[]) => {
        if (!done) {
          done = true;
          ended(failures.has(property));
        }
        return value.apply(target, args);
      };
    },
  });
}

/** A config whose ConfigMap LISTs are counted and sent `listLatencyMs` late when `slowLists`. */
function recordingConfig(
  base: RestConfig,
  waiter: Waiter,
  slowLists: boolean,
): RecordingConfig & { lists: ListCounts } {
  const requests: Array<{ method: string; path: string }> = [];
  const lists: ListCounts = { sent: 0, open: 0, failed: 0 };
  const agent = tlsAgentFor(base);
  const dispatcher = agent.compose((dispatch: Dispatcher['dispatch']) => (options, handler) => {
    const path = String(options.path);
    requests.push({ method: String(options.method), path });
    waiter.notify();
    const list =
      options.method === 'GET' && isListRequest(path) && collectionOf(path) === 'v1/configmaps';
    if (!list) return dispatch(options, handler);
    lists.sent++;
    lists.open++;
    const counted = watching(handler, (failed) => {
      lists.open--;
      if (failed) lists.failed++;
      waiter.notify();
    });
    if (!slowLists) return dispatch(options, counted);
    // The server's answer takes this long: the request goes out late (an abort meanwhile still reaches it).
    setTimeout(() => dispatch(options, counted), listLatencyMs);
    return true;
  });
  return {
    lists,
    rest: createRestConfig({ ...base, dispatcher }),
    requests,
    waiter,
    collections: () => new Set(),
    close: () => agent.close(),
  };
}

describe('a replica joining a ring while its lists are slow', () => {
  it('lists the ranges handed over meanwhile together, abandoning no list', async () => {
    const env = await startEnvironment({ namespace: true });
    cleanups.push(() => env.stop());
    const namespace = env.namespace;
    const admin = await loadKubeConfig({ path: env.kubeconfigPath });
    const configMaps = new Client<ConfigMap>({
      gvr: { group: '', version: 'v1', resource: 'configmaps' },
      kind: 'ConfigMap',
      namespaced: true,
      rest: admin,
    });
    const uids: string[] = [];
    for (let index = 0; index < objects; index++) {
      const created = await configMaps.create(namespace, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${index}`, namespace },
      });
      uids.push(created.metadata?.uid as string);
    }
    const waiter = new Waiter();
    const ring = `coalesce${process.pid % 10_000}x${Math.floor(Math.random() * 1e6)}`;
    interface Replica {
      readonly factory: SharedControllerFactory;
      readonly controller: SharedController<ConfigMap>;
      readonly recording: RecordingConfig & { lists: ListCounts };
      readonly stop: AbortController;
    }
    const replicas = new Map<string, Replica>();
    const start = async (name: string, slowLists: boolean): Promise<Replica> => {
      const base = await loadKubeConfig({ path: env.kubeconfigPath });
      const recording = recordingConfig(base, waiter, slowLists);
      const factory = createSharedControllerFactoryFromConfig(recording.rest, {
        sharding: {
          ring,
          leaseNamespace: namespace,
          identity: name,
          leaseDurationMs: 6_000,
          renewDeadlineMs: 4_000,
          retryPeriodMs: 400,
        },
        // Plain LISTs on both servers (no streaming list, which goes on as the watch): each one ends.
        cache: { defaultNamespace: namespace, defaultInitialList: 'consistent' },
        gracefulShutdownTimeoutMs: 5_000,
        logger: wakingLogger(waiter),
      });
      const stop = new AbortController();
      cleanups.push(async () => {
        stop.abort();
        await factory.close();
        await recording.close();
      });
      const controller = await factory.forKind<ConfigMap>(kindFor('v1', 'ConfigMap'));
      controller.registerHandler(stop.signal, 'noop', (_key, configMap) => configMap);
      await factory.start(stop.signal);
      const replica = { factory, controller, recording, stop };
      replicas.set(name, replica);
      return replica;
    };
    const settled = (members: number): boolean => {
      const owners = new Map<number, number>();
      for (const { factory } of replicas.values()) {
        if (factory.shardStatus()?.members.length !== members) return false;
        for (const range of factory.shardStatus()?.owned ?? []) {
          owners.set(range, (owners.get(range) ?? 0) + 1);
        }
      }
      return owners.size === 256 && [...owners.values()].every((count) => count === 1);
    };
    /** The replica's informer holds exactly the objects of the ranges it owns (its last list completed). */
    const holdsItsShare = ({ factory, controller }: Replica): boolean => {
      const owned = new Set(factory.shardStatus()?.owned ?? []);
      const share = uids.filter((uid) => owned.has(rangeOf(uid))).length;
      return controller.list(namespace).length === share;
    };

    await start('r1', false);
    await start('r2', false);
    await waiter.until(() => settled(2), 'two replicas owning every range once', 30_000);
    // r3's ranges come from r1 and from r2, each in its own hand-off, while its first list waits a second.
    const r3 = await start('r3', true);
    await waiter.until(
      () => settled(3) && holdsItsShare(r3) && r3.recording.lists.open === 0,
      'three replicas owning every range once, r3 holding its share, no list open',
      60_000,
    );
    // Every list sent completed: none was abandoned for a newer selector.
    expect(r3.recording.lists.sent).toBeGreaterThan(0);
    expect(r3.recording.lists.failed).toBe(0);
    expect(r3.factory.shardStatus()?.moves.in).toBeGreaterThan(0);
  }, 120_000);
});
