// kubectl auth can-i (SelfSubjectAccessReview, SelfSubjectRulesReview) as the admin and as an
// impersonated user whose RBAC grants the test sets up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipBefore } from '../gates.ts';
import { type Kubectl, kubectlPath, startKubectl, suiteOptions } from './kubectl.ts';

let k: Kubectl;

beforeAll(async () => {
  if (kubectlPath !== undefined) k = await startKubectl();
});

afterAll(async () => {
  await k?.stop();
});

function rule(verbs: string[], resources: string[], group = ''): Record<string, unknown> {
  return { apiGroups: [group], resources, verbs };
}

function user(name: string): Record<string, unknown> {
  return { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name };
}

/**
 * A Role and a RoleBinding of it to `subjects`, created over HTTP (kubectl create role is covered in
 * create.test.ts; here only the authorizer's answers are under test).
 */
async function grant(
  ns: string,
  name: string,
  rules: Array<Record<string, unknown>>,
  subjects: Array<Record<string, unknown>>,
): Promise<void> {
  await k.seed(ns, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name },
    rules,
  });
  await k.seed(ns, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
    subjects,
  });
}

describe.skipIf(kubectlPath === undefined)('kubectl auth can-i', suiteOptions, () => {
  it('answers yes for the admin (exit code 0)', async () => {
    const ns = await k.namespace('auth');
    expect(await k.run(['auth', 'can-i', 'create', 'pods', '-n', ns])).toMatchObject({
      code: 0,
      stdout: 'yes\n',
    });
    expect(await k.ok(['auth', 'can-i', '*', '*'])).toBe('yes\n');
  });

  it('answers no for a user without grants (exit code 1)', async () => {
    const ns = await k.namespace('auth');
    const result = await k.run(['auth', 'can-i', 'get', 'configmaps', '-n', ns, '--as=nobody']);
    expect(result).toMatchObject({ code: 1, stdout: 'no\n' });
  });

  it('follows a Role and RoleBinding, by verb, resource, name and namespace', async () => {
    const ns = await k.namespace('auth');
    const other = await k.namespace('auth');
    await grant(ns, 'cm-reader', [rule(['get', 'list'], ['configmaps'])], [user('alice')]);
    await grant(
      ns,
      'one-secret',
      [{ ...rule(['get'], ['secrets']), resourceNames: ['token'] }],
      [user('alice')],
    );
    const can = async (...args: string[]): Promise<string> =>
      (await k.run(['auth', 'can-i', ...args, '--as=alice'])).stdout.trim();
    expect(await can('list', 'configmaps', '-n', ns)).toBe('yes');
    expect(await can('delete', 'configmaps', '-n', ns)).toBe('no');
    expect(await can('list', 'configmaps', '-n', other)).toBe('no');
    expect(await can('get', 'secrets/token', '-n', ns)).toBe('yes');
    expect(await can('get', 'secrets/other', '-n', ns)).toBe('no');
    expect(await can('list', 'secrets', '-n', ns)).toBe('no');
  });

  it('follows a ClusterRole bound cluster-wide to a group, including non-resource URLs', async () => {
    const name = `auth-${Math.random().toString(36).slice(2, 7)}`;
    await k.seed('', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name },
      rules: [rule(['list'], ['namespaces']), { verbs: ['get'], nonResourceURLs: ['/healthz'] }],
    });
    await k.seed('', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name }],
    });
    const can = async (...args: string[]): Promise<string> =>
      (await k.run(['auth', 'can-i', ...args, '--as=bob', `--as-group=${name}`])).stdout.trim();
    expect(await can('list', 'namespaces')).toBe('yes');
    expect(await can('delete', 'namespaces')).toBe('no');
    expect(await can('get', '/healthz')).toBe('yes');
    expect(await can('get', '/metrics')).toBe('no');
  });

  it('covers service accounts (--as=system:serviceaccount:ns:name) and subresources', async () => {
    const ns = await k.namespace('auth');
    await grant(
      ns,
      'scaler',
      [rule(['update'], ['deployments/scale'], 'apps')],
      [{ kind: 'ServiceAccount', name: 'robot', namespace: ns }],
    );
    const as = `--as=system:serviceaccount:${ns}:robot`;
    const scale = await k.run([
      'auth',
      'can-i',
      'update',
      'deployments.apps',
      '--subresource=scale',
      '-n',
      ns,
      as,
    ]);
    expect(scale.stdout).toBe('yes\n');
    const update = await k.run(['auth', 'can-i', 'update', 'deployments.apps', '-n', ns, as]);
    expect(update.stdout).toBe('no\n');
  });

  it('lists what a user may do with --list', async () => {
    const ns = await k.namespace('auth');
    await grant(ns, 'lister', [rule(['get', 'list', 'watch'], ['configmaps'])], [user('carol')]);
    const out = await k.ok(['auth', 'can-i', '--list', '-n', ns, '--as=carol']);
    expect(out).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/m);
    expect(out).toMatch(/^configmaps\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    // Every authenticated user may create access reviews about itself.
    expect(out).toMatch(
      /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m,
    );
  });

  it('names the denied user when an impersonated request is forbidden', async () => {
    const ns = await k.namespace('auth');
    const result = await k.run(['get', 'configmaps', '-n', ns, '--as=nobody']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `Error from server (Forbidden): configmaps is forbidden: User "nobody" cannot list resource "configmaps" in API group "" in the namespace "${ns}"\n`,
    );
  });

  it('auth whoami (SelfSubjectReview, kube 1.28)', async ({ skip }) => {
    await skipBefore(k.env, skip, 28);
    const out = await k.ok(['auth', 'whoami', '--as=dora', '--as-group=team', '-o', 'json']);
    expect(JSON.parse(out).status.userInfo).toMatchObject({
      username: 'dora',
      groups: expect.arrayContaining(['team', 'system:authenticated']),
    });
  });
});
