import { describe, expect, it } from 'vitest';
import {
  type ApplyConflict,
  applyConflictCauses,
  applyConflictMessage,
  serverSideApply,
  trackUpdate,
} from './server-side-apply.ts';
import { strategicSchemaFor } from './strategic-merge-patch.ts';

type Obj = Record<string, unknown>;
const t1 = '2026-01-01T00:00:00Z';
const t2 = '2026-01-01T00:01:00Z';
const t3 = '2026-01-01T00:02:00Z';
const deploymentSchema = strategicSchemaFor('apps/v1', 'Deployment') ?? {};

const managed = (object: Obj): Array<Record<string, unknown>> =>
  ((object.metadata as Obj).managedFields as Array<Record<string, unknown>> | undefined) ?? [];
const fieldsOf = (object: Obj, manager: string, operation = 'Apply'): unknown =>
  managed(object).find((entry) => entry.manager === manager && entry.operation === operation)
    ?.fieldsV1;

function configMap(data: Record<string, string>, labels?: Record<string, string>): Obj {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cm', namespace: 'default', ...(labels === undefined ? {} : { labels }) },
    data,
  };
}

function deployment(replicas: number | undefined, containers: Array<Obj>): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      ...(replicas === undefined ? {} : { replicas }),
      template: { spec: { containers } },
    },
  };
}

function scale(replicas: number): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: { replicas },
  };
}

// What the server adds on create, so later applies see a realistic live object.
function persisted(object: Obj): Obj {
  return {
    ...object,
    metadata: {
      ...(object.metadata as Obj),
      uid: 'u-1',
      resourceVersion: '5',
      creationTimestamp: t1,
    },
  };
}

describe('serverSideApply', () => {
  it('creates the object and records the applied fields, never the server-owned ones', () => {
    const { object, conflicts } = serverSideApply(undefined, configMap({ a: '1' }, { app: 'x' }), {
      fieldManager: 'kubectl',
      force: false,
      time: t1,
    });
    expect(conflicts).toEqual([]);
    expect(object.data).toEqual({ a: '1' });
    expect(managed(object)).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: t1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
      },
    ]);
  });

  it('keys merged list items by their merge key with a "." member', () => {
    const { object } = serverSideApply(
      undefined,
      deployment(2, [{ name: 'app', image: 'app:1' }]),
      {
        fieldManager: 'kubectl',
        force: false,
        time: t1,
        schema: deploymentSchema,
      },
    );
    expect(fieldsOf(object, 'kubectl')).toEqual({
      'f:spec': {
        'f:replicas': {},
        'f:template': {
          'f:spec': {
            'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } },
          },
        },
      },
    });
  });

  it('reports a conflict with another manager owning a field with a different value', () => {
    const live = persisted(
      serverSideApply(undefined, deployment(2, [{ name: 'app', image: 'app:1' }]), {
        fieldManager: 'kubectl',
        force: false,
        time: t1,
        schema: deploymentSchema,
      }).object,
    );
    const result = serverSideApply(live, scale(3), {
      fieldManager: 'autoscaler',
      force: false,
      time: t2,
      schema: deploymentSchema,
    });
    expect(result.conflicts).toEqual([
      { manager: 'kubectl', field: '.spec.replicas', operation: 'Apply', apiVersion: 'apps/v1' },
    ]);
    expect(result.object).toEqual(live);
    expect(applyConflictMessage(result.conflicts)).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas',
    );
  });

  it('takes ownership with force and leaves the other manager its remaining fields', () => {
    const live = persisted(
      serverSideApply(undefined, deployment(2, [{ name: 'app', image: 'app:1' }]), {
        fieldManager: 'kubectl',
        force: false,
        time: t1,
        schema: deploymentSchema,
      }).object,
    );
    const { object, conflicts } = serverSideApply(live, scale(3), {
      fieldManager: 'autoscaler',
      force: true,
      time: t2,
      schema: deploymentSchema,
    });
    expect(conflicts).toEqual([]);
    expect((object.spec as Obj).replicas).toBe(3);
    expect(fieldsOf(object, 'autoscaler')).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(fieldsOf(object, 'kubectl')).toEqual({
      'f:spec': {
        'f:template': {
          'f:spec': {
            'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } },
          },
        },
      },
    });
    expect((object.metadata as Obj).uid).toBe('u-1');
    expect((object.metadata as Obj).resourceVersion).toBe('5');
  });

  it('shares ownership when another manager applies the same value', () => {
    const live = persisted(
      serverSideApply(undefined, configMap({ a: '1' }), {
        fieldManager: 'one',
        force: false,
        time: t1,
      }).object,
    );
    const { object, conflicts } = serverSideApply(live, configMap({ a: '1' }), {
      fieldManager: 'two',
      force: false,
      time: t2,
    });
    expect(conflicts).toEqual([]);
    expect(fieldsOf(object, 'one')).toEqual({ 'f:data': { 'f:a': {} } });
    expect(fieldsOf(object, 'two')).toEqual({ 'f:data': { 'f:a': {} } });
    // Dropping a shared field keeps it: the other manager still owns it.
    const dropped = serverSideApply(persisted(object), configMap({}), {
      fieldManager: 'two',
      force: false,
      time: t3,
    });
    expect(dropped.object.data).toEqual({ a: '1' });
  });

  it('removes fields the manager applied before and omits now', () => {
    const first = persisted(
      serverSideApply(undefined, configMap({ a: '1', b: '2' }, { keep: 'x', drop: 'y' }), {
        fieldManager: 'kubectl',
        force: false,
        time: t1,
      }).object,
    );
    const { object } = serverSideApply(first, configMap({ a: '1' }, { keep: 'x' }), {
      fieldManager: 'kubectl',
      force: false,
      time: t2,
    });
    expect(object.data).toEqual({ a: '1' });
    expect((object.metadata as Obj).labels).toEqual({ keep: 'x' });
    expect(managed(object)).toHaveLength(1);
    expect(managed(object)[0]?.time).toBe(t2);
  });

  it('removes an omitted list item and merges the applied ones into the live list', () => {
    const live = persisted(
      serverSideApply(
        undefined,
        deployment(1, [
          { name: 'app', image: 'app:1' },
          { name: 'sidecar', image: 'side:1' },
        ]),
        { fieldManager: 'kubectl', force: false, time: t1, schema: deploymentSchema },
      ).object,
    );
    const { object } = serverSideApply(live, deployment(1, [{ name: 'app', image: 'app:2' }]), {
      fieldManager: 'kubectl',
      force: false,
      time: t2,
      schema: deploymentSchema,
    });
    const containers = ((object.spec as Obj).template as { spec: { containers: unknown } }).spec
      .containers;
    expect(containers).toEqual([{ name: 'app', image: 'app:2' }]);
  });

  it("keeps an omitted list item another manager has fields in, removing only this manager's fields", () => {
    const applied = persisted(
      serverSideApply(undefined, deployment(1, [{ name: 'app', image: 'app:1' }]), {
        fieldManager: 'kubectl',
        force: false,
        time: t1,
        schema: deploymentSchema,
      }).object,
    );
    const withEnv = persisted(
      serverSideApply(
        applied,
        deployment(undefined, [{ name: 'app', env: [{ name: 'A', value: '1' }] }]),
        {
          fieldManager: 'injector',
          force: false,
          time: t2,
          schema: deploymentSchema,
        },
      ).object,
    );
    const before = structuredClone(withEnv);
    const { object } = serverSideApply(withEnv, deployment(1, []), {
      fieldManager: 'kubectl',
      force: false,
      time: t3,
      schema: deploymentSchema,
    });
    expect(withEnv).toEqual(before);
    const containers = ((object.spec as Obj).template as { spec: { containers: unknown } }).spec
      .containers;
    expect(containers).toEqual([{ name: 'app', env: [{ name: 'A', value: '1' }] }]);
  });

  it('conflicts with an Update manager and names its apiVersion', () => {
    const created = trackUpdate(undefined, persisted(configMap({ a: '1' })), {
      fieldManager: 'kubectl-create',
      operation: 'Update',
      time: t1,
    });
    const result = serverSideApply(created, configMap({ a: '2' }), {
      fieldManager: 'kubectl',
      force: false,
      time: t2,
    });
    expect(result.conflicts).toEqual([
      { manager: 'kubectl-create', field: '.data.a', operation: 'Update', apiVersion: 'v1' },
    ]);
    expect(applyConflictMessage(result.conflicts)).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.a',
    );
  });

  it('merges finalizers as a set and records them as v: items', () => {
    const schema = strategicSchemaFor('v1', 'ConfigMap') ?? {};
    const live = persisted({
      ...configMap({}),
      metadata: { name: 'cm', namespace: 'default', finalizers: ['a/x'] },
    });
    const { object } = serverSideApply(
      live,
      { ...configMap({}), metadata: { name: 'cm', namespace: 'default', finalizers: ['b/y'] } },
      { fieldManager: 'ctrl', force: false, time: t1, schema },
    );
    expect((object.metadata as Obj).finalizers).toEqual(['a/x', 'b/y']);
    expect(fieldsOf(object, 'ctrl')).toEqual({
      'f:data': {},
      'f:metadata': { 'f:finalizers': { 'v:"b/y"': {} } },
    });
  });

  it('applies only the status of a status subresource apply and ignores configured fields', () => {
    const live = persisted(configMap({ a: '1' }));
    const { object } = serverSideApply(
      live,
      { ...configMap({ a: 'changed' }), status: { phase: 'Ready' } },
      { fieldManager: 'ctrl', force: false, time: t1, subresource: 'status' },
    );
    expect(object.data).toEqual({ a: '1' });
    expect(object.status).toEqual({ phase: 'Ready' });
    expect(managed(object)).toEqual([
      expect.objectContaining({
        manager: 'ctrl',
        subresource: 'status',
        fieldsV1: { 'f:status': { 'f:phase': {} } },
      }),
    ]);
    const ignored = serverSideApply(
      live,
      { ...configMap({ a: '1' }), status: { phase: 'X' } },
      {
        fieldManager: 'kubectl',
        force: false,
        time: t1,
        ignoredFields: ['status'],
      },
    );
    expect(ignored.object.status).toBeUndefined();
  });

  it('rejects an empty field manager', () => {
    expect(() =>
      serverSideApply(undefined, configMap({}), { fieldManager: '', force: false, time: t1 }),
    ).toThrow(TypeError);
  });
});

describe('trackUpdate', () => {
  it('gives the creating manager every field', () => {
    const object = trackUpdate(undefined, persisted(configMap({ a: '1' }, { app: 'x' })), {
      fieldManager: 'creator',
      operation: 'Update',
      time: t1,
    });
    expect(managed(object)).toEqual([
      {
        manager: 'creator',
        operation: 'Update',
        apiVersion: 'v1',
        time: t1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
      },
    ]);
  });

  it('moves changed fields to the updating manager and leaves unchanged ones', () => {
    const created = trackUpdate(undefined, persisted(configMap({ a: '1', b: '2' })), {
      fieldManager: 'creator',
      operation: 'Update',
      time: t1,
    });
    const updated = trackUpdate(
      created,
      { ...created, data: { a: '1', b: 'changed', c: 'new' } },
      { fieldManager: 'editor', operation: 'Update', time: t2 },
    );
    expect(fieldsOf(updated, 'creator', 'Update')).toEqual({ 'f:data': { 'f:a': {} } });
    expect(fieldsOf(updated, 'editor', 'Update')).toEqual({ 'f:data': { 'f:b': {}, 'f:c': {} } });
    expect(managed(updated).map((entry) => entry.manager)).toEqual(['creator', 'editor']);
  });

  it('drops removed fields from every manager and removes managers left with nothing', () => {
    const created = trackUpdate(undefined, persisted(configMap({ a: '1' })), {
      fieldManager: 'creator',
      operation: 'Update',
      time: t1,
    });
    const updated = trackUpdate(
      created,
      { ...created, data: {} },
      { fieldManager: 'editor', operation: 'Update', time: t2 },
    );
    expect(managed(updated).map((entry) => entry.manager)).toEqual(['editor']);
    expect(fieldsOf(updated, 'editor', 'Update')).toEqual({ 'f:data': {} });
  });

  it('does not add an entry for an update that changes nothing', () => {
    const created = trackUpdate(undefined, persisted(configMap({ a: '1' })), {
      fieldManager: 'creator',
      operation: 'Update',
      time: t1,
    });
    const same = trackUpdate(created, structuredClone(created), {
      fieldManager: 'noop',
      operation: 'Update',
      time: t2,
    });
    expect(managed(same)).toEqual(managed(created));
  });

  it('keeps a status subresource entry apart from the main one', () => {
    const created = trackUpdate(undefined, persisted(configMap({ a: '1' })), {
      fieldManager: 'ctrl',
      operation: 'Update',
      time: t1,
    });
    const updated = trackUpdate(
      created,
      { ...created, status: { ready: true } },
      { fieldManager: 'ctrl', operation: 'Update', time: t2, subresource: 'status' },
    );
    expect(managed(updated)).toEqual([
      expect.objectContaining({ manager: 'ctrl', fieldsV1: { 'f:data': { 'f:a': {} } } }),
      expect.objectContaining({
        manager: 'ctrl',
        subresource: 'status',
        fieldsV1: { 'f:status': { 'f:ready': {} } },
      }),
    ]);
  });

  it('takes a field from an Apply manager when an update changes it, so the next apply conflicts', () => {
    const applied = persisted(
      serverSideApply(undefined, configMap({ a: '1' }), {
        fieldManager: 'kubectl',
        force: false,
        time: t1,
      }).object,
    );
    const edited = trackUpdate(
      applied,
      { ...applied, data: { a: 'edited' } },
      {
        fieldManager: 'editor',
        operation: 'Update',
        time: t2,
      },
    );
    expect(managed(edited).map((entry) => entry.manager)).toEqual(['editor']);
    const reapplied = serverSideApply(edited, configMap({ a: '1' }), {
      fieldManager: 'kubectl',
      force: false,
      time: t3,
    });
    expect(reapplied.conflicts.map((c) => c.field)).toEqual(['.data.a']);
  });
});

describe('applyConflictMessage', () => {
  it('groups several conflicts by sorted manager as kube-apiserver does', () => {
    const conflicts: ApplyConflict[] = [
      { manager: 'zeta', field: '.spec.replicas', operation: 'Apply' },
      { manager: 'alpha', field: '.data.a', operation: 'Update', apiVersion: 'v1' },
      { manager: 'zeta', field: '.spec.paused', operation: 'Apply' },
    ];
    expect(applyConflictMessage(conflicts)).toBe(
      'Apply failed with 3 conflicts: conflicts with "alpha" using v1:\n- .data.a\nconflicts with "zeta":\n- .spec.replicas\n- .spec.paused',
    );
    expect(applyConflictCauses(conflicts)[1]).toEqual({
      type: 'FieldManagerConflict',
      message: 'conflict with "alpha" using v1',
      field: '.data.a',
    });
  });
});
