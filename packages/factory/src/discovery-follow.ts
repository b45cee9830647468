// Following CustomResourceDefinitions and APIServices is earned: a factory reads them (through its own informers)
// only while it has a kind discovery does not serve, or when the user asks (`watchDiscovery: true`). An operator
// allowed only its own kinds never asks for them; when a follow is forbidden, the permission that would enable it
// is named once and the kinds are retried from discovery on their backoff alone. Split from kind-supervisor.ts.
import {
  isDeletedFinalStateUnknown,
  type SharedIndexInformer,
  type WatchError,
} from '@lasso/cache';
import {
  type GroupVersionResource,
  isForbidden,
  type KubeObject,
  type KubeObjectLike,
  servedGroupOf,
} from '@lasso/client';
import { errorMessage, isLassoError, type Logger } from '@lasso/core';
import type { ResolvedKind } from './kind-lookups.ts';
import type { Entry, FactoryRun } from './kind-supervisor.ts';
import { gvkKey } from './names.ts';
import type { SharedClientFactory } from './shared-client-factory.ts';

/**
 * When a factory follows CRDs and APIServices: `auto` while a kind is not served, `always` for its whole run,
 * `never`.
 */
export type DiscoveryFollowMode = 'auto' | 'always' | 'never';

interface Target {
  readonly gvr: GroupVersionResource;
  readonly kind: string;
  /** `resource.group`, as RBAC and kubectl name it. */
  readonly permission: string;
}

const targets: readonly Target[] = [
  {
    gvr: { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' },
    kind: 'CustomResourceDefinition',
    permission: 'customresourcedefinitions.apiextensions.k8s.io',
  },
  {
    gvr: { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices' },
    kind: 'APIService',
    permission: 'apiservices.apiregistration.k8s.io',
  },
];

/** One follow of one target within one factory run, from when it is needed until it no longer is. */
interface Session {
  readonly run: FactoryRun;
  readonly stop: AbortController;
  /** The follow was refused (403): not tried again until the need ends and comes back. */
  forbidden: boolean;
}

/** @internal What a {@link DiscoveryFollower} needs from its factory. */
export interface DiscoveryFollowerDeps {
  readonly clients: SharedClientFactory;
  readonly logger: Logger;
  /** The factory's own informer of a cluster-scoped kind, created once. */
  internalInformer(resolved: ResolvedKind): SharedIndexInformer<KubeObject>;
  /** The entry of a kind key, once created. */
  entry(key: string): Entry | undefined;
  /** Records where an internal entry is. */
  setState(entry: Entry, state: Entry['state'], lastError: unknown): void;
  /** A CRD or APIService changed: `group` is the API group it serves, when known. */
  onChange(group: string | undefined): void;
  /** Counts `work` as part of `run` (its stop waits for it). */
  track(run: FactoryRun, work: Promise<void>): void;
}

/** @internal Runs the factory's CRD and APIService informers while they are needed (see the file comment). */
export class DiscoveryFollower {
  readonly #deps: DiscoveryFollowerDeps;
  readonly #sessions = new Map<string, Session>();
  /** Targets whose handlers were added (once: the informers keep them across runs). */
  readonly #handled = new Set<string>();
  /** Targets whose permission hint was logged at warn (once per factory). */
  readonly #hinted = new Set<string>();

  constructor(deps: DiscoveryFollowerDeps) {
    this.#deps = deps;
  }

  /** Follows every target while `needed` within `run`; stops following when not. */
  update(run: FactoryRun, needed: boolean): void {
    for (const target of targets) {
      const key = keyOf(target);
      const session = this.#sessions.get(key);
      if (session !== undefined && (session.run !== run || !needed)) {
        this.#sessions.delete(key);
        if (!session.stop.signal.aborted) {
          this.#deps.logger.debug('no kind waits for discovery; not following it any more', {
            resource: target.permission,
          });
          session.stop.abort();
        }
      }
      if (needed && !run.signal.aborted && !this.#sessions.has(key)) this.#start(target, run);
    }
  }

  /** True when `entry` is one of the followed kinds (its informer is this follower's). */
  owns(entry: Entry): boolean {
    return entry.internal && targets.some((target) => keyOf(target) === entry.key);
  }

  /** A list or watch failure of a followed kind: a 403 ends the follow and names the permission once. */
  onWatchError(entry: Entry, error: WatchError): void {
    const target = targets.find((candidate) => keyOf(candidate) === entry.key);
    const session = target === undefined ? undefined : this.#sessions.get(keyOf(target));
    if (target === undefined || session === undefined || !isForbidden(error.cause)) return;
    if (session.forbidden) return;
    session.forbidden = true;
    const attributes = {
      resource: target.permission,
      verbs: ['list', 'watch'],
      error: errorMessage(error.cause),
    };
    const message = `following ${target.permission} is forbidden; grant verbs list, watch on ${target.permission} to have kinds start as soon as they are served. Until then they are retried from discovery on their backoff alone`;
    if (this.#hinted.has(target.permission)) this.#deps.logger.debug(message, attributes);
    else {
      this.#hinted.add(target.permission);
      this.#deps.logger.warn(message, attributes);
    }
    session.stop.abort(error);
  }

  #start(target: Target, run: FactoryRun): void {
    const stop = new AbortController();
    const session: Session = { run, stop, forbidden: false };
    this.#sessions.set(keyOf(target), session);
    const onAbort = (): void => stop.abort(run.signal.reason);
    run.signal.addEventListener('abort', onAbort, { once: true });
    const work = this.#follow(target, stop.signal).finally(() => {
      run.signal.removeEventListener('abort', onAbort);
    });
    this.#deps.track(run, work);
  }

  async #follow(target: Target, signal: AbortSignal): Promise<void> {
    // A server that does not serve the target (the built-in server has no apiregistration.k8s.io) has nothing to
    // follow: said at debug, as nothing is lost (kinds are still retried from discovery).
    try {
      await this.#deps.clients.resourceForGVK(
        { group: target.gvr.group, version: target.gvr.version, kind: target.kind },
        { signal },
      );
    } catch (error) {
      if (signal.aborted) return;
      this.#deps.logger.debug('not following discovery: the server does not serve it', {
        resource: target.permission,
        error: errorMessage(error),
        noKindMatch: isLassoError(error, 'LASSO_NO_KIND_MATCH'),
      });
      return;
    }
    if (signal.aborted) return;
    const informer = this.#deps.internalInformer({
      gvr: target.gvr,
      kind: target.kind,
      namespaced: false,
    });
    const key = keyOf(target);
    this.#addHandler(key, informer);
    const entry = this.#deps.entry(key);
    // A run of a previous follow still ending ends first: one run of an informer at a time.
    if (informer.isRunning()) await informer.stopped();
    if (signal.aborted) return;
    this.#deps.logger.debug('following discovery while a kind is not served', {
      resource: target.permission,
    });
    if (entry !== undefined) this.#deps.setState(entry, 'syncing', undefined);
    void informer.whenSynced({ signal }).then(
      () => {
        if (entry !== undefined && !signal.aborted)
          this.#deps.setState(entry, 'running', undefined);
      },
      () => {},
    );
    try {
      await informer.start(signal);
      await informer.stopped();
    } catch (error) {
      this.#deps.logger.error('discovery follow failed', {
        resource: target.permission,
        error: errorMessage(error),
      });
    } finally {
      if (entry !== undefined) this.#deps.setState(entry, 'stopped', entry.lastError);
    }
  }

  #addHandler(key: string, informer: SharedIndexInformer<KubeObject>): void {
    if (this.#handled.has(key)) return;
    this.#handled.add(key);
    informer.addEventHandler(
      {
        onAdd: (_object, initial) => {
          if (!initial) this.#deps.onChange(undefined);
        },
        onUpdate: (old, object) => {
          // A relist or resync replays objects unchanged: not a change of what is served.
          if (resourceVersionOf(old) === resourceVersionOf(object)) return;
          this.#deps.onChange(servedGroupOf(object));
        },
        onDelete: (object) =>
          this.#deps.onChange(
            servedGroupOf(isDeletedFinalStateUnknown(object) ? object.object : object),
          ),
      },
      { name: 'lasso-factory-discovery' },
    );
  }
}

function keyOf(target: Target): string {
  return gvkKey({ group: target.gvr.group, version: target.gvr.version, kind: target.kind });
}

function resourceVersionOf(object: KubeObjectLike): string | undefined {
  return object.metadata?.resourceVersion;
}
