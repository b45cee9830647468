// Conformance: the RBAC authorizer. Roles and bindings created as the admin, requests sent as impersonated
// users (the admin is system:masters, who may impersonate anyone): what is allowed, the exact 403 bodies,
// access reviews, impersonation checks, anonymous requests and ClusterRole aggregation. A real
// kube-apiserver reads RBAC objects through informers, so a new grant is awaited with `eventually`.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, configMap, deployment, type Reply, unique } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './gates.ts';

let env: Environment;
let ns: string;

const rbac = '/apis/rbac.authorization.k8s.io/v1';
const authorization = '/apis/authorization.k8s.io/v1';
const cms = () => `/api/v1/namespaces/${ns}/configmaps`;

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  await call(env, 'POST', cms(), { body: configMap('a') });
  await call(env, 'POST', cms(), { body: configMap('b') });
  await call(env, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
    body: deployment('web'),
  });
});

afterAll(async () => {
  await env?.stop();
});

/** Send as `user` (in `group`, when given) through the admin's impersonation. */
function as(
  user: string,
  method: string,
  path: string,
  options: { group?: string; body?: unknown } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { 'Impersonate-User': user };
  if (options.group !== undefined) headers['Impersonate-Group'] = options.group;
  return call(env, method, path, {
    headers,
    ...(options.body === undefined ? {} : { body: options.body }),
  });
}

async function create(path: string, body: unknown): Promise<void> {
  const reply = await call(env, 'POST', path, { body });
  expect(reply.status, reply.text).toBe(201);
}

function role(name: string, rules: unknown[]): unknown {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules };
}

function clusterRole(name: string, rules: unknown[], labels?: Record<string, string>): unknown {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: labels === undefined ? { name } : { name, labels },
    rules,
  };
}

function binding(
  kind: 'RoleBinding' | 'ClusterRoleBinding',
  name: string,
  roleKind: 'Role' | 'ClusterRole',
  roleName: string,
  subjects: unknown[],
): unknown {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName },
    subjects,
  };
}

const user = (name: string) => ({ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name });

/** Wait until `user` gets `status` for GET `path` (a real server's RBAC informers lag a write). */
async function untilStatus(userName: string, path: string, status: number): Promise<void> {
  await eventually(async () => (await as(userName, 'GET', path)).status === status);
}

describe('resource rules', () => {
  it('grants through a RoleBinding what the Role names, and answers 403 with kube messages otherwise', async () => {
    const alice = unique('alice');
    await create(
      `${rbac}/namespaces/${ns}/roles`,
      role('cm-reader', [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: ['a'] },
      ]),
    );
    await create(
      `${rbac}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', `cm-reader-${alice}`, 'Role', 'cm-reader', [user(alice)]),
    );
    await untilStatus(alice, cms(), 200);
    expect((await as(alice, 'GET', `${cms()}/a`)).status).toBe(200);

    const named = await as(alice, 'GET', `${cms()}/b`);
    expect(named.status).toBe(403);
    expect(named.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `configmaps "b" is forbidden: User "${alice}" cannot get resource "configmaps" in API group "" in the namespace "${ns}"`,
      reason: 'Forbidden',
      details: { name: 'b', kind: 'configmaps' },
      code: 403,
    });
    const write = await as(alice, 'POST', cms(), { body: configMap(unique('c')) });
    expect(write.status).toBe(403);
    expect(write.body.message).toBe(
      `configmaps is forbidden: User "${alice}" cannot create resource "configmaps" in API group "" in the namespace "${ns}"`,
    );
    const elsewhere = await as(alice, 'GET', '/api/v1/namespaces/default/configmaps');
    expect(elsewhere.body.message).toBe(
      `configmaps is forbidden: User "${alice}" cannot list resource "configmaps" in API group "" in the namespace "default"`,
    );
    const everywhere = await as(alice, 'GET', '/api/v1/configmaps');
    expect(everywhere.body.message).toBe(
      `configmaps is forbidden: User "${alice}" cannot list resource "configmaps" in API group "" at the cluster scope`,
    );
    // A list pinned to one name by a field selector is authorized with that name.
    const pinned = await as(alice, 'GET', `${cms()}?fieldSelector=metadata.name%3Db&watch=1`);
    expect(pinned.status).toBe(403);
    expect(pinned.body.message).toBe(
      `configmaps "b" is forbidden: User "${alice}" cannot watch resource "configmaps" in API group "" in the namespace "${ns}"`,
    );
  });

  it('authorizes before routing: a denied user gets 403 for a resource that does not exist', async () => {
    const reply = await as(
      unique('nobody'),
      'GET',
      `/apis/example.com/v1/namespaces/${ns}/widgets`,
    );
    expect(reply.status).toBe(403);
    expect(reply.body.details).toEqual({ group: 'example.com', kind: 'widgets' });
  });

  it('grants cluster-scoped resources through a ClusterRoleBinding to a group', async () => {
    const team = unique('team');
    const bob = unique('bob');
    await create(
      `${rbac}/clusterroles`,
      clusterRole(team, [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list'] }]),
    );
    await create(
      `${rbac}/clusterrolebindings`,
      binding('ClusterRoleBinding', team, 'ClusterRole', team, [
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: team },
      ]),
    );
    await eventually(
      async () => (await as(bob, 'GET', '/api/v1/namespaces', { group: team })).status === 200,
    );
    expect((await as(bob, 'GET', `/api/v1/namespaces/${ns}`, { group: team })).status).toBe(200);
    const outsider = await as(bob, 'GET', `/api/v1/namespaces/${ns}`);
    expect(outsider.status).toBe(403);
    // A namespace is its own namespace in the request's attributes.
    expect(outsider.body.message).toBe(
      `namespaces "${ns}" is forbidden: User "${bob}" cannot get resource "namespaces" in API group "" in the namespace "${ns}"`,
    );
    const deleted = await as(bob, 'DELETE', `/api/v1/namespaces/${ns}`, { group: team });
    expect(deleted.body.message).toBe(
      `namespaces "${ns}" is forbidden: User "${bob}" cannot delete resource "namespaces" in API group "" in the namespace "${ns}"`,
    );
  });

  it('matches subresources exactly or by */<subresource>, never by <resource>/*', async () => {
    const carol = unique('carol');
    await create(
      `${rbac}/namespaces/${ns}/roles`,
      role(`sub-${carol}`, [
        { apiGroups: ['apps'], resources: ['*/scale'], verbs: ['get'] },
        { apiGroups: ['apps'], resources: ['deployments/*'], verbs: ['get'] },
      ]),
    );
    await create(
      `${rbac}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', `sub-${carol}`, 'Role', `sub-${carol}`, [user(carol)]),
    );
    const base = `/apis/apps/v1/namespaces/${ns}/deployments/web`;
    await untilStatus(carol, `${base}/scale`, 200);
    const status = await as(carol, 'GET', `${base}/status`);
    expect(status.status).toBe(403);
    expect(status.body.message).toBe(
      `deployments.apps "web" is forbidden: User "${carol}" cannot get resource "deployments/status" in API group "apps" in the namespace "${ns}"`,
    );
    expect(status.body.details).toEqual({ name: 'web', group: 'apps', kind: 'deployments' });
    const main = await as(carol, 'GET', base);
    expect(main.status).toBe(403);
  });

  it("adds RBAC's reason for a binding to a missing role", async () => {
    const dave = unique('dave');
    const missing = unique('missing');
    await create(
      `${rbac}/clusterrolebindings`,
      binding('ClusterRoleBinding', `${dave}-dangling`, 'ClusterRole', missing, [user(dave)]),
    );
    const expected = `configmaps is forbidden: User "${dave}" cannot list resource "configmaps" in API group "" in the namespace "${ns}": RBAC: clusterrole.rbac.authorization.k8s.io "${missing}" not found`;
    await eventually(async () => (await as(dave, 'GET', cms())).body?.message === expected);
  });
});

describe('RBAC objects', () => {
  it('refuses to change the roleRef of a binding (422)', async () => {
    const name = unique('fixed');
    await create(
      `${rbac}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', name, 'ClusterRole', 'view', [user(name)]),
    );
    const path = `${rbac}/namespaces/${ns}/rolebindings/${name}`;
    const live = await call(env, 'GET', path);
    const changed = await call(env, 'PUT', path, {
      body: { ...live.body, roleRef: { ...live.body.roleRef, name: 'edit' } },
    });
    expect(changed.status).toBe(422);
    expect(changed.body).toMatchObject({
      reason: 'Invalid',
      message: `RoleBinding.rbac.authorization.k8s.io "${name}" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef`,
      details: { name, group: 'rbac.authorization.k8s.io', kind: 'RoleBinding' },
    });
  });
});

describe('RBAC object validation', () => {
  it('refuses rules and bindings kube refuses, and defaults the API group of user subjects', async () => {
    const name = unique('invalid');
    const badRole = await call(env, 'POST', `${rbac}/namespaces/${ns}/roles`, {
      body: role(name, [
        { apiGroups: [''], resources: ['pods'], verbs: [] },
        { nonResourceURLs: ['/x'], verbs: ['get'] },
      ]),
    });
    expect(badRole.status).toBe(422);
    expect(badRole.body.message).toBe(
      `Role.rbac.authorization.k8s.io "${name}" is invalid: [rules[0].verbs: Required value: verbs must contain at least one value, rules[1].nonResourceURLs: Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs]`,
    );
    const badBinding = await call(env, 'POST', `${rbac}/clusterrolebindings`, {
      body: binding('ClusterRoleBinding', name, 'ClusterRole', 'view', [
        { kind: 'Robot', name: 'r' },
        { kind: 'ServiceAccount', name: 'sa' },
      ]),
    });
    expect(badBinding.status).toBe(422);
    expect(badBinding.body.message).toBe(
      `ClusterRoleBinding.rbac.authorization.k8s.io "${name}" is invalid: [subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group", subjects[1].namespace: Required value]`,
    );
    const defaulted = await call(env, 'POST', `${rbac}/namespaces/${ns}/rolebindings`, {
      body: binding('RoleBinding', name, 'ClusterRole', 'view', [{ kind: 'User', name: 'u' }]),
    });
    expect(defaulted.status).toBe(201);
    expect(defaulted.body.subjects).toEqual([
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'u' },
    ]);
  });
});

describe('non-resource paths and anonymous requests', () => {
  it('lets anonymous requests read health and version only', async () => {
    expect((await call(env, 'GET', '/version', { anonymous: true })).status).toBe(200);
    expect((await call(env, 'GET', '/healthz', { anonymous: true })).status).toBe(200);
    const api = await call(env, 'GET', '/api', { anonymous: true });
    expect(api.status).toBe(403);
    expect(api.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'forbidden: User "system:anonymous" cannot get path "/api"',
      reason: 'Forbidden',
      details: {},
      code: 403,
    });
    const list = await call(env, 'GET', cms(), { anonymous: true });
    expect(list.body.message).toBe(
      `configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`,
    );
  });

  it('lets authenticated users discover the API, and grants other paths by nonResourceURLs', async () => {
    const erin = unique('erin');
    expect((await as(erin, 'GET', '/apis')).status).toBe(200);
    expect((await as(erin, 'GET', '/api/v1')).status).toBe(200);
    const denied = await as(erin, 'GET', '/logs/x');
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe(`forbidden: User "${erin}" cannot get path "/logs/x"`);
    const posted = await as(erin, 'POST', '/version');
    expect(posted.body.message).toBe(`forbidden: User "${erin}" cannot post path "/version"`);
    await create(
      `${rbac}/clusterroles`,
      clusterRole(`logs-${erin}`, [{ nonResourceURLs: ['/logs*'], verbs: ['get'] }]),
    );
    await create(
      `${rbac}/clusterrolebindings`,
      binding('ClusterRoleBinding', `logs-${erin}`, 'ClusterRole', `logs-${erin}`, [user(erin)]),
    );
    // Allowed now: whatever the path answers, it is no longer a 403.
    await eventually(async () => (await as(erin, 'GET', '/logs/x')).status !== 403);
  });
});

describe('access reviews', () => {
  it("answers a SelfSubjectAccessReview with allowed and RBAC's reason", async () => {
    const frank = unique('frank');
    await create(
      `${rbac}/namespaces/${ns}/roles`,
      role(`review-${frank}`, [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]),
    );
    await create(
      `${rbac}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', `review-${frank}`, 'Role', `review-${frank}`, [user(frank)]),
    );
    const review = (verb: string) => ({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { namespace: ns, verb, resource: 'secrets' } },
    });
    let allowed!: Reply;
    await eventually(async () => {
      allowed = await as(frank, 'POST', `${authorization}/selfsubjectaccessreviews`, {
        body: review('get'),
      });
      return allowed.body?.status?.allowed === true;
    });
    expect(allowed.status).toBe(201);
    // kube-apiserver also records managedFields on the answer, as for any create.
    expect(allowed.body).toMatchObject({
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: ns, verb: 'get', resource: 'secrets' } },
    });
    expect(allowed.body.status).toEqual({
      allowed: true,
      reason: `RBAC: allowed by RoleBinding "review-${frank}/${ns}" of Role "review-${frank}" to User "${frank}"`,
    });
    const denied = await as(frank, 'POST', `${authorization}/selfsubjectaccessreviews`, {
      body: review('delete'),
    });
    expect(denied.body.status).toEqual({ allowed: false });
    const path = await as(frank, 'POST', `${authorization}/selfsubjectaccessreviews`, {
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { nonResourceAttributes: { path: '/apis', verb: 'get' } },
      },
    });
    expect(path.body.status).toEqual({
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
    });
  });

  it('refuses a review with neither or both attribute kinds (422)', async () => {
    const empty = await call(env, 'POST', `${authorization}/selfsubjectaccessreviews`, {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: {} },
    });
    expect(empty.status).toBe(422);
    expect(empty.body).toMatchObject({
      reason: 'Invalid',
      // The review's REST storage names the kind from the decoded object, whose kind is already gone.
      message:
        '.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
      details: {
        group: 'authorization.k8s.io',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message:
              'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
            field: 'spec.resourceAttributes',
          },
        ],
      },
    });
    const anonymousUser = await call(env, 'POST', `${authorization}/subjectaccessreviews`, {
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { resourceAttributes: { verb: 'get', resource: 'pods' } },
      },
    });
    expect(anonymousUser.status).toBe(422);
    expect(anonymousUser.body.message).toBe(
      '.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
    );
  });

  it('answers SubjectAccessReview and LocalSubjectAccessReview about another user', async () => {
    const grace = unique('grace');
    await create(
      `${rbac}/clusterroles`,
      clusterRole(`pods-${grace}`, [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }]),
    );
    await create(
      `${rbac}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', `pods-${grace}`, 'ClusterRole', `pods-${grace}`, [user(grace)]),
    );
    const spec = {
      user: grace,
      resourceAttributes: { namespace: ns, verb: 'list', resource: 'pods' },
    };
    await eventually(async () => {
      const reply = await call(env, 'POST', `${authorization}/subjectaccessreviews`, {
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec },
      });
      return reply.status === 201 && reply.body.status.allowed === true;
    });
    const local = await call(
      env,
      'POST',
      `${authorization}/namespaces/${ns}/localsubjectaccessreviews`,
      {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'LocalSubjectAccessReview',
          // kube-apiserver before 1.22 does not fill metadata.namespace from the path.
          metadata: { namespace: ns },
          spec,
        },
      },
    );
    expect(local.status, local.text).toBe(201);
    expect(local.body.metadata).toMatchObject({ namespace: ns });
    expect(local.body.status).toMatchObject({ allowed: true });
    const mismatch = await call(
      env,
      'POST',
      `${authorization}/namespaces/default/localsubjectaccessreviews`,
      {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'LocalSubjectAccessReview',
          metadata: { namespace: 'default' },
          spec,
        },
      },
    );
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.message).toBe(
      `.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "${ns}": must match metadata.namespace`,
    );
  });

  it('lists the rules of a SelfSubjectRulesReview', async () => {
    const heidi = unique('heidi');
    await create(
      `${rbac}/namespaces/${ns}/roles`,
      role(`rules-${heidi}`, [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: ['a'] },
      ]),
    );
    await create(
      `${rbac}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', `rules-${heidi}`, 'Role', `rules-${heidi}`, [user(heidi)]),
    );
    const body = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace: ns },
    };
    let reply!: Reply;
    await eventually(async () => {
      reply = await as(heidi, 'POST', `${authorization}/selfsubjectrulesreviews`, { body });
      return JSON.stringify(reply.body?.status?.resourceRules ?? []).includes('configmaps');
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      kind: 'SelfSubjectRulesReview',
      apiVersion: 'authorization.k8s.io/v1',
      status: { incomplete: false },
    });
    expect(reply.body.status.resourceRules).toContainEqual({
      verbs: ['get'],
      apiGroups: [''],
      resources: ['configmaps'],
      resourceNames: ['a'],
    });
    expect(reply.body.status.resourceRules).toContainEqual({
      verbs: ['create'],
      apiGroups: ['authorization.k8s.io'],
      resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
    });
    expect(reply.body.status.nonResourceRules).toContainEqual({
      verbs: ['get'],
      nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'],
    });
  });
});

describe('ClusterRole aggregation', () => {
  // kube-controller-manager runs the aggregation controller; an envtest kube-apiserver has none.
  it('rewrites the rules of an aggregated role when a labelled ClusterRole appears', async ({
    skip,
  }) => {
    if (env.mode === 'kubebuilder') skip('no kube-controller-manager aggregates ClusterRoles here');
    const name = unique('aggregated');
    const label = `example.com/${name}`;
    await create(`${rbac}/clusterroles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [label]: 'true' } }] },
      rules: [],
    });
    const rule = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] };
    await create(`${rbac}/clusterroles`, clusterRole(`${name}-part`, [rule], { [label]: 'true' }));
    await create(
      `${rbac}/clusterroles`,
      clusterRole(`${name}-admin`, [{ ...rule, verbs: ['delete'] }], {
        'rbac.authorization.k8s.io/aggregate-to-admin': 'true',
      }),
    );
    await eventually(async () => {
      const reply = await call(env, 'GET', `${rbac}/clusterroles/${name}`);
      return JSON.stringify(reply.body.rules) === JSON.stringify([rule]);
    });
    await eventually(async () => {
      const admin = await call(env, 'GET', `${rbac}/clusterroles/admin`);
      return (admin.body.rules ?? []).some(
        (item: { resources?: string[]; verbs?: string[] }) =>
          item.resources?.includes('widgets') && item.verbs?.includes('delete'),
      );
    });
    await call(env, 'DELETE', `${rbac}/clusterroles/${name}-part`);
    await eventually(async () => {
      const reply = await call(env, 'GET', `${rbac}/clusterroles/${name}`);
      return JSON.stringify(reply.body.rules ?? []) === '[]';
    });
  });

  it('serves the bootstrap roles: admin, edit and view aggregate the system:aggregate-to-* roles', async ({
    skip,
  }) => {
    if (env.mode === 'kubebuilder') skip('no kube-controller-manager aggregates ClusterRoles here');
    const view = await call(env, 'GET', `${rbac}/clusterroles/view`);
    expect(view.body.metadata.labels).toMatchObject({
      'kubernetes.io/bootstrapping': 'rbac-defaults',
      'rbac.authorization.k8s.io/aggregate-to-edit': 'true',
    });
    expect(view.body.rules).toContainEqual({
      apiGroups: [''],
      resources: ['namespaces'],
      verbs: ['get', 'list', 'watch'],
    });
    const admin = await call(env, 'GET', `${rbac}/clusterroles/admin`);
    expect(admin.body.rules).toContainEqual({
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['rolebindings', 'roles'],
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    });
  });
});

describe('escalation prevention', () => {
  it('refuses a Role or RoleBinding granting more than the writer holds, unless escalate or bind allow it', async () => {
    const judy = unique('judy');
    await create(
      `${rbac}/namespaces/${ns}/roles`,
      role(`writer-${judy}`, [
        {
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['roles', 'rolebindings'],
          verbs: ['create'],
        },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
      ]),
    );
    await create(
      `${rbac}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', `writer-${judy}`, 'Role', `writer-${judy}`, [user(judy)]),
    );
    await untilStatus(judy, cms(), 200);
    const held = await as(judy, 'POST', `${rbac}/namespaces/${ns}/roles`, {
      body: role(`held-${judy}`, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]),
    });
    expect(held.status).toBe(201);
    const more = await as(judy, 'POST', `${rbac}/namespaces/${ns}/roles`, {
      body: role(`more-${judy}`, [
        { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'delete'] },
      ]),
    });
    expect(more.status).toBe(403);
    expect(more.body).toMatchObject({
      reason: 'Forbidden',
      details: { name: `more-${judy}`, group: 'rbac.authorization.k8s.io', kind: 'roles' },
      message: `roles.rbac.authorization.k8s.io "more-${judy}" is forbidden: user "${judy}" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}`,
    });
    const bound = await as(judy, 'POST', `${rbac}/namespaces/${ns}/rolebindings`, {
      body: binding('RoleBinding', `admin-${judy}`, 'ClusterRole', 'cluster-admin', [user(judy)]),
    });
    expect(bound.status).toBe(403);
    expect(bound.body.message).toBe(
      `rolebindings.rbac.authorization.k8s.io "admin-${judy}" is forbidden: user "${judy}" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}`,
    );
    // The bind verb on the role lifts the check.
    await create(
      `${rbac}/namespaces/${ns}/roles`,
      role(`binder-${judy}`, [
        {
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['clusterroles'],
          verbs: ['bind'],
          resourceNames: ['cluster-admin'],
        },
      ]),
    );
    await create(
      `${rbac}/namespaces/${ns}/rolebindings`,
      binding('RoleBinding', `binder-${judy}`, 'Role', `binder-${judy}`, [user(judy)]),
    );
    await eventually(async () => {
      const reply = await as(judy, 'POST', `${rbac}/namespaces/${ns}/rolebindings`, {
        body: binding('RoleBinding', `admin-${judy}`, 'ClusterRole', 'cluster-admin', [user(judy)]),
      });
      return reply.status === 201;
    });
  });
});

describe('impersonation', () => {
  it('needs the impersonate verb on the user, checked by RBAC', async () => {
    const ivan = unique('ivan');
    const target = unique('target');
    const headers = { 'Impersonate-User': target };
    // Impersonating needs a caller that is not system:masters: a ServiceAccount token.
    const account = unique('imp');
    await create(`/api/v1/namespaces/${ns}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: account },
    });
    const issued = await call(
      env,
      'POST',
      `/api/v1/namespaces/${ns}/serviceaccounts/${account}/token`,
      {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
      },
    );
    const token: string = issued.body.status.token;
    const username = `system:serviceaccount:${ns}:${account}`;
    const refused = await call(env, 'GET', '/version', { token, headers });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(
      `users "${target}" is forbidden: User "${username}" cannot impersonate resource "users" in API group "" at the cluster scope`,
    );
    await create(
      `${rbac}/clusterroles`,
      clusterRole(`imp-${ivan}`, [
        { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: [target] },
      ]),
    );
    await create(
      `${rbac}/clusterrolebindings`,
      binding('ClusterRoleBinding', `imp-${ivan}`, 'ClusterRole', `imp-${ivan}`, [
        { kind: 'ServiceAccount', name: account, namespace: ns },
      ]),
    );
    await eventually(
      async () => (await call(env, 'GET', '/version', { token, headers })).status === 200,
    );
    // The impersonated user has its own (empty) rights.
    const list = await call(env, 'GET', cms(), { token, headers });
    expect(list.body.message).toBe(
      `configmaps is forbidden: User "${target}" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`,
    );
    const group = await call(env, 'GET', '/version', {
      token,
      headers: { ...headers, 'Impersonate-Group': 'system:masters' },
    });
    expect(group.status).toBe(403);
    expect(group.body.message).toBe(
      `groups "system:masters" is forbidden: User "${username}" cannot impersonate resource "groups" in API group "" at the cluster scope`,
    );
  });
});
