// The operator with exactly the permissions of manifests/rbac.yaml (moved to the test's namespace), as a
// ServiceAccount whose token comes from the TokenRequest API: the whole reconcile flow, Events and the Lease
// included, must work with them. Every mode enforces RBAC: the built-in server, kube-apiserver, a cluster.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  clientFor,
  createRestConfig,
  isForbidden,
  type RestConfig,
  restTransportFor,
} from '@lasso/client';
import type { ServiceAccount } from 'kubernetes-types/core/v1.js';
import type {
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
} from 'kubernetes-types/rbac/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  icecream,
  isReadyAt,
  observe,
  readyCondition,
  runOperator,
  runSimulatedWorkload,
  startCluster,
  type TestCluster,
} from './helpers.ts';

const rbacPath = fileURLToPath(new URL('../manifests/rbac.yaml', import.meta.url));

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.stop();
});

type RbacObject = { kind?: string; metadata?: { name?: string; namespace?: string } } & Record<
  string,
  unknown
>;

/**
 * The manifests of rbac.yaml moved from icecream-system to `namespace`, with the cluster-wide ClusterRole and
 * ClusterRoleBinding renamed after `namespace` (so tests do not share them).
 */
function rbacManifests(namespace: string): RbacObject[] {
  const documents = parseAllDocuments(readFileSync(rbacPath, 'utf8')).map(
    (document) => document.toJS() as RbacObject,
  );
  const moved = JSON.parse(
    JSON.stringify(documents).replaceAll(
      '"namespace":"icecream-system"',
      `"namespace":"${namespace}"`,
    ),
  ) as RbacObject[];
  const clusterWide = (name: string | undefined): string => `${name}-${namespace}`;
  return moved.map((object) => {
    if (object.kind === 'ClusterRole') {
      return {
        ...object,
        metadata: { ...object.metadata, name: clusterWide(object.metadata?.name) },
      };
    }
    if (object.kind === 'ClusterRoleBinding') {
      const roleRef = object.roleRef as { name: string };
      return {
        ...object,
        metadata: { ...object.metadata, name: clusterWide(object.metadata?.name) },
        roleRef: { ...roleRef, name: clusterWide(roleRef.name) },
      };
    }
    return object;
  });
}

/**
 * Whether a log entry's text (message and attributes as JSON) reports an RBAC refusal: the word "forbidden"
 * (kube-apiserver's messages and the client's "403 Forbidden") or a status/code field of 403. Nothing else
 * counts, since the text holds generated and measured values: the namespace (`rbac-<pid>-<n>`, taken out
 * wherever it appears: a pid of 403 would read as the status), keys, durations and counts.
 */
function isRefusal(text: string, namespace: string): boolean {
  const scrubbed = text.replaceAll(namespace, '<namespace>');
  return /\bforbidden\b/i.test(scrubbed) || /"(?:status|code|statusCode)":"?403\b/.test(scrubbed);
}

/** Create the manifests with the admin config; returns a RestConfig authenticated as the ServiceAccount. */
async function serviceAccountConfig(namespace: string): Promise<RestConfig> {
  const manifests = rbacManifests(namespace);
  const kinds = manifests.map((object) => object.kind);
  expect(kinds).toEqual([
    'ServiceAccount',
    'ClusterRole',
    'ClusterRoleBinding',
    'Role',
    'RoleBinding',
  ]);
  const rest = cluster.rest;
  for (const object of manifests) {
    switch (object.kind) {
      case 'ServiceAccount':
        await clientFor(rest, { apiVersion: 'v1', kind: 'ServiceAccount' }).create(
          namespace,
          object as unknown as ServiceAccount,
        );
        break;
      case 'ClusterRole':
        await clientFor(rest, {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
        }).create(undefined, object as unknown as ClusterRole);
        break;
      case 'ClusterRoleBinding': {
        const binding = object as unknown as ClusterRoleBinding;
        // The roleRef names the ClusterRole renamed above.
        expect(binding.roleRef.name).toBe(`icecream-operator-${namespace}`);
        await clientFor(rest, {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
        }).create(undefined, binding);
        break;
      }
      case 'Role':
        await clientFor(rest, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' }).create(
          namespace,
          object as unknown as Role,
        );
        break;
      case 'RoleBinding':
        await clientFor(rest, {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
        }).create(namespace, object as unknown as RoleBinding);
        break;
    }
  }
  const request = await restTransportFor(rest).requestJson<{ status?: { token?: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/icecream-operator/token`,
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    },
  });
  const token = request.status?.token;
  expect(token).toBeTruthy();
  return createRestConfig({
    server: rest.server,
    // The CA only: the admin's client certificate would authenticate before the token.
    tls: { caPem: rest.tls?.caPem, serverName: rest.tls?.serverName },
    auth: { type: 'token', token: token as string },
  });
}

describe('the refusal filter of the log check', () => {
  it('counts the word forbidden and a 403 status, not digits of generated or measured values', () => {
    const namespace = 'rbac-403-1';
    expect(isRefusal('events.events.k8s.io is Forbidden: User cannot create {}', namespace)).toBe(
      true,
    );
    expect(isRefusal('event write failed {"status":403}', namespace)).toBe(true);
    expect(isRefusal('event write failed {"code":"403"}', namespace)).toBe(true);
    expect(isRefusal(`watch restarted {"key":"${namespace}/vanilla"}`, namespace)).toBe(false);
    expect(isRefusal(`x {"path":"/api/v1/namespaces/${namespace}/pods"}`, namespace)).toBe(false);
    expect(isRefusal('relisting {"delayMs":403,"resourceVersion":"403"}', namespace)).toBe(false);
  });
});

describe('manifests/rbac.yaml', () => {
  it('lets the operator reconcile, record Events and hold the Lease with only these permissions', async () => {
    const namespace = await cluster.namespace('rbac');
    const restricted = await serviceAccountConfig(namespace);
    const simulated = await runSimulatedWorkload(cluster.env, cluster.rest);
    const icecreams = await observe(cluster.icecreams, namespace);
    const deployments = await observe(cluster.deployments, namespace);
    const events = await observe(cluster.events, namespace);
    try {
      // RBAC is enforced: the ServiceAccount may not read what the role does not name.
      const secrets = clientFor(restricted, { apiVersion: 'v1', kind: 'Secret' });
      await expect(secrets.list(namespace)).rejects.toSatisfy(isForbidden);

      const running = await runOperator({
        rest: restricted,
        namespace,
        leaderElection: {
          namespace,
          name: 'icecream-operator',
          identity: 'restricted',
          // Long enough that a stall under CI load does not cost the Lease (which would stop the operator).
          leaseDurationMs: 15_000,
          renewDeadlineMs: 10_000,
          retryPeriodMs: 200,
        },
      });
      try {
        await running.logger.untilLogged('controller factory started');
        await cluster.icecreams.create(namespace, icecream(namespace, 'vanilla'));
        await icecreams.untilObject('vanilla', (o) => isReadyAt(o, 2), 'Ready with 2 replicas');
        await cluster.icecreams.patch(namespace, 'vanilla', 'merge', { spec: { replicas: 1 } });
        await icecreams.untilObject('vanilla', (o) => isReadyAt(o, 1), 'Ready with 1 replica');
        await cluster.icecreams.delete(namespace, 'vanilla');
        await icecreams.untilGone('vanilla');
        await deployments.untilGone('vanilla-scoops');
        await events.until(
          () =>
            ['Created', 'Updated', 'Deleted'].every((reason) =>
              events.list().some((event) => event.reason === reason),
            ),
          'Created, Updated and Deleted events',
        );
      } finally {
        await running.stop();
      }
      // Nothing was refused along the way (a refused Event or Lease write is only logged).
      // A server without streaming lists answers them 422 with "Forbidden" in its causes (kube-apiserver before
      // 1.27): that is the list strategy's fallback, not an RBAC refusal.
      const refused = running.logger.entries.filter(
        (entry) =>
          entry.level !== 'debug' &&
          !entry.message.startsWith('the server refused the streaming list') &&
          isRefusal(`${entry.message} ${JSON.stringify(entry.attributes)}`, namespace),
      );
      expect(refused).toEqual([]);
      const lease = await clientFor(cluster.rest, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
      }).get(namespace, 'icecream-operator');
      expect(lease.spec?.holderIdentity ?? '').toBe('');
    } finally {
      await Promise.all([icecreams.stop(), deployments.stop(), events.stop()]);
      await simulated.stop();
    }
  }, 60_000);

  it('reports a refused Deployment create in the Ready condition, and clears it once allowed', async () => {
    const namespace = await cluster.namespace('refused');
    const restricted = await serviceAccountConfig(namespace);
    const roles = clientFor(cluster.rest, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
    });
    const roleName = `icecream-operator-${namespace}`;
    const allowed = await roles.get(undefined, roleName);
    // The same role without `create` on Deployments.
    await roles.update(undefined, {
      ...allowed,
      rules: (allowed.rules ?? []).map((rule) =>
        rule.resources?.includes('deployments')
          ? { ...rule, verbs: rule.verbs.filter((verb) => verb !== 'create') }
          : rule,
      ),
    });
    const simulated = await runSimulatedWorkload(cluster.env, cluster.rest);
    const icecreams = await observe(cluster.icecreams, namespace);
    const running = await runOperator({ rest: restricted, namespace });
    try {
      const created = await cluster.icecreams.create(namespace, icecream(namespace, 'vanilla'));
      const refused = await icecreams.untilObject(
        'vanilla',
        (object) => readyCondition(object)?.reason === 'ReconcileFailed',
        'Ready=False with reason ReconcileFailed',
      );
      expect(readyCondition(refused)).toMatchObject({
        status: 'False',
        observedGeneration: created.metadata?.generation,
      });
      expect(readyCondition(refused)?.message).toMatch(/forbidden/i);
      expect(Date.parse(readyCondition(refused)?.lastTransitionTime ?? '')).not.toBeNaN();

      // Allowed again: the retry (with backoff) creates the Deployment and the condition clears.
      const current = await roles.get(undefined, roleName);
      await roles.update(undefined, { ...current, rules: allowed.rules ?? [] });
      const ready = await icecreams.untilObject(
        'vanilla',
        (object) => isReadyAt(object, 2),
        'Ready with 2 replicas once allowed',
      );
      expect(readyCondition(ready)?.reason).toBe('ScoopsAvailable');
    } finally {
      await icecreams.stop();
      await running.stop();
      await simulated.stop();
    }
  }, 60_000);
});
