// The two kinds the soak churns and reconciles: ConfigMaps and the soak's own custom resource, Widget.
import type { GroupVersionKind, GroupVersionResource } from '@lasso/client';

/** `soak.lasso.dev/v1, Kind=Widget`, namespaced, with a free-form `spec`. */
export const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.soak.lasso.dev' },
  spec: {
    group: 'soak.lasso.dev',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

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

/** The payload key holding the wall-clock ms just before the write was sent (for write-to-handler lag). */
export const writtenAtKey = 'writtenAt';
/** The soak's namespaces: `soak-0` .. `soak-{n-1}`. */
export function soakNamespaces(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `soak-${index}`);
}

/** Lease timing of the leader-election soak: short, so that a takeover takes seconds. */
export const leaseTiming = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };
