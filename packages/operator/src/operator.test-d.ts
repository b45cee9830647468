// Types of the operator runtime: it is a Lifecycle, and forKind hands back typed shared controllers with no cast.
import type { KubeObject } from '@lasso/client';
import type { SharedController, ShutdownOutcome } from '@lasso/controller';
import type { Lifecycle, StopResult } from '@lasso/core';
import { kindFor } from '@lasso/factory';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { describe, expectTypeOf, it } from 'vitest';
import { createOperator, type Operator, type OperatorStatus } from './index.ts';

declare const operator: Operator;

describe('Operator types', () => {
  it('is a Lifecycle', () => {
    expectTypeOf<Operator>().toExtend<Lifecycle>();
    expectTypeOf(operator.start).parameters.toEqualTypeOf<[AbortSignal]>();
    expectTypeOf(operator.stopped()).resolves.toEqualTypeOf<StopResult>();
    expectTypeOf(operator[Symbol.asyncDispose]).returns.resolves.toBeVoid();
    expectTypeOf(operator.run()).resolves.toEqualTypeOf<ShutdownOutcome>();
  });

  it('types forKind from the kind token, built-in or custom', async () => {
    expectTypeOf(await operator.forKind(kindFor('v1', 'ConfigMap'))).toEqualTypeOf<
      SharedController<ConfigMap>
    >();
    expectTypeOf(await operator.forKind(kindFor('apps/v1', 'Deployment'))).toEqualTypeOf<
      SharedController<Deployment>
    >();
    interface Widget extends KubeObject {
      spec?: { size?: number };
    }
    const widgets = kindFor<Widget>('example.com/v1', 'Widget', {
      resource: 'widgets',
      namespaced: true,
    });
    const controller = await operator.forKind(widgets);
    expectTypeOf(controller).toEqualTypeOf<SharedController<Widget>>();
    expectTypeOf(controller.get('ns', 'name')?.spec?.size).toEqualTypeOf<number | undefined>();
  });

  it('takes only its options', () => {
    expectTypeOf(createOperator).returns.resolves.toEqualTypeOf<Operator>();
    // @ts-expect-error a port is a number
    void createOperator({ health: { port: '8081' } });
    // @ts-expect-error leader election names its Lease
    void createOperator({ leaderElection: { namespace: 'default' } });
    expectTypeOf(operator.status()).toEqualTypeOf<OperatorStatus>();
  });
});
