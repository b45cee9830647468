// lasso's factory wrappers (pkg/client/clientMutator.go, pkg/controller/useragent.go): the same factory or shared
// controller seen through a mutator that every client it hands out goes through, so one part of a program can
// write with its own User-Agent or as another user without a second transport, cache or informer.
import type { Client, Impersonation, KubeObjectLike } from '@lasso/client';
import type { SharedController } from '@lasso/controller';
import type { SharedControllerFactory } from './controller-factory-api.ts';
import type { SharedClientFactory } from './shared-client-factory.ts';

/** Turns a client into the one a wrapped factory hands out (lasso's `client.Mutator`). */
export type ClientMutator = <T extends KubeObjectLike>(client: Client<T>) => Client<T>;

// The lookups whose results are clients (client factory) or shared controllers (controller factory): the
// asynchronous ones resolve to it, `forResourceKind` returns it.
const asyncLookups = new Set<PropertyKey>(['forKind', 'forResource', 'forObject']);
const syncLookup = 'forResourceKind';

// The factory method `property` of `target`, with its result passed through `wrap`.
function wrapLookup(
  target: object,
  property: PropertyKey,
  value: (...args: unknown[]) => unknown,
  wrap: (result: never) => unknown,
): unknown {
  if (property === syncLookup) {
    return (...args: unknown[]) => wrap(Reflect.apply(value, target, args) as never);
  }
  if (asyncLookups.has(property)) {
    return async (...args: unknown[]) => wrap((await Reflect.apply(value, target, args)) as never);
  }
  return value.bind(target);
}

/**
 * The client factory seen through `mutate`: `forKind`, `forResource`, `forResourceKind` and `forObject` return
 * `mutate(client)`; everything else (the config, transport, RESTMapper, health, `close`) is the factory's own: a
 * view, not a second factory, so closing it closes the factory. Mutated clients are made once per client.
 *
 * @example
 * ```ts
 * import { createSharedClientFactory, withClientMutator } from '@lasso/factory';
 *
 * const clients = createSharedClientFactory(rest);
 * const audited = withClientMutator(clients, (client) => client.withUserAgent('audit/1.0'));
 * const configMaps = await audited.forKind({ apiVersion: 'v1', kind: 'ConfigMap' });
 * await configMaps.list('default');
 * ```
 */
export function withClientMutator(
  factory: SharedClientFactory,
  mutate: ClientMutator,
): SharedClientFactory {
  if (typeof mutate !== 'function') {
    throw new TypeError('withClientMutator: mutate must be a function of a client');
  }
  const mutated = memoized(mutate);
  return new Proxy(factory, {
    // The target as receiver: its getters and methods use private fields, which a proxy does not have.
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return wrapLookup(target, property, value as (...args: unknown[]) => unknown, mutated);
    },
  });
}

/**
 * lasso `NewSharedClientFactoryWithAgent`: every client the factory hands out sends `userAgent`.
 *
 * @example
 * ```ts
 * import { createSharedClientFactory, sharedClientFactoryWithAgent } from '@lasso/factory';
 *
 * const clients = sharedClientFactoryWithAgent(createSharedClientFactory(rest), 'my-operator/2.1');
 * ```
 */
export function sharedClientFactoryWithAgent(
  factory: SharedClientFactory,
  userAgent: string,
): SharedClientFactory {
  checkAgent(userAgent, 'sharedClientFactoryWithAgent');
  return withClientMutator(factory, (client) => client.withUserAgent(userAgent));
}

/**
 * lasso `NewSharedClientFactoryWithImpersonation`: every client the factory hands out acts as `who`
 * (`Impersonate-User`, `-Group`, `-Extra-*`); the factory's own user needs the `impersonate` verb.
 *
 * @example
 * ```ts
 * import { createSharedClientFactory, sharedClientFactoryWithImpersonation } from '@lasso/factory';
 *
 * const asAlice = sharedClientFactoryWithImpersonation(createSharedClientFactory(rest), {
 *   user: 'alice',
 *   groups: ['dev'],
 * });
 * ```
 */
export function sharedClientFactoryWithImpersonation(
  factory: SharedClientFactory,
  who: Impersonation,
): SharedClientFactory {
  if (typeof who?.user !== 'string' || who.user === '') {
    throw new TypeError('sharedClientFactoryWithImpersonation: user must be a non-empty string');
  }
  return withClientMutator(factory, (client) => client.withImpersonation(who));
}

/**
 * lasso `NewSharedControllerWithAgent`: the shared controller whose `client()` sends `userAgent`; its informer,
 * handlers and queue are the controller's own (reads come from the shared cache, only writes carry the agent).
 *
 * @example
 * ```ts
 * import { createSharedControllerFactoryFromConfig, sharedControllerWithAgent } from '@lasso/factory';
 *
 * const factory = createSharedControllerFactoryFromConfig(rest);
 * const configMaps = sharedControllerWithAgent(
 *   await factory.forKind({ apiVersion: 'v1', kind: 'ConfigMap' }),
 *   'cm-janitor/1.0',
 * );
 * await configMaps.client().list('default');
 * ```
 */
export function sharedControllerWithAgent<T extends KubeObjectLike>(
  controller: SharedController<T>,
  userAgent: string,
): SharedController<T> {
  checkAgent(userAgent, 'sharedControllerWithAgent');
  return withControllerClient(
    controller,
    memoized((client) => client.withUserAgent(userAgent)),
  );
}

/**
 * lasso `NewSharedControllerFactoryWithAgent`: the controller factory whose shared controllers' `client()` send
 * `userAgent` (everything else is the factory's own: a view, so starting or closing it starts or closes the
 * factory).
 *
 * @example
 * ```ts
 * import {
 *   createSharedControllerFactoryFromConfig,
 *   sharedControllerFactoryWithAgent,
 * } from '@lasso/factory';
 *
 * const factory = sharedControllerFactoryWithAgent(
 *   createSharedControllerFactoryFromConfig(rest),
 *   'my-operator/2.1',
 * );
 * ```
 */
export function sharedControllerFactoryWithAgent(
  factory: SharedControllerFactory,
  userAgent: string,
): SharedControllerFactory {
  checkAgent(userAgent, 'sharedControllerFactoryWithAgent');
  const mutate = memoized((client) => client.withUserAgent(userAgent));
  const wrapped = new WeakMap<object, SharedController<KubeObjectLike>>();
  return new Proxy(factory, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return wrapLookup(
        target,
        property,
        value as (...args: unknown[]) => unknown,
        (controller: SharedController<KubeObjectLike>) => {
          let view = wrapped.get(controller);
          if (view === undefined) {
            view = withControllerClient(controller, mutate);
            wrapped.set(controller, view);
          }
          return view;
        },
      );
    },
  });
}

function withControllerClient<T extends KubeObjectLike>(
  controller: SharedController<T>,
  mutate: ClientMutator,
): SharedController<T> {
  return new Proxy(controller, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property === 'client') return () => mutate(target.client());
      if (property === 'withPredicates') {
        return (...args: Parameters<SharedController<T>['withPredicates']>) =>
          withControllerClient(target.withPredicates(...args), mutate);
      }
      return value.bind(target);
    },
  });
}

// One mutated client per client: the factories dedupe clients per resource, and so do their views.
function memoized(mutate: ClientMutator): ClientMutator {
  const made = new WeakMap<object, Client<KubeObjectLike>>();
  return (<T extends KubeObjectLike>(client: Client<T>): Client<T> => {
    let view = made.get(client) as Client<T> | undefined;
    if (view === undefined) {
      view = mutate(client);
      made.set(client, view as unknown as Client<KubeObjectLike>);
    }
    return view;
  }) as ClientMutator;
}

function checkAgent(userAgent: unknown, where: string): void {
  if (typeof userAgent !== 'string' || userAgent === '') {
    throw new TypeError(`${where}: userAgent must be a non-empty string`);
  }
}
