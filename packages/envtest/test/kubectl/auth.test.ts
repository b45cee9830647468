// kubectl auth can-i (SelfSubjectAccessReview, SelfSubjectRulesReview) as the admin and as an
// impersonated user whose RBAC grants the test sets up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipBefore } from '../conformance/helpers.ts';
import { type Kubectl, kubectlPath, startKubectl } from './kubectl.ts';

let k: Kubectl;

beforeAll(async () => {
  if (kubectlPath !== undefined) k = await startKubectl();
});

afterAll(async () => {
  await k?.stop();
});

describe.skipIf(kubectlPath === undefined)('kubectl auth can-i', () => {
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
    await k.ok([
      'create',
      'role',
      'cm-reader',
      '--verb=get,list',
      '--resource=configmaps',
      '-n',
      ns,
    ]);
    await k.ok([
      'create',
      'role',
      'one-secret',
      '--verb=get',
      '--resource=secrets',
      '--resource-name=token',
      '-n',
      ns,
    ]);
    await k.ok(['create', 'rolebinding', 'alice-cm', '--role=cm-reader', '--user=alice', '-n', ns]);
    await k.ok([
      'create',
      'rolebinding',
      'alice-secret',
      '--role=one-secret',
      '--user=alice',
      '-n',
      ns,
    ]);
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
    await k.ok(['create', 'clusterrole', name, '--verb=list', '--resource=namespaces']);
    await k.ok([
      'create',
      'clusterrole',
      `${name}-health`,
      '--verb=get',
      '--non-resource-url=/healthz',
    ]);
    await k.ok(['create', 'clusterrolebinding', name, `--clusterrole=${name}`, `--group=${name}`]);
    await k.ok([
      'create',
      'clusterrolebinding',
      `${name}-health`,
      `--clusterrole=${name}-health`,
      `--group=${name}`,
    ]);
    const can = async (...args: string[]): Promise<string> =>
      (await k.run(['auth', 'can-i', ...args, '--as=bob', `--as-group=${name}`])).stdout.trim();
    expect(await can('list', 'namespaces')).toBe('yes');
    expect(await can('delete', 'namespaces')).toBe('no');
    expect(await can('get', '/healthz')).toBe('yes');
    expect(await can('get', '/metrics')).toBe('no');
  });

  it('covers service accounts (--as=system:serviceaccount:ns:name) and subresources', async () => {
    const ns = await k.namespace('auth');
    await k.ok([
      'create',
      'role',
      'scaler',
      '--verb=update',
      '--resource=deployments/scale',
      '-n',
      ns,
    ]);
    await k.ok([
      'create',
      'rolebinding',
      'scaler',
      '--role=scaler',
      `--serviceaccount=${ns}:robot`,
      '-n',
      ns,
    ]);
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
    await k.ok([
      'create',
      'role',
      'lister',
      '--verb=get,list,watch',
      '--resource=configmaps',
      '-n',
      ns,
    ]);
    await k.ok(['create', 'rolebinding', 'lister', '--role=lister', '--user=carol', '-n', ns]);
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
