// Type tests: what a handler receives (its ReconcileContext included), that two-argument handlers still fit,
// what the shared controller's lister returns, and which predicates fit which kinds.
import type { SharedIndexInformer } from '@lasso/cache';
import type { KubeObject } from '@lasso/client';
import type { Logger, StopResult } from '@lasso/core';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { describe, expectTypeOf, it } from 'vitest';
import { createController } from './controller.ts';
import type { Controller, Handler, HandOffController } from './controller-types.ts';
import type { LabelSelectorInput } from './label-selector.ts';
import {
  generationChangedPredicate,
  type Predicate,
  type PredicateEvent,
  predicate,
} from './predicates.ts';
import type { ReconcileContext } from './reconcile-context.ts';
import type { SharedController } from './shared-controller.ts';
import type { SharedControllerHandler } from './shared-handler.ts';

type ConfigMapObject = ConfigMap & KubeObject;
declare const informer: SharedIndexInformer<ConfigMapObject>;
declare const shared: SharedController<ConfigMapObject>;
declare const signal: AbortSignal;

describe('Handler', () => {
  it('takes the key, the cached object and a ReconcileContext', () => {
    expectTypeOf<Parameters<Handler<ConfigMapObject>>>().toEqualTypeOf<
      [key: string, object: ConfigMapObject | undefined, context: ReconcileContext]
    >();
    expectTypeOf<ReconcileContext['signal']>().toEqualTypeOf<AbortSignal>();
    expectTypeOf<ReconcileContext['key']>().toEqualTypeOf<string>();
    expectTypeOf<ReconcileContext['logger']>().toEqualTypeOf<Logger>();
  });

  it('accepts handlers of two arguments, and of three', () => {
    const controller = createController('c', informer, undefined, (key, configMap) => {
      expectTypeOf(key).toEqualTypeOf<string>();
      expectTypeOf(configMap).toEqualTypeOf<ConfigMapObject | undefined>();
    });
    expectTypeOf(controller).toEqualTypeOf<HandOffController<ConfigMapObject>>();
    expectTypeOf(controller).toMatchTypeOf<Controller<ConfigMapObject>>();
    createController('c', informer, undefined, async (_key, _configMap, context) => {
      expectTypeOf(context).toEqualTypeOf<ReconcileContext>();
    });
  });

  it('gives the lifecycle shape: stopped() resolves a StopResult, close() and asyncDispose', () => {
    expectTypeOf<ReturnType<Controller<ConfigMapObject>['stopped']>>().toEqualTypeOf<
      Promise<StopResult>
    >();
    expectTypeOf<ReturnType<Controller<ConfigMapObject>['close']>>().toEqualTypeOf<Promise<void>>();
    expectTypeOf<Controller<ConfigMapObject>>().toHaveProperty(Symbol.asyncDispose);
  });
});

describe('SharedController', () => {
  it('hands shared handlers the context and lets them return the object they wrote', () => {
    expectTypeOf<
      Parameters<SharedControllerHandler<ConfigMapObject>>[2]
    >().toEqualTypeOf<ReconcileContext>();
    shared.registerHandler(signal, 'two-arguments', (_key, configMap) => configMap);
    shared.registerHandler(signal, 'three', async (_key, configMap, { signal: reconcile }) => {
      expectTypeOf(reconcile).toEqualTypeOf<AbortSignal>();
      return configMap;
    });
  });

  it('types its lister reads', () => {
    expectTypeOf(shared.get('default', 'app')).toEqualTypeOf<ConfigMapObject | undefined>();
    expectTypeOf(shared.list()).toEqualTypeOf<ConfigMapObject[]>();
    expectTypeOf(shared.list('default', 'app=web')).toEqualTypeOf<ConfigMapObject[]>();
    expectTypeOf(shared.list('default', { matchLabels: { app: 'web' } })).toEqualTypeOf<
      ConfigMapObject[]
    >();
    expectTypeOf(shared.byIndex('namespace', 'default')).toEqualTypeOf<ConfigMapObject[]>();
    expectTypeOf<Parameters<SharedController<ConfigMapObject>['list']>[1]>().toEqualTypeOf<
      LabelSelectorInput | undefined
    >();
    // @ts-expect-error get takes the namespace and the name, not a key
    shared.get('default/app');
  });

  it('takes predicates of its kind or of any object, not of another kind', () => {
    const dataChanged = predicate<ConfigMapObject>(
      (event) => event.type !== 'update' || event.oldObject.data !== event.object.data,
    );
    shared.registerHandler(signal, 'h', () => {}, {
      predicates: [generationChangedPredicate, dataChanged],
    });
    expectTypeOf<PredicateEvent<ConfigMapObject>>().toHaveProperty('object');
    interface Widget extends KubeObject {
      spec: { size: number };
    }
    const widgetsOnly: Predicate<Widget> = predicate<Widget>(({ object }) => object.spec.size > 1);
    // @ts-expect-error a Widget predicate reads fields a ConfigMap does not have
    shared.registerHandler(signal, 'h', () => {}, { predicates: [widgetsOnly] });
  });
});
