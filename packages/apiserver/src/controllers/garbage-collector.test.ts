import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './__fixtures__/harness.ts';

const cms = '/api/v1/namespaces/default/configmaps';
const secrets = '/api/v1/namespaces/default/secrets';
let harness: Harness;

afterEach(() => {
  harness?.manager.stop();
  // Nothing the controllers did failed.
  expect(harness?.warnings).toEqual([]);
});

function owner(name: string): { uid: string; ref: (block?: boolean) => object } {
  const created = harness.send('POST', cms, { metadata: { name } });
  expect(created.code).toBe(201);
  const uid = created.body.metadata.uid as string;
  return {
    uid,
    ref: (block) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name,
      uid,
      ...(block === undefined ? {} : { blockOwnerDeletion: block }),
    }),
  };
}

function dependent(name: string, ...ownerReferences: object[]): void {
  const created = harness.send('POST', secrets, { metadata: { name, ownerReferences } });
  expect(created.code).toBe(201);
}

const exists = (path: string): boolean => harness.send('GET', path).code === 200;

describe('garbage collector', () => {
  it('deletes dependents after their owner is deleted (background), not during the DELETE', async () => {
    harness = startHarness({ garbageCollector: true });
    const parent = owner('parent');
    dependent('child-a', parent.ref());
    dependent('child-b', parent.ref());
    expect(harness.send('DELETE', `${cms}/parent`).code).toBe(200);
    // The DELETE answered; the dependents go afterwards, as on a real cluster.
    expect(exists(`${secrets}/child-a`)).toBe(true);
    await harness.settled();
    expect(exists(`${secrets}/child-a`)).toBe(false);
    expect(exists(`${secrets}/child-b`)).toBe(false);
  });

  it('keeps a dependent while another owner remains, dropping the gone owner from it', async () => {
    harness = startHarness({ garbageCollector: true });
    const first = owner('first');
    const second = owner('second');
    dependent('shared', first.ref(), second.ref());
    harness.send('DELETE', `${cms}/first`);
    await harness.settled();
    const live = harness.send('GET', `${secrets}/shared`);
    expect(live.code).toBe(200);
    expect(live.body.metadata.ownerReferences.map((ref: any) => ref.name)).toEqual(['second']);
    harness.send('DELETE', `${cms}/second`);
    await harness.settled();
    expect(exists(`${secrets}/shared`)).toBe(false);
  });

  it('treats an owner with another uid, or one that never existed, as absent', async () => {
    harness = startHarness({ garbageCollector: true });
    const original = owner('recreated');
    harness.send('DELETE', `${cms}/recreated`);
    owner('recreated'); // same name, new uid
    dependent('stale', original.ref());
    dependent('orphaned', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'never',
      uid: 'no-such-uid',
    });
    await harness.settled();
    expect(exists(`${secrets}/stale`)).toBe(false);
    expect(exists(`${secrets}/orphaned`)).toBe(false);
    expect(exists(`${cms}/recreated`)).toBe(true);
  });

  it('leaves a dependent whose owner kind is not served', async () => {
    harness = startHarness({ garbageCollector: true });
    dependent('unknown-kind', { apiVersion: 'example.com/v1', kind: 'Gizmo', name: 'g', uid: 'u' });
    // With one reference it cannot resolve, kube acts on none of them (it retries the item).
    const gone = { apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', uid: 'gone-uid' };
    dependent('mixed', { apiVersion: 'example.com/v1', kind: 'Gizmo', name: 'g', uid: 'u' }, gone);
    await harness.settled();
    expect(exists(`${secrets}/unknown-kind`)).toBe(true);
    const mixed = harness.send('GET', `${secrets}/mixed`).body;
    expect(mixed.metadata.ownerReferences).toHaveLength(2);
  });

  it('deletes in foreground: dependents first, blocking ones hold the owner, then the owner goes', async () => {
    harness = startHarness({ garbageCollector: true });
    const parent = owner('fg');
    dependent('blocker', parent.ref(true));
    dependent('free', parent.ref(false));
    // The blocker itself waits for a finalizer of its own.
    harness.send(
      'PATCH',
      `${secrets}/blocker`,
      { metadata: { finalizers: ['example.com/hold'] } },
      'application/merge-patch+json',
    );
    const deleted = harness.send('DELETE', `${cms}/fg`, { propagationPolicy: 'Foreground' });
    expect(deleted.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(deleted.body.metadata.deletionTimestamp).toBe('2030-01-02T03:04:05Z');
    await harness.settled();
    expect(exists(`${secrets}/free`)).toBe(false);
    const blocker = harness.send('GET', `${secrets}/blocker`).body;
    expect(blocker.metadata.deletionTimestamp).toBeDefined();
    expect(harness.send('GET', `${cms}/fg`).body.metadata.finalizers).toEqual([
      'foregroundDeletion',
    ]);
    harness.send(
      'PATCH',
      `${secrets}/blocker`,
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
    await harness.settled();
    expect(exists(`${secrets}/blocker`)).toBe(false);
    expect(exists(`${cms}/fg`)).toBe(false);
  });

  it('breaks a cycle of blocking references in foreground deletion, as kube does', async () => {
    harness = startHarness({ garbageCollector: true });
    const a = owner('cycle-a');
    const b = harness.send('POST', cms, {
      metadata: { name: 'cycle-b', ownerReferences: [a.ref(true)] },
    }).body;
    const bRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cycle-b', uid: b.metadata.uid };
    harness.send(
      'PATCH',
      `${cms}/cycle-a`,
      { metadata: { ownerReferences: [{ ...bRef, blockOwnerDeletion: true }] } },
      'application/merge-patch+json',
    );
    harness.send('DELETE', `${cms}/cycle-a`, { propagationPolicy: 'Foreground' });
    await harness.settled();
    expect(exists(`${cms}/cycle-a`)).toBe(false);
    expect(exists(`${cms}/cycle-b`)).toBe(false);
  });

  it('removes foregroundDeletion at once from an owner without blocking dependents', async () => {
    harness = startHarness({ garbageCollector: true });
    owner('lonely');
    harness.send('DELETE', `${cms}/lonely`, { propagationPolicy: 'Foreground' });
    expect(exists(`${cms}/lonely`)).toBe(true);
    await harness.settled();
    expect(exists(`${cms}/lonely`)).toBe(false);
  });

  it('orphans: removes the owner reference from dependents, then the orphan finalizer', async () => {
    harness = startHarness({ garbageCollector: true });
    const parent = owner('orphaner');
    const other = owner('other');
    dependent('kept', parent.ref(true), other.ref());
    const deleted = harness.send('DELETE', `${cms}/orphaner`, { propagationPolicy: 'Orphan' });
    expect(deleted.body.metadata.finalizers).toEqual(['orphan']);
    await harness.settled();
    expect(exists(`${cms}/orphaner`)).toBe(false);
    const kept = harness.send('GET', `${secrets}/kept`).body;
    expect(kept.metadata.ownerReferences.map((ref: any) => ref.name)).toEqual(['other']);
    // The removed reference is no longer owned by anyone.
    expect(JSON.stringify(kept.metadata.managedFields)).not.toContain(parent.uid);
  });

  it('cascades through levels and honours a dependent that asks to orphan its own dependents', async () => {
    harness = startHarness({ garbageCollector: true });
    const top = owner('top');
    const middle = harness.send('POST', cms, {
      metadata: { name: 'middle', ownerReferences: [top.ref()], finalizers: ['orphan'] },
    }).body;
    const middleRef = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'middle',
      uid: middle.metadata.uid,
    };
    dependent('leaf', middleRef);
    harness.send('DELETE', `${cms}/top`);
    await harness.settled();
    expect(exists(`${cms}/middle`)).toBe(false);
    const leaf = harness.send('GET', `${secrets}/leaf`);
    expect(leaf.code).toBe(200);
    expect(leaf.body.metadata.ownerReferences).toBeUndefined();
  });

  it('lets a namespaced dependent have a cluster-scoped owner; a cluster-scoped one naming a namespaced kind is left', async () => {
    harness = startHarness({ garbageCollector: true });
    const ns = harness.send('POST', '/api/v1/namespaces', { metadata: { name: 'owner-ns' } }).body;
    const nsRef = { apiVersion: 'v1', kind: 'Namespace', name: 'owner-ns', uid: ns.metadata.uid };
    dependent('cluster-owned', nsRef);
    const parent = owner('namespaced-owner');
    const pc = harness.send('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', {
      metadata: { name: 'invalid-owner', ownerReferences: [parent.ref()] },
      value: 10,
    });
    expect(pc.code).toBe(201);
    await harness.settled();
    expect(exists(`${secrets}/cluster-owned`)).toBe(true);
    harness.send('DELETE', `${cms}/namespaced-owner`);
    await harness.settled();
    expect(exists('/apis/scheduling.k8s.io/v1/priorityclasses/invalid-owner')).toBe(true);
  });

  it('orphans the dependents of a batch/v1 Job deleted without a policy (its default), not with Background', async () => {
    harness = startHarness({ garbageCollector: true });
    const jobs = '/apis/batch/v1/namespaces/default/jobs';
    const job = (name: string) => ({
      metadata: { name },
      spec: {
        template: {
          spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
        },
      },
    });
    const ref = (created: any) => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      name: created.metadata.name,
      uid: created.metadata.uid,
    });
    const defaulted = harness.send('POST', jobs, job('defaulted')).body;
    const background = harness.send('POST', jobs, job('background')).body;
    dependent('of-defaulted', ref(defaulted));
    dependent('of-background', ref(background));
    expect(harness.send('DELETE', `${jobs}/defaulted`).body.metadata.finalizers).toEqual([
      'orphan',
    ]);
    harness.send('DELETE', `${jobs}/background`, { propagationPolicy: 'Background' });
    await harness.settled();
    expect(exists(`${jobs}/defaulted`)).toBe(false);
    expect(
      harness.send('GET', `${secrets}/of-defaulted`).body.metadata.ownerReferences,
    ).toBeUndefined();
    expect(exists(`${secrets}/of-background`)).toBe(false);
  });

  it('does nothing when off (the default), and nothing after stop', async () => {
    harness = startHarness({});
    const parent = owner('off');
    dependent('stays', parent.ref());
    harness.send('DELETE', `${cms}/off`);
    await harness.settled();
    expect(exists(`${secrets}/stays`)).toBe(true);
    harness.manager.stop();
    harness = startHarness({ garbageCollector: true });
    harness.manager.stop();
    const again = owner('stopped');
    dependent('stays-too', again.ref());
    harness.send('DELETE', `${cms}/stopped`);
    await harness.settled();
    expect(exists(`${secrets}/stays-too`)).toBe(true);
  });

  it('catches up at start with what became due while it did not run', async () => {
    harness = startHarness({ garbageCollector: true });
    harness.manager.stop();
    const parent = owner('while-stopped');
    dependent('due', parent.ref());
    harness.send('DELETE', `${cms}/while-stopped`);
    expect(exists(`${secrets}/due`)).toBe(true);
    harness.manager.start();
    await harness.settled();
    expect(exists(`${secrets}/due`)).toBe(false);
  });
});
