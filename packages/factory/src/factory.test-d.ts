// Type tests: the built-in table types what forKind returns without casts; custom resources take a generic.
import type { SharedIndexInformer } from '@lasso/cache';
import { Client, type KubeObject, type RestConfig } from '@lasso/client';
import type { SharedController } from '@lasso/controller';
import type { Lifecycle, StopResult } from '@lasso/core';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import { describe, expectTypeOf, it } from 'vitest';
import { type Kind, kindFor, kindOf } from './kind.ts';
import { createSharedCacheFactory } from './shared-cache-factory.ts';
import { createSharedClientFactory } from './shared-client-factory.ts';
import { createSharedControllerFactoryFromConfig } from './shared-controller-factory.ts';

declare const rest: RestConfig;
declare const signal: AbortSignal;
const factory = createSharedControllerFactoryFromConfig(rest);

interface Widget extends KubeObject {
  spec?: { size?: number };
}

describe('SharedControllerFactory', () => {
  it('types a built-in kind from the table, handlers included', async () => {
    const deployments = await factory.forKind({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expectTypeOf(deployments).toEqualTypeOf<SharedController<Deployment>>();
    deployments.registerHandler(signal, 'scale', async (key, deployment) => {
      expectTypeOf(deployment).toEqualTypeOf<Deployment | undefined>();
      expectTypeOf(deployment?.spec?.replicas).toEqualTypeOf<number | undefined>();
      if (deployment === undefined) return undefined;
      const cached = deployments.informer().getStore().getByKey(key);
      expectTypeOf(cached).toEqualTypeOf<Deployment | undefined>();
      return deployments.client().update(deployment.metadata?.namespace, deployment);
    });
    expectTypeOf(deployments.client()).toEqualTypeOf<Client<Deployment>>();
  });

  it('types the core group (group "")', async () => {
    const configMaps = await factory.forKind({ group: '', version: 'v1', kind: 'ConfigMap' });
    expectTypeOf(configMaps).toEqualTypeOf<SharedController<ConfigMap>>();
  });

  it('takes a custom resource type from the generic parameter', async () => {
    const widgets = await factory.forKind<Widget>({
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
    });
    expectTypeOf(widgets).toEqualTypeOf<SharedController<Widget>>();
    widgets.registerHandler(signal, 'size', (_key, widget) => {
      expectTypeOf(widget?.spec?.size).toEqualTypeOf<number | undefined>();
    });
    const resource = factory.forResourceKind<Widget>(
      { group: 'example.com', version: 'v1', resource: 'widgets' },
      'Widget',
      true,
    );
    expectTypeOf(resource).toEqualTypeOf<SharedController<Widget>>();
  });

  it('gives an unknown kind without a generic KubeObject, never any', async () => {
    const unknown = await factory.forKind({ group: 'example.com', version: 'v1', kind: 'Widget' });
    expectTypeOf(unknown).toEqualTypeOf<SharedController<KubeObject>>();
    const untyped = await factory.forResource(
      { group: 'example.com', version: 'v1', resource: 'widgets' },
      true,
    );
    expectTypeOf(untyped).toEqualTypeOf<SharedController<KubeObject>>();
  });

  it('types forObject from a typed object or from literal apiVersion and kind', async () => {
    const fromTyped = await factory.forObject({} as Pod);
    expectTypeOf(fromTyped).toEqualTypeOf<SharedController<Pod>>();
    const fromLiteral = await factory.forObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
    expectTypeOf(fromLiteral).toEqualTypeOf<SharedController<Deployment>>();
  });

  it('keeps the handler type exact', async () => {
    const deployments = await factory.forKind({ group: 'apps', version: 'v1', kind: 'Deployment' });
    deployments.registerHandler(signal, 'exact', (_key, deployment) => {
      // @ts-expect-error a Deployment has no `data` (KubeObject's index signature would allow it)
      void deployment?.data;
    });
    const onConfigMap = (_key: string, _configMap: ConfigMap | undefined) => undefined;
    // @ts-expect-error a handler of ConfigMaps cannot be registered on Deployments
    deployments.registerHandler(signal, 'wrong', onConfigMap);
  });

  it('refuses a malformed gvk', () => {
    // @ts-expect-error kind is required
    void factory.forKind({ group: 'apps', version: 'v1' });
  });
});

describe('SharedCacheFactory and SharedClientFactory', () => {
  it('type informers and clients from the table too', async () => {
    const clients = createSharedClientFactory(rest);
    const caches = createSharedCacheFactory(clients);
    expectTypeOf(
      await clients.forKind({ group: 'apps', version: 'v1', kind: 'Deployment' }),
    ).toEqualTypeOf<Client<Deployment>>();
    expectTypeOf(await caches.forKind({ group: '', version: 'v1', kind: 'Pod' })).toEqualTypeOf<
      SharedIndexInformer<Pod>
    >();
    expectTypeOf(
      await caches.forKind<Widget>({ group: 'example.com', version: 'v1', kind: 'Widget' }),
    ).toEqualTypeOf<SharedIndexInformer<Widget>>();
    expectTypeOf(await caches.waitForCacheSync(signal)).toEqualTypeOf<Map<string, boolean>>();
  });
});

describe('Kind tokens', () => {
  it('carry a built-in type from the table, in either spelling', async () => {
    const deployments = kindFor('apps/v1', 'Deployment');
    expectTypeOf(deployments).toEqualTypeOf<Kind<Deployment>>();
    expectTypeOf(await factory.forKind(deployments)).toEqualTypeOf<SharedController<Deployment>>();
    expectTypeOf(await factory.forKind({ apiVersion: 'v1', kind: 'ConfigMap' })).toEqualTypeOf<
      SharedController<ConfigMap>
    >();
    // Not a built-in kind: KubeObject until a custom resource names its type.
    expectTypeOf(kindFor('example.com/v1', 'Widget')).toEqualTypeOf<Kind<KubeObject>>();
  });

  it('flow a custom type from one declaration: Client<T> -> informer -> handler, without casts', async () => {
    const widgetsClient = new Client<Widget>({
      gvr: { group: 'example.com', version: 'v1', resource: 'widgets' },
      kind: 'Widget',
      namespaced: true,
      rest,
    });
    const widgets = kindOf(widgetsClient);
    expectTypeOf(widgets).toEqualTypeOf<Kind<Widget>>();
    const caches = createSharedCacheFactory(createSharedClientFactory(rest));
    const informer = await caches.forKind(widgets);
    expectTypeOf(informer).toEqualTypeOf<SharedIndexInformer<Widget>>();
    informer.addEventHandler({
      onAdd: (widget) => {
        expectTypeOf(widget.spec?.size).toEqualTypeOf<number | undefined>();
      },
    });
    const controller = await factory.forKind(widgets);
    controller.registerHandler(signal, 'size', (_key, widget, context) => {
      expectTypeOf(widget).toEqualTypeOf<Widget | undefined>();
      expectTypeOf(context.signal).toEqualTypeOf<AbortSignal>();
    });
    expectTypeOf(controller.client()).toEqualTypeOf<Client<Widget>>();
    const declared = kindFor<Widget>('example.com/v1', 'Widget', {
      resource: 'widgets',
      namespaced: true,
    });
    expectTypeOf(await factory.forKind(declared)).toEqualTypeOf<SharedController<Widget>>();
    const onConfigMap = (_key: string, _configMap: ConfigMap | undefined) => undefined;
    // @ts-expect-error a handler of ConfigMaps cannot be registered on the token's Widgets
    controller.registerHandler(signal, 'wrong', onConfigMap);
  });
});

describe('lifecycle shape', () => {
  it('matches @lasso/core Lifecycle for the cache factory, and start(signal, workers) for controllers', () => {
    const caches = createSharedCacheFactory(createSharedClientFactory(rest));
    expectTypeOf(caches).toMatchTypeOf<Lifecycle>();
    expectTypeOf(factory.stopped()).toEqualTypeOf<Promise<StopResult>>();
    expectTypeOf(factory.start).parameter(0).toEqualTypeOf<AbortSignal>();
    expectTypeOf(factory.close()).toEqualTypeOf<Promise<void>>();
  });
});
