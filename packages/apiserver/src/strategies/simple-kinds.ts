// Kinds kubectl create generates that need nothing of their own beyond kube's PrepareForCreate status reset
// (status becomes its Go zero value, written with every non-omitempty member) or their top-level fields.

import type { Strategy } from '../registry/strategy.ts';
import { builtinStrategy } from './builtin-strategy.ts';

function resetsStatusTo(status: () => Record<string, unknown>): Strategy {
  return {
    ...builtinStrategy,
    prepareForCreate(context, info, object) {
      builtinStrategy.prepareForCreate(context, info, object);
      object.status = status();
    },
  };
}

/** Strategies by `group/resource` of the simple kinds kubectl create generates. */
export const simpleKindStrategies: Record<string, Strategy> = {
  // A PriorityClass keeps its fields at the top level, not under spec.
  'scheduling.k8s.io/priorityclasses': {
    ...builtinStrategy,
    topLevelFields: ['value', 'globalDefault', 'description', 'preemptionPolicy'],
  },
  '/resourcequotas': resetsStatusTo(() => ({})),
  // disruptionsAllowed, currentHealthy, desiredHealthy and expectedPods have no omitempty.
  'policy/poddisruptionbudgets': resetsStatusTo(() => ({
    disruptionsAllowed: 0,
    currentHealthy: 0,
    desiredHealthy: 0,
    expectedPods: 0,
  })),
  // IngressStatus.loadBalancer is a struct, never omitted.
  'networking.k8s.io/ingresses': resetsStatusTo(() => ({ loadBalancer: {} })),
};
