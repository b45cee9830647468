// Unit tests of the Icecream reconciler (reconciler.ts) over fake clients, in-memory indexers and a recording
// event recorder: no API server.
import { createIndexer, type Indexer } from '@lasso/cache';
import { ApiError } from '@lasso/client';
import type { EventRecorder, EventType } from '@lasso/controller';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import type { Icecream, IcecreamStatus } from './generated/index.ts';
import { icecreamLabel } from './icecream.ts';
import {
  createIcecreamReconciler,
  desiredDeployment,
  icecreamLabelKeys,
  podIcecreamKeys,
  podsByIcecreamIndex,
  scoopImage,
} from './reconciler.ts';

const now = new Date('2025-03-04T05:06:07.890Z');
/** The context of a reconcile nobody stops. */
const context = { signal: new AbortController().signal };
const nowText = '2025-03-04T05:06:07Z';
const earlier = '2025-01-01T00:00:00Z';

function icecream(overrides: Partial<Icecream> = {}): Icecream {
  return {
    apiVersion: 'example.lasso.dev/v1',
    kind: 'Icecream',
    metadata: { name: 'vanilla', namespace: 'shop', uid: 'uid-vanilla', generation: 3 },
    spec: { flavor: 'vanilla', deploymentName: 'vanilla-scoops', replicas: 2 },
    ...overrides,
  };
}

const otherOwner = {
  apiVersion: 'example.lasso.dev/v1',
  kind: 'Icecream',
  name: 'chocolate',
  uid: 'uid-chocolate',
  controller: true,
};

/** The Deployment the reconciler would create for `owner`, as the server returns it (uid, defaults, status). */
function ownedDeployment(owner: Icecream, available?: number): Deployment {
  const desired = desiredDeployment(owner);
  return {
    ...desired,
    metadata: { ...desired.metadata, uid: 'uid-deployment', resourceVersion: '7' },
    spec: {
      ...desired.spec,
      selector: desired.spec?.selector ?? {},
      template: desired.spec?.template ?? {},
      progressDeadlineSeconds: 600,
      revisionHistoryLimit: 10,
    },
    ...(available === undefined ? {} : { status: { availableReplicas: available } }),
  };
}

function pod(name: string, labels: Record<string, string>, nodeName?: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'shop', labels },
    spec: { containers: [], ...(nodeName === undefined ? {} : { nodeName }) },
  };
}

interface RecordedEvent {
  regarding: string | undefined;
  related: string | undefined;
  type: EventType;
  reason: string;
  action: string;
  note: string;
}

function notFound(): ApiError {
  return new ApiError({ status: 404, reason: 'NotFound' });
}

/** Fakes of everything the reconciler touches; `server` is what the fake API holds (the cache may differ). */
function setup(
  options: {
    cached?: Deployment[];
    server?: Deployment[];
    pods?: Pod[];
    failWith?: unknown;
    /** Called as a Deployment write starts (before it fails with `failWith`). */
    onWrite?: () => void;
  } = {},
) {
  const deploymentCache: Indexer<Deployment> = createIndexer<Deployment>();
  for (const deployment of options.cached ?? []) deploymentCache.add(deployment);
  const podCache = createIndexer<Pod>({ indexers: { [podsByIcecreamIndex]: podIcecreamKeys } });
  for (const p of options.pods ?? []) podCache.add(p);
  const server = new Map<string, Deployment>();
  for (const deployment of options.server ?? options.cached ?? []) {
    server.set(deployment.metadata?.name ?? '', deployment);
  }
  const calls: string[] = [];
  const writes: Deployment[] = [];
  const statuses: Icecream[] = [];
  const events: RecordedEvent[] = [];
  const fail = (): void => {
    options.onWrite?.();
    if (options.failWith !== undefined) throw options.failWith;
  };
  const recorder: EventRecorder = {
    event: (regarding, related, type, reason, action, note) =>
      events.push({
        regarding: regarding.metadata?.name,
        related: related?.metadata?.name,
        type,
        reason,
        action,
        note,
      }),
    flush: async () => {},
    stop: async () => {},
    start: async () => {},
    stopped: async () => ({ drained: true, pending: [] }),
    isRunning: () => true,
    close: async () => {},
    [Symbol.asyncDispose]: async () => {},
  };
  const reconciler = createIcecreamReconciler({
    clients: {
      deployments: {
        get: async (_namespace, name) => {
          calls.push(`get ${name}`);
          const found = server.get(name);
          if (found === undefined) throw notFound();
          return found;
        },
        create: async (_namespace, object) => {
          calls.push(`create ${object.metadata?.name}`);
          fail();
          if (server.has(object.metadata?.name ?? '')) {
            throw new ApiError({ status: 409, reason: 'AlreadyExists' });
          }
          writes.push(object);
          const created = { ...object, metadata: { ...object.metadata, uid: 'uid-new' } };
          server.set(object.metadata?.name ?? '', created);
          return created;
        },
        update: async (_namespace, object) => {
          calls.push(`update ${object.metadata?.name}`);
          fail();
          server.set(object.metadata?.name ?? '', object);
          writes.push(object);
          return object;
        },
        delete: async (_namespace, name) => {
          calls.push(`delete ${name}`);
          if (!server.delete(name)) throw notFound();
        },
      },
      icecreams: {
        updateStatus: async (_namespace, object, requestOptions) => {
          calls.push(`updateStatus ${object.metadata?.name}`);
          requestOptions?.signal?.throwIfAborted();
          statuses.push(object);
          return { ...object, metadata: { ...object.metadata, resourceVersion: 'next' } };
        },
      },
    },
    caches: {
      deployments: { get: (namespace, name) => deploymentCache.getByKey(`${namespace}/${name}`) },
      pods: podCache,
    },
    events: recorder,
    clock: new FakeClock(now.getTime()),
  });
  return { reconciler, calls, writes, statuses, events, server };
}

function ready(status: IcecreamStatus | undefined) {
  return status?.conditions?.find((condition) => condition.type === 'Ready');
}

describe('desiredDeployment', () => {
  it('names the Deployment after spec.deploymentName and makes the Icecream its controller', () => {
    const deployment = desiredDeployment(icecream());
    expect(deployment.metadata).toEqual({
      name: 'vanilla-scoops',
      namespace: 'shop',
      labels: { [icecreamLabel]: 'vanilla', 'app.kubernetes.io/managed-by': 'icecream-operator' },
      ownerReferences: [
        {
          apiVersion: 'example.lasso.dev/v1',
          kind: 'Icecream',
          name: 'vanilla',
          uid: 'uid-vanilla',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
  });

  it('asks for spec.replicas scoops of the flavour, selected by the Icecream label', () => {
    const spec = desiredDeployment(icecream()).spec;
    expect(spec?.replicas).toBe(2);
    expect(spec?.selector).toEqual({ matchLabels: { [icecreamLabel]: 'vanilla' } });
    expect(spec?.template?.metadata?.labels).toMatchObject(
      spec?.selector?.matchLabels as Record<string, string>,
    );
    expect(spec?.template?.spec?.containers).toEqual([
      { name: 'scoop', image: scoopImage, env: [{ name: 'FLAVOR', value: 'vanilla' }] },
    ]);
  });

  it('asks for 0 replicas when the spec has none', () => {
    const { spec: _spec, ...withoutSpec } = icecream();
    // The schema requires spec; an Icecream stored before the schema may still lack it.
    expect(desiredDeployment(withoutSpec as Icecream).spec?.replicas).toBe(0);
  });
});

/** The label value the reconciler gives `object`'s Deployment, read back through the Icecream index. */
function labelValueOf(object: Icecream): string {
  return (icecreamLabelKeys(object)[0] ?? '').split('/')[1] ?? '';
}

describe('icecreamLabelKeys', () => {
  it('keys an Icecream by its namespace and the value of its label', () => {
    expect(icecreamLabelKeys(icecream())).toEqual(['shop/vanilla']);
    expect(icecreamLabelKeys({ metadata: { namespace: 'shop' } } as Icecream)).toEqual([]);
  });
});

describe('podIcecreamKeys', () => {
  it.for([
    {
      name: 'keys a labelled Pod by its Icecream',
      labels: { [icecreamLabel]: 'vanilla' },
      expected: ['shop/vanilla'],
    },
    { name: 'skips a Pod without the label', labels: { app: 'other' }, expected: [] },
    { name: 'skips a Pod whose label is empty', labels: { [icecreamLabel]: '' }, expected: [] },
  ])('$name', ({ labels, expected }) => {
    expect(podIcecreamKeys(pod('p', labels))).toEqual(expected);
  });

  it('skips a Pod without labels', () => {
    expect(podIcecreamKeys({ metadata: { name: 'p', namespace: 'shop' } })).toEqual([]);
  });
});

describe('createIcecreamReconciler', () => {
  describe('reconcile()', () => {
    it('creates the Deployment and reports it progressing when the cache has none', async () => {
      const { reconciler, calls, writes, statuses, events } = setup();
      const result = await reconciler.reconcile('shop/vanilla', icecream(), context);
      expect(calls).toEqual(['create vanilla-scoops', 'updateStatus vanilla']);
      expect(writes[0]).toEqual(desiredDeployment(icecream()));
      expect(events).toEqual([
        {
          regarding: 'vanilla',
          related: 'vanilla-scoops',
          type: 'Normal',
          reason: 'Created',
          action: 'CreateDeployment',
          note: 'Created Deployment vanilla-scoops',
        },
      ]);
      expect(statuses[0]?.status).toEqual({
        availableReplicas: 0,
        nodes: [],
        observedGeneration: 3,
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'ScoopsProgressing',
            message: '0/2 replicas of Deployment vanilla-scoops available',
            lastTransitionTime: nowText,
            observedGeneration: 3,
          },
        ],
      });
      expect(result?.metadata?.resourceVersion).toBe('next');
    });

    it('reads the server when create answers AlreadyExists (the cache lags behind) and writes only the status', async () => {
      const existing = ownedDeployment(icecream());
      const { reconciler, calls, events, statuses } = setup({ server: [existing] });
      await reconciler.reconcile('shop/vanilla', icecream(), context);
      expect(calls).toEqual([
        'create vanilla-scoops',
        'get vanilla-scoops',
        'updateStatus vanilla',
      ]);
      expect(events).toEqual([]);
      expect(ready(statuses[0]?.status)?.reason).toBe('ScoopsProgressing');
    });

    it('adopts a Deployment without a controller and brings it to the spec', async () => {
      const unowned: Deployment = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: {
          name: 'vanilla-scoops',
          namespace: 'shop',
          uid: 'uid-deployment',
          annotations: { team: 'dessert' },
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'notes', uid: 'uid-cm' }],
        },
        spec: {
          replicas: 5,
          selector: { matchLabels: { [icecreamLabel]: 'vanilla' } },
          template: { spec: { containers: [{ name: 'old', image: 'old' }] } },
          minReadySeconds: 4,
        },
      };
      const { reconciler, calls, writes, events } = setup({ cached: [unowned] });
      await reconciler.reconcile('shop/vanilla', icecream(), context);
      expect(calls).toEqual(['update vanilla-scoops', 'updateStatus vanilla']);
      const adopted = writes[0];
      expect(adopted?.metadata?.annotations).toEqual({ team: 'dessert' });
      expect(adopted?.metadata?.ownerReferences).toEqual([
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'notes', uid: 'uid-cm' },
        expect.objectContaining({ kind: 'Icecream', uid: 'uid-vanilla', controller: true }),
      ]);
      expect(adopted?.spec).toEqual({
        ...desiredDeployment(icecream()).spec,
        minReadySeconds: 4,
      });
      expect(events.map((event) => [event.type, event.reason])).toEqual([['Normal', 'Adopted']]);
    });

    it('leaves a Deployment another owner controls alone and reports DeploymentNotOwned', async () => {
      const taken: Deployment = {
        ...ownedDeployment(icecream(), 1),
        metadata: {
          name: 'vanilla-scoops',
          namespace: 'shop',
          uid: 'uid-deployment',
          ownerReferences: [otherOwner],
        },
      };
      const previous = icecream({
        status: { availableReplicas: 1, nodes: ['node-a'], observedGeneration: 2 },
      });
      const { reconciler, calls, statuses, events } = setup({ cached: [taken] });
      await reconciler.reconcile('shop/vanilla', previous, context);
      expect(calls).toEqual(['updateStatus vanilla']);
      expect(events).toEqual([
        {
          regarding: 'vanilla',
          related: 'vanilla-scoops',
          type: 'Warning',
          reason: 'NotOwned',
          action: 'AdoptDeployment',
          note: 'Deployment vanilla-scoops is controlled by Icecream chocolate',
        },
      ]);
      expect(statuses[0]?.status).toEqual({
        availableReplicas: 1,
        nodes: ['node-a'],
        observedGeneration: 3,
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'DeploymentNotOwned',
            message: 'Deployment vanilla-scoops is controlled by Icecream chocolate',
            lastTransitionTime: nowText,
            observedGeneration: 3,
          },
        ],
      });
    });

    it.for([
      {
        name: 'updates the replicas when they drifted',
        change: (d: Deployment): Deployment => ({
          ...d,
          spec: { ...d.spec, replicas: 9 } as never,
        }),
      },
      {
        name: 'updates the flavour when it drifted',
        change: (d: Deployment): Deployment => ({
          ...d,
          spec: {
            ...d.spec,
            template: {
              ...d.spec?.template,
              spec: { containers: [{ name: 'scoop', env: [{ name: 'FLAVOR', value: 'mint' }] }] },
            },
          } as never,
        }),
      },
      {
        name: 'updates the template label when it drifted',
        change: (d: Deployment): Deployment => ({
          ...d,
          spec: {
            ...d.spec,
            template: { ...d.spec?.template, metadata: { labels: { [icecreamLabel]: 'mint' } } },
          } as never,
        }),
      },
    ])('$name', async ({ change }) => {
      const drifted = change(ownedDeployment(icecream(), 0));
      const { reconciler, calls, writes, events } = setup({ cached: [drifted] });
      await reconciler.reconcile('shop/vanilla', icecream(), context);
      expect(calls[0]).toBe('update vanilla-scoops');
      const updated = writes[0];
      expect(updated?.spec).toEqual({
        ...drifted.spec,
        ...desiredDeployment(icecream()).spec,
      });
      // Fields the operator does not own stay: the uid/resourceVersion for the conflict check, the defaults.
      expect(updated?.metadata?.resourceVersion).toBe('7');
      expect(updated?.spec?.progressDeadlineSeconds).toBe(600);
      expect(events).toEqual([
        expect.objectContaining({
          type: 'Normal',
          reason: 'Updated',
          action: 'UpdateDeployment',
          note: 'Updated Deployment vanilla-scoops to 2 replicas',
        }),
      ]);
    });

    it('does not write the Deployment when only fields it does not own differ', async () => {
      const defaulted = ownedDeployment(icecream(), 2);
      const container = defaulted.spec?.template?.spec?.containers?.[0];
      const withDefaults: Deployment = {
        ...defaulted,
        spec: {
          ...defaulted.spec,
          selector: defaulted.spec?.selector ?? {},
          template: {
            ...defaulted.spec?.template,
            spec: {
              restartPolicy: 'Always',
              containers: [{ ...container, name: 'scoop', imagePullPolicy: 'IfNotPresent' }],
            },
          },
        },
      };
      const { reconciler, calls, events } = setup({ cached: [withDefaults] });
      await reconciler.reconcile('shop/vanilla', icecream(), context);
      expect(calls).toEqual(['updateStatus vanilla']);
      expect(events).toEqual([]);
    });

    it('reports available replicas and the sorted nodes of its own Pods, Ready once all are available', async () => {
      const { reconciler, statuses } = setup({
        cached: [ownedDeployment(icecream(), 2)],
        pods: [
          pod('vanilla-1', { [icecreamLabel]: 'vanilla' }, 'node-b'),
          pod('vanilla-2', { [icecreamLabel]: 'vanilla' }, 'node-a'),
          pod('vanilla-3', { [icecreamLabel]: 'vanilla' }, 'node-b'),
          pod('vanilla-pending', { [icecreamLabel]: 'vanilla' }),
          pod('chocolate-1', { [icecreamLabel]: 'chocolate' }, 'node-c'),
          pod('unrelated', { app: 'other' }, 'node-d'),
        ],
      });
      await reconciler.reconcile('shop/vanilla', icecream(), context);
      expect(statuses[0]?.status).toEqual({
        availableReplicas: 2,
        nodes: ['node-a', 'node-b'],
        observedGeneration: 3,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'ScoopsAvailable',
            message: '2/2 replicas of Deployment vanilla-scoops available',
            lastTransitionTime: nowText,
            observedGeneration: 3,
          },
        ],
      });
    });

    it('keeps lastTransitionTime when the Ready status stays the same', async () => {
      const previous = icecream({
        status: {
          availableReplicas: 1,
          nodes: [],
          observedGeneration: 2,
          conditions: [
            {
              type: 'Ready',
              status: 'False',
              reason: 'ScoopsProgressing',
              message: '0/2 replicas of Deployment vanilla-scoops available',
              lastTransitionTime: earlier,
              observedGeneration: 2,
            },
          ],
        },
      });
      const { reconciler, statuses } = setup({ cached: [ownedDeployment(icecream(), 1)] });
      await reconciler.reconcile('shop/vanilla', previous, context);
      expect(ready(statuses[0]?.status)).toEqual({
        type: 'Ready',
        status: 'False',
        reason: 'ScoopsProgressing',
        message: '1/2 replicas of Deployment vanilla-scoops available',
        lastTransitionTime: earlier,
        observedGeneration: 3,
      });
    });

    it('moves lastTransitionTime when the Ready status changes', async () => {
      const previous = icecream({
        status: {
          conditions: [
            {
              type: 'Ready',
              status: 'False',
              reason: 'ScoopsProgressing',
              message: '1/2',
              lastTransitionTime: earlier,
            },
          ],
        },
      });
      const { reconciler, statuses } = setup({ cached: [ownedDeployment(icecream(), 2)] });
      await reconciler.reconcile('shop/vanilla', previous, context);
      expect(ready(statuses[0]?.status)).toMatchObject({
        status: 'True',
        lastTransitionTime: nowText,
      });
    });

    it('writes no status and returns nothing when the status is already what it would write', async () => {
      const first = setup({ cached: [ownedDeployment(icecream(), 2)] });
      await first.reconciler.reconcile('shop/vanilla', icecream(), context);
      const written = first.statuses[0] as Icecream;
      const { reconciler, calls } = setup({ cached: [ownedDeployment(icecream(), 2)] });
      await expect(reconciler.reconcile('shop/vanilla', written, context)).resolves.toBeUndefined();
      expect(calls).toEqual([]);
    });

    it('writes no status when the server sent the same status with its keys in another order', async () => {
      // A real kube-apiserver stores custom resources as maps and returns their keys sorted.
      const sortedKeys = icecream({
        status: {
          availableReplicas: 2,
          conditions: [
            {
              lastTransitionTime: earlier,
              message: '2/2 replicas of Deployment vanilla-scoops available',
              observedGeneration: 3,
              reason: 'ScoopsAvailable',
              status: 'True',
              type: 'Ready',
            },
          ],
          nodes: [],
          observedGeneration: 3,
        },
      });
      const { reconciler, calls } = setup({ cached: [ownedDeployment(icecream(), 2)] });
      await expect(
        reconciler.reconcile('shop/vanilla', sortedKeys, context),
      ).resolves.toBeUndefined();
      expect(calls).toEqual([]);
    });

    it('reports ReconcileFailed in the Ready condition and an Event, and rethrows for a retry', async () => {
      const failure = new ApiError({ status: 500, message: 'etcd is on holiday' });
      const drifted = ownedDeployment(icecream({ spec: { ...icecream().spec!, replicas: 1 } }));
      const previous = icecream({
        status: {
          availableReplicas: 1,
          nodes: ['node-a'],
          observedGeneration: 2,
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'ScoopsAvailable',
              message: '1/1',
              lastTransitionTime: earlier,
              observedGeneration: 2,
            },
          ],
        },
      });
      const { reconciler, statuses, events } = setup({ cached: [drifted], failWith: failure });
      await expect(reconciler.reconcile('shop/vanilla', previous, context)).rejects.toBe(failure);
      expect(events).toEqual([
        expect.objectContaining({
          type: 'Warning',
          reason: 'ReconcileFailed',
          note: 'etcd is on holiday',
        }),
      ]);
      // The rest of the status stays what it was; the condition says what went wrong, for this generation.
      expect(statuses[0]?.status).toEqual({
        availableReplicas: 1,
        nodes: ['node-a'],
        observedGeneration: 3,
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'ReconcileFailed',
            message: 'etcd is on holiday',
            lastTransitionTime: nowText,
            observedGeneration: 3,
          },
        ],
      });
    });

    it('clears the failure (Ready=True) once a reconcile succeeds', async () => {
      const failed = icecream({
        status: {
          observedGeneration: 3,
          conditions: [
            {
              type: 'Ready',
              status: 'False',
              reason: 'ReconcileFailed',
              message: 'etcd is on holiday',
              lastTransitionTime: earlier,
              observedGeneration: 3,
            },
          ],
        },
      });
      const { reconciler, statuses } = setup({ cached: [ownedDeployment(icecream(), 2)] });
      await reconciler.reconcile('shop/vanilla', failed, context);
      expect(ready(statuses[0]?.status)).toEqual({
        type: 'Ready',
        status: 'True',
        reason: 'ScoopsAvailable',
        message: '2/2 replicas of Deployment vanilla-scoops available',
        lastTransitionTime: nowText,
        observedGeneration: 3,
      });
    });

    it('reports a Deployment the server refuses (422) as DeploymentInvalid and does not retry', async () => {
      const invalid = new ApiError({
        status: 422,
        reason: 'Invalid',
        message: 'spec.template: bad',
      });
      const { reconciler, statuses, events } = setup({ failWith: invalid });
      await expect(reconciler.reconcile('shop/vanilla', icecream(), context)).resolves.toEqual(
        expect.objectContaining({ metadata: expect.objectContaining({ resourceVersion: 'next' }) }),
      );
      expect(ready(statuses[0]?.status)).toEqual({
        type: 'Ready',
        status: 'False',
        reason: 'DeploymentInvalid',
        message: 'Deployment vanilla-scoops refused by the API server: spec.template: bad',
        lastTransitionTime: nowText,
        observedGeneration: 3,
      });
      expect(events.map((event) => [event.type, event.reason])).toEqual([
        ['Warning', 'ReconcileFailed'],
      ]);
    });

    it('writes nothing more once its signal aborted during a write (stop, leadership lost)', async () => {
      const stop = new AbortController();
      const failure = new Error('aborted');
      const { reconciler, calls, statuses, events } = setup({
        failWith: failure,
        onWrite: () => stop.abort(new Error('leadership lost')),
      });
      await expect(
        reconciler.reconcile('shop/vanilla', icecream(), { signal: stop.signal }),
      ).rejects.toBe(failure);
      expect(calls).toEqual(['create vanilla-scoops']);
      expect(statuses).toEqual([]);
      expect(events).toEqual([]);
    });

    it('refuses a spec.deploymentName whose ReplicaSet names would be invalid (InvalidSpec)', async () => {
      const long = icecream({ spec: { ...icecream().spec!, deploymentName: 'd'.repeat(243) } });
      const { reconciler, calls, statuses } = setup();
      await reconciler.reconcile('shop/vanilla', long, context);
      expect(calls).toEqual(['updateStatus vanilla']);
      expect(ready(statuses[0]?.status)).toMatchObject({
        status: 'False',
        reason: 'InvalidSpec',
        message:
          "invalid spec: spec.deploymentName is longer than 242 characters: its ReplicaSets' names would be invalid",
      });
    });

    it('labels and selects the Pods of an Icecream whose name is longer than 63 characters with a valid value', async () => {
      const name = `${'a'.repeat(60)}.b-${'c'.repeat(70)}`;
      const long = icecream({
        metadata: { ...icecream().metadata, name },
        spec: { ...icecream().spec!, deploymentName: `${name}-scoops` },
      });
      const label = labelValueOf(long);
      const { reconciler, writes, statuses } = setup({
        pods: [pod('p-1', { [icecreamLabel]: label }, 'node-a')],
      });
      await reconciler.reconcile('shop/vanilla', long, context);
      const created = writes[0];
      expect(created?.metadata?.name).toBe(`${name}-scoops`);
      expect(created?.metadata?.labels?.[icecreamLabel]).toBe(label);
      expect(created?.spec?.selector?.matchLabels).toEqual({ [icecreamLabel]: label });
      expect(created?.spec?.template?.metadata?.labels?.[icecreamLabel]).toBe(label);
      expect(label).toMatch(/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/);
      expect(label.length).toBeLessThanOrEqual(63);
      expect(statuses[0]?.status?.nodes).toEqual(['node-a']);
    });
  });

  describe('cleanup()', () => {
    const deleting = icecream({
      metadata: { ...icecream().metadata, deletionTimestamp: nowText },
    });

    it('deletes the Deployment it controls and records Deleted', async () => {
      const { reconciler, calls, server, events } = setup({
        cached: [ownedDeployment(icecream())],
      });
      await reconciler.cleanup('shop/vanilla', deleting, context);
      expect(calls).toEqual(['delete vanilla-scoops']);
      expect(server.size).toBe(0);
      expect(events).toEqual([
        {
          regarding: 'vanilla',
          related: 'vanilla-scoops',
          type: 'Normal',
          reason: 'Deleted',
          action: 'DeleteDeployment',
          note: 'Deleted Deployment vanilla-scoops',
        },
      ]);
    });

    it('asks the server when the cache has not seen the Deployment yet', async () => {
      const { reconciler, calls, server } = setup({ server: [ownedDeployment(icecream())] });
      await reconciler.cleanup('shop/vanilla', deleting, context);
      expect(calls).toEqual(['get vanilla-scoops', 'delete vanilla-scoops']);
      expect(server.size).toBe(0);
    });

    it.for([
      { name: 'another owner controls', ownerReferences: [otherOwner] },
      { name: 'has no controller', ownerReferences: [] },
    ])('leaves a Deployment alone that $name', async ({ ownerReferences }) => {
      const foreign: Deployment = {
        ...ownedDeployment(icecream()),
        metadata: { name: 'vanilla-scoops', namespace: 'shop', ownerReferences },
      };
      const { reconciler, calls, server, events } = setup({ cached: [foreign] });
      await reconciler.cleanup('shop/vanilla', deleting, context);
      expect(calls).toEqual([]);
      expect(server.size).toBe(1);
      expect(events).toEqual([]);
    });

    it('returns quietly when the Deployment is already gone', async () => {
      const { reconciler, calls, events } = setup();
      await expect(reconciler.cleanup('shop/vanilla', deleting, context)).resolves.toBeUndefined();
      expect(calls).toEqual(['get vanilla-scoops']);
      expect(events).toEqual([]);
    });

    it('returns quietly when the cached Deployment was deleted meanwhile', async () => {
      const { reconciler, calls, events } = setup({
        cached: [ownedDeployment(icecream())],
        server: [],
      });
      await expect(reconciler.cleanup('shop/vanilla', deleting, context)).resolves.toBeUndefined();
      expect(calls).toEqual(['delete vanilla-scoops']);
      expect(events).toEqual([]);
    });
  });
});

// A CRD installed without its schema (or an Icecream stored before it) lets any JSON through: the reconciler
// reports it on the object instead of failing without a word.
describe('an invalid spec', () => {
  /** An Icecream whose spec the CRD's schema would refuse. */
  function invalid(spec: unknown): Icecream {
    return { ...icecream(), spec: spec as NonNullable<Icecream['spec']> };
  }
  const valid = icecream().spec;

  it.for([
    {
      name: 'a deploymentName that is a number',
      spec: { ...valid, deploymentName: 42 },
      message: 'spec.deploymentName must be a string (a DNS subdomain), got number 42',
    },
    {
      name: 'a deploymentName that is an array',
      spec: { ...valid, deploymentName: ['a', 'b'] },
      message: 'spec.deploymentName must be a string (a DNS subdomain), got an array',
    },
    {
      name: 'a deploymentName that is not a DNS name',
      spec: { ...valid, deploymentName: 'Vanilla_Scoops' },
      message: 'spec.deploymentName must be a DNS subdomain',
    },
    {
      name: 'a missing deploymentName',
      spec: { flavor: 'vanilla', replicas: 2 },
      message: 'spec.deploymentName must be a string (a DNS subdomain), got none',
    },
    {
      name: 'replicas given as a string',
      spec: { ...valid, replicas: '3' },
      message: 'spec.replicas must be an integer from 0 to 100, got "3"',
    },
    {
      name: 'fractional replicas',
      spec: { ...valid, replicas: 1.5 },
      message: 'spec.replicas must be an integer from 0 to 100, got number 1.5',
    },
    {
      name: 'an empty flavor',
      spec: { ...valid, flavor: '' },
      message: 'spec.flavor must be a string of 1 to 63 characters, got ""',
    },
    { name: 'a missing spec', spec: undefined, message: 'spec must be an object, got none' },
    { name: 'a spec that is a string', spec: 'vanilla', message: 'spec must be an object' },
  ])(
    'reports $name as Ready=False InvalidSpec naming the field, with a Warning Event',
    async ({ spec, message }) => {
      const { reconciler, calls, statuses, events } = setup();
      const warnings: Array<[string, unknown]> = [];
      const logger = {
        ...createTestLogger(),
        warn: (text: string, attributes?: Record<string, unknown>) =>
          warnings.push([text, attributes?.problems]),
      };
      await expect(
        reconciler.reconcile('shop/vanilla', invalid(spec), { ...context, logger }),
      ).resolves.toEqual(expect.objectContaining({ status: expect.anything() }));
      // No Deployment read or written: only the status.
      expect(calls).toEqual(['updateStatus vanilla']);
      const condition = ready(statuses[0]?.status);
      expect(condition).toMatchObject({
        status: 'False',
        reason: 'InvalidSpec',
        observedGeneration: 3,
        lastTransitionTime: nowText,
      });
      expect(condition?.message).toContain(message);
      expect(condition?.message).toMatch(/^invalid spec: spec/);
      expect(events).toEqual([
        {
          regarding: 'vanilla',
          related: undefined,
          type: 'Warning',
          reason: 'InvalidSpec',
          action: 'ValidateSpec',
          note: condition?.message,
        },
      ]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.[0]).toContain('invalid spec');
      expect(String(warnings[0]?.[1])).toContain(message);
    },
  );

  it('names every bad field in one message', async () => {
    const { reconciler, statuses } = setup();
    await reconciler.reconcile(
      'shop/vanilla',
      invalid({ flavor: 7, deploymentName: [], replicas: -1 }),
      context,
    );
    const text = ready(statuses[0]?.status)?.message ?? '';
    expect(text).toContain('spec.deploymentName');
    expect(text).toContain('spec.flavor');
    expect(text).toContain('spec.replicas');
  });

  it('is reported once per spec: the reconcile of its own status write writes and records nothing', async () => {
    const { reconciler, calls, statuses, events } = setup();
    const bad = invalid({ ...valid, deploymentName: 42 });
    const written = await reconciler.reconcile('shop/vanilla', bad, context);
    expect(written).toBeDefined();
    // The status write is an update event: its reconcile sees the same condition.
    await expect(
      reconciler.reconcile('shop/vanilla', written as Icecream, context),
    ).resolves.toBeUndefined();
    expect(calls).toEqual(['updateStatus vanilla']);
    expect(statuses).toHaveLength(1);
    expect(events).toHaveLength(1);
    // A new generation with the same mistake is reported again (observedGeneration moves).
    const next = {
      ...(written as Icecream),
      metadata: { ...(written as Icecream).metadata, generation: 4 },
    };
    await reconciler.reconcile('shop/vanilla', next, context);
    expect(statuses).toHaveLength(2);
    expect(ready(statuses[1]?.status)?.observedGeneration).toBe(4);
  });

  it('never throws on a hostile spec value', async () => {
    const { reconciler, statuses } = setup();
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    await reconciler.reconcile(
      'shop/vanilla',
      invalid({ ...valid, deploymentName: revoked.proxy, replicas: Symbol('x') }),
      context,
    );
    expect(ready(statuses[0]?.status)?.message).toContain('spec.deploymentName');
  });

  it('cleans up nothing for an invalid deploymentName (no Deployment was made for it)', async () => {
    const { reconciler, calls, events } = setup({ cached: [ownedDeployment(icecream())] });
    for (const deploymentName of [42, ['vanilla-scoops'], 'Not_A_Name', undefined]) {
      await reconciler.cleanup('shop/vanilla', invalid({ ...valid, deploymentName }), context);
    }
    await reconciler.cleanup('shop/vanilla', invalid(undefined), context);
    expect(calls).toEqual([]);
    expect(events).toEqual([]);
  });
});
