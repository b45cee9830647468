// The two kinds the soak churns and reconciles: ConfigMaps and the soak's own custom resource, Widget.
import type { GroupVersionKind, GroupVersionResource } from '@lasso/client';
import { testCrd } from '@lasso/envtest';

// Any `spec` the writers put.
const freeFormSpec = {
  type: 'object',
  properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
};

/** `soak.lasso.dev/v1, Kind=Widget`, namespaced, with a free-form `spec`. */
export const widgetCrd = testCrd({ group: 'soak.lasso.dev', schema: freeFormSpec });

/** One churned kind: how to address it and where its payload lives. */
export interface SoakKind {
  /** Short name in the report. */
  name: string;
  gvk: GroupVersionKind;
  gvr: GroupVersionResource;
  /** The field holding the writer's payload (`data` of a ConfigMap, `spec` of a Widget). */
  field: 'data' | 'spec';
}

export const soakKinds: readonly SoakKind[] = [
  {
    name: 'ConfigMap',
    gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
    gvr: { group: '', version: 'v1', resource: 'configmaps' },
    field: 'data',
  },
  {
    name: 'Widget',
    gvk: { group: 'soak.lasso.dev', version: 'v1', kind: 'Widget' },
    gvr: { group: 'soak.lasso.dev', version: 'v1', resource: 'widgets' },
    field: 'spec',
  },
];

/** The group of the outage soak's extra kinds (`Gadget0` ... in `outage.soak.lasso.dev/v1`). */
export const gadgetGroup = 'outage.soak.lasso.dev';

/** The CRD of `Gadget{index}`: namespaced, free-form `spec`, like Widget. */
export function gadgetCrd(index: number) {
  return testCrd({ group: gadgetGroup, kind: `Gadget${index}`, schema: freeFormSpec });
}

/**
 * The outage soak's `count` kinds: ConfigMap, Widget, then `Gadget0` ... (each needs its {@link gadgetCrd}).
 */
export function outageKinds(count: number): SoakKind[] {
  const gadgets = Array.from({ length: Math.max(0, count - soakKinds.length) }, (_, index) => ({
    name: `Gadget${index}`,
    gvk: { group: gadgetGroup, version: 'v1', kind: `Gadget${index}` },
    gvr: { group: gadgetGroup, version: 'v1', resource: `gadget${index}s` },
    field: 'spec' as const,
  }));
  return [...soakKinds, ...gadgets].slice(0, count);
}

/** The name of the object the outage soak creates in every kind once the server answers again. */
export const outageMarker = 'after-outage';

/** The outage soak's kinds: 50, as issue 26 measures. */
export const outageKindCount = 50;

/** The payload key holding the wall-clock ms just before the write was sent (for write-to-handler lag). */
export const writtenAtKey = 'writtenAt';
/** The soak's namespaces: `soak-0` .. `soak-{n-1}`. */
export function soakNamespaces(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `soak-${index}`);
}

/** Lease timing of the leader-election soak: short, so that a takeover takes seconds. */
export const leaseTiming = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };
