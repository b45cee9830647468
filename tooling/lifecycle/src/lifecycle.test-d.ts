// Every long-lived lasso type is a `Lifecycle` (issue 30): start(signal), stopped(), isRunning(), close() and
// Symbol.asyncDispose, checked by the compiler rather than promised in prose. A type that drifts from the shape
// (a required second argument to start, a missing stopped()) fails `pnpm test` here.
import type { ApiServer } from '@lasso/apiserver';
import type { SharedIndexInformer } from '@lasso/cache';
import type { KubeObject } from '@lasso/client';
import type { Controller, EventRecorder, LeaderElector, SharedController } from '@lasso/controller';
import type { Lifecycle, StopResult } from '@lasso/core';
import type { DynamicController } from '@lasso/dynamic';
import type { SharedCacheFactory, SharedControllerFactory } from '@lasso/factory';
import type { Operator } from '@lasso/operator';
import type { SqlCacheFactory } from '@lasso/sqlcache';
import type { WebhookServer } from '@lasso/webhook';
import { describe, expectTypeOf, it } from 'vitest';

describe('every long-lived type is a Lifecycle', () => {
  it('cache: the informer and the cache factory', () => {
    expectTypeOf<SharedIndexInformer<KubeObject>>().toExtend<Lifecycle>();
    expectTypeOf<SharedCacheFactory>().toExtend<Lifecycle>();
  });

  it('controller: the controller, the shared controller, the controller factory', () => {
    expectTypeOf<Controller<KubeObject>>().toExtend<Lifecycle>();
    expectTypeOf<SharedController<KubeObject>>().toExtend<Lifecycle>();
    expectTypeOf<SharedControllerFactory>().toExtend<Lifecycle>();
  });

  it('the leader elector and the event recorder', () => {
    expectTypeOf<LeaderElector>().toExtend<Lifecycle>();
    expectTypeOf<EventRecorder>().toExtend<Lifecycle>();
  });

  it('the API server, the dynamic controller, the SQL cache factory, the webhook server, the operator', () => {
    expectTypeOf<ApiServer>().toExtend<Lifecycle>();
    expectTypeOf<DynamicController>().toExtend<Lifecycle>();
    expectTypeOf<SqlCacheFactory>().toExtend<Lifecycle>();
    expectTypeOf<WebhookServer>().toExtend<Lifecycle>();
    expectTypeOf<Operator>().toExtend<Lifecycle>();
  });

  it("a controller keeps lasso's start(signal, workers) with the count optional", () => {
    expectTypeOf<Controller<KubeObject>['start']>().toBeCallableWith(new AbortController().signal);
    expectTypeOf<Controller<KubeObject>['start']>().toBeCallableWith(
      new AbortController().signal,
      2,
    );
    expectTypeOf<SharedControllerFactory['start']>().toBeCallableWith(new AbortController().signal);
    expectTypeOf<Controller<KubeObject>['stopped']>().returns.toEqualTypeOf<Promise<StopResult>>();
  });

  it('one whenSynced({ signal }) across the informer and both factories', () => {
    const signal = new AbortController().signal;
    expectTypeOf<SharedIndexInformer<KubeObject>['whenSynced']>().toBeCallableWith({ signal });
    expectTypeOf<SharedCacheFactory['whenSynced']>().toBeCallableWith({ signal });
    expectTypeOf<SharedControllerFactory['whenSynced']>().toBeCallableWith({ signal });
  });
});
