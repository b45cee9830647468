// kubectl create (every generator a user reaches for) and kubectl run: kubectl 1.32 sends these bodies
// as protobuf, then reads each object back as JSON.

import { createCertificateAuthority, createSignedCertificate } from '@lasso/apiserver';
import { call } from '@lasso-internal/wire';
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

/** Run `kubectl create ...` in `ns`, expect its one-line report, and read the object back over HTTP. */
async function create(ns: string, args: string[], printed: string): Promise<any> {
  // `-n` goes first: after `--` everything is the container's command.
  const out = await k.ok(['-n', ns, 'create', ...args]);
  expect(out).toBe(`${printed} created\n`);
  const [type = '', name = ''] = printed.split('/');
  return k.read(ns, type, name);
}

describe.skipIf(kubectlPath === undefined)('kubectl create', suiteOptions, () => {
  it('configmap from literals and from a file', async () => {
    const ns = await k.namespace('create');
    const path = k.file('settings.properties', 'colour=blue\n');
    const cm = await create(
      ns,
      ['configmap', 'settings', '--from-literal=mode=fast', `--from-file=${path}`],
      'configmap/settings',
    );
    expect(cm.data).toEqual({ mode: 'fast', 'settings.properties': 'colour=blue\n' });
  });

  it('secret generic', async () => {
    const ns = await k.namespace('create');
    const secret = await create(
      ns,
      ['secret', 'generic', 'creds', '--from-literal=user=admin', '--type=Opaque'],
      'secret/creds',
    );
    expect(secret).toMatchObject({ type: 'Opaque', data: { user: 'YWRtaW4=' } });
  });

  it('secret tls', async () => {
    const ns = await k.namespace('create');
    const ca = createCertificateAuthority();
    const pair = createSignedCertificate(ca, { commonName: 'example.com', usage: 'server' });
    const cert = k.file('tls.crt', pair.certPem);
    const key = k.file('tls.key', pair.keyPem);
    const secret = await create(
      ns,
      ['secret', 'tls', 'serving', `--cert=${cert}`, `--key=${key}`],
      'secret/serving',
    );
    expect(secret.type).toBe('kubernetes.io/tls');
    expect(Buffer.from(secret.data['tls.crt'], 'base64').toString()).toBe(pair.certPem);
    expect(Buffer.from(secret.data['tls.key'], 'base64').toString()).toBe(pair.keyPem);
  });

  it('secret docker-registry', async () => {
    const ns = await k.namespace('create');
    const secret = await create(
      ns,
      [
        'secret',
        'docker-registry',
        'pull',
        '--docker-server=registry.example.com',
        '--docker-username=u',
        '--docker-password=p',
      ],
      'secret/pull',
    );
    expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
    const config = JSON.parse(Buffer.from(secret.data['.dockerconfigjson'], 'base64').toString());
    expect(config.auths['registry.example.com']).toMatchObject({ username: 'u', password: 'p' });
  });

  it('deployment (with --replicas and --port)', async () => {
    const ns = await k.namespace('create');
    const deployment = await create(
      ns,
      ['deployment', 'web', '--image=registry.k8s.io/pause:3.9', '--replicas=2', '--port=8080'],
      'deployment.apps/web',
    );
    expect(deployment.spec).toMatchObject({
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'pause', image: 'registry.k8s.io/pause:3.9', ports: [{ containerPort: 8080 }] },
          ],
        },
      },
    });
    // Defaults the server applies to a Deployment.
    expect(deployment.spec.strategy.type).toBe('RollingUpdate');
    expect(deployment.metadata.generation).toBe(1);
  });

  it('job', async () => {
    const ns = await k.namespace('create');
    const job = await create(
      ns,
      ['job', 'once', '--image=busybox', '--', 'echo', 'hello'],
      'job.batch/once',
    );
    expect(job.spec.template.spec).toMatchObject({
      restartPolicy: 'Never',
      containers: [{ name: 'once', image: 'busybox', command: ['echo', 'hello'] }],
    });
  });

  it('cronjob (batch/v1, kube 1.21)', async ({ skip }) => {
    await skipBefore(k.env, skip, 21);
    const ns = await k.namespace('create');
    const cronjob = await create(
      ns,
      ['cronjob', 'nightly', '--image=busybox', '--schedule=0 3 * * *', '--', 'date'],
      'cronjob.batch/nightly',
    );
    expect(cronjob.spec).toMatchObject({
      schedule: '0 3 * * *',
      jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure' } } } },
    });
  });

  it('service clusterip, nodeport, loadbalancer and externalname', async () => {
    const ns = await k.namespace('create');
    const clusterIp = await create(
      ns,
      ['service', 'clusterip', 'api', '--tcp=80:8080'],
      'service/api',
    );
    expect(clusterIp.spec).toMatchObject({
      type: 'ClusterIP',
      selector: { app: 'api' },
      ports: [{ name: '80-8080', port: 80, targetPort: 8080, protocol: 'TCP' }],
    });
    expect(clusterIp.spec.clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const nodePort = await create(
      ns,
      ['service', 'nodeport', 'np', '--tcp=80:8080', '--node-port=30123'],
      'service/np',
    );
    expect(nodePort.spec).toMatchObject({ type: 'NodePort', ports: [{ nodePort: 30123 }] });
    const balancer = await create(
      ns,
      ['service', 'loadbalancer', 'lb', '--tcp=443:8443'],
      'service/lb',
    );
    expect(balancer.spec.type).toBe('LoadBalancer');
    expect(balancer.spec.ports[0].nodePort).toBeGreaterThanOrEqual(30000);
    const external = await create(
      ns,
      ['service', 'externalname', 'ext', '--external-name=db.example.com'],
      'service/ext',
    );
    expect(external.spec).toMatchObject({ type: 'ExternalName', externalName: 'db.example.com' });
  });

  it('serviceaccount and token', async () => {
    const ns = await k.namespace('create');
    const account = await create(ns, ['serviceaccount', 'robot'], 'serviceaccount/robot');
    expect(account.metadata.name).toBe('robot');
    const token = await k.ok(['create', 'token', 'robot', '-n', ns, '--duration=10m']);
    const claims = JSON.parse(Buffer.from(token.trim().split('.')[1]!, 'base64url').toString());
    expect(claims.sub).toBe(`system:serviceaccount:${ns}:robot`);
    expect(claims.exp - claims.iat).toBe(600);
  });

  it('namespace', async () => {
    const name = `created-${Math.random().toString(36).slice(2, 7)}`;
    expect(await k.ok(['create', 'namespace', name])).toBe(`namespace/${name} created\n`);
    const namespace = JSON.parse(await k.ok(['get', 'namespace', name, '-o', 'json']));
    expect(namespace.status.phase).toBe('Active');
  });

  it('role and rolebinding', async () => {
    const ns = await k.namespace('create');
    const role = await create(
      ns,
      ['role', 'reader', '--verb=get,list', '--resource=pods,configmaps', '--resource-name=one'],
      'role.rbac.authorization.k8s.io/reader',
    );
    expect(role.rules).toEqual([
      {
        apiGroups: [''],
        resources: ['pods', 'configmaps'],
        verbs: ['get', 'list'],
        resourceNames: ['one'],
      },
    ]);
    const binding = await create(
      ns,
      ['rolebinding', 'reader', '--role=reader', '--user=alice', `--serviceaccount=${ns}:robot`],
      'rolebinding.rbac.authorization.k8s.io/reader',
    );
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'reader',
    });
    expect(binding.subjects).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' },
      { kind: 'ServiceAccount', name: 'robot', namespace: ns },
    ]);
  });

  it('clusterrole and clusterrolebinding', async () => {
    const name = `k-${Math.random().toString(36).slice(2, 7)}`;
    expect(
      await k.ok(['create', 'clusterrole', name, '--verb=get', '--non-resource-url=/healthz']),
    ).toBe(`clusterrole.rbac.authorization.k8s.io/${name} created\n`);
    const role = JSON.parse(await k.ok(['get', 'clusterrole', name, '-o', 'json']));
    expect(role.rules).toEqual([{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]);
    expect(
      await k.ok(['create', 'clusterrolebinding', name, `--clusterrole=${name}`, '--group=devs']),
    ).toBe(`clusterrolebinding.rbac.authorization.k8s.io/${name} created\n`);
    const binding = JSON.parse(await k.ok(['get', 'clusterrolebinding', name, '-o', 'json']));
    expect(binding.subjects).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'devs' },
    ]);
  });

  it('quota', async () => {
    const ns = await k.namespace('create');
    const quota = await create(
      ns,
      ['quota', 'small', '--hard=pods=2,configmaps=5'],
      'resourcequota/small',
    );
    expect(quota.spec.hard).toEqual({ configmaps: '5', pods: '2' });
  });

  it('priorityclass', async () => {
    const name = `k-${Math.random().toString(36).slice(2, 7)}`;
    expect(
      await k.ok(['create', 'priorityclass', name, '--value=1000', '--description=test']),
    ).toBe(`priorityclass.scheduling.k8s.io/${name} created\n`);
    const priority = JSON.parse(await k.ok(['get', 'priorityclass', name, '-o', 'json']));
    expect(priority).toMatchObject({ value: 1000, description: 'test' });
  });

  it('poddisruptionbudget (policy/v1, kube 1.21)', async ({ skip }) => {
    await skipBefore(k.env, skip, 21);
    const ns = await k.namespace('create');
    const budget = await create(
      ns,
      ['poddisruptionbudget', 'web', '--selector=app=web', '--min-available=1'],
      'poddisruptionbudget.policy/web',
    );
    expect(budget.spec).toMatchObject({
      minAvailable: 1,
      selector: { matchLabels: { app: 'web' } },
    });
  });

  it('ingress', async () => {
    const ns = await k.namespace('create');
    const ingress = await create(
      ns,
      ['ingress', 'web', '--rule=example.com/api*=api:80'],
      'ingress.networking.k8s.io/web',
    );
    expect(ingress.spec.rules).toEqual([
      {
        host: 'example.com',
        http: {
          paths: [
            {
              path: '/api',
              pathType: 'Prefix',
              backend: { service: { name: 'api', port: { number: 80 } } },
            },
          ],
        },
      },
    ]);
  });

  it('refuses an existing name with AlreadyExists (exit code 1)', async () => {
    const ns = await k.namespace('create');
    await k.ok(['create', 'configmap', 'twice', '-n', ns]);
    const again = await k.run(['create', 'configmap', 'twice', '-n', ns]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      'error: failed to create configmap: configmaps "twice" already exists\n',
    );
  });

  it('creates from a manifest with -f', async () => {
    const ns = await k.namespace('create');
    const manifest = k.file(
      `multi-${ns}.yaml`,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\ndata:\n  k: v\n---\n' +
        'apiVersion: v1\nkind: Secret\nmetadata:\n  name: two\nstringData:\n  k: v\n',
    );
    expect(await k.ok(['create', '-f', manifest, '-n', ns])).toBe(
      'configmap/one created\nsecret/two created\n',
    );
    const secret = await k.read(ns, 'secret', 'two');
    expect(secret.data).toEqual({ k: 'dg==' });
    expect(secret.stringData).toBeUndefined();
  });

  it('--dry-run=client prints the object without creating it', async () => {
    const ns = await k.namespace('create');
    const out = await k.ok([
      'create',
      'configmap',
      'dry',
      '--from-literal=a=b',
      '--dry-run=client',
      '-o',
      'json',
      '-n',
      ns,
    ]);
    expect(JSON.parse(out)).toMatchObject({ kind: 'ConfigMap', data: { a: 'b' } });
    const get = await k.run(['get', 'cm', 'dry', '-n', ns]);
    expect(get.code).toBe(1);
  });

  it('--dry-run=server validates and defaults without storing', async () => {
    const ns = await k.namespace('create');
    const out = await k.ok([
      'create',
      'deployment',
      'dry',
      '--image=busybox',
      '--dry-run=server',
      '-o',
      'json',
      '-n',
      ns,
    ]);
    const deployment = JSON.parse(out);
    expect(deployment.spec.strategy.type).toBe('RollingUpdate');
    expect(deployment.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect((await k.run(['get', 'deployment', 'dry', '-n', ns])).code).toBe(1);
  });
});

/**
 * A namespace with the `default` ServiceAccount, which pod admission needs and no controller-manager
 * creates here. It mounts no token: kube-apiserver before 1.24 would wait for a token Secret that no
 * token controller ever writes.
 */
async function podNamespace(): Promise<string> {
  const ns = await k.namespace('run');
  const reply = await call(k.env, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
    body: {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'default' },
      automountServiceAccountToken: false,
    },
  });
  expect(reply.status).toBe(201);
  return ns;
}

describe.skipIf(kubectlPath === undefined)('kubectl run', suiteOptions, () => {
  it('creates a pod with labels, env, port and command', async () => {
    const ns = await podNamespace();
    const out = await k.ok([
      'run',
      'shell',
      '--image=busybox',
      '--labels=app=shell,tier=debug',
      '--env=MODE=test',
      '--port=8080',
      '--namespace',
      ns,
      '--command',
      '--',
      'sleep',
      '3600',
    ]);
    expect(out).toBe('pod/shell created\n');
    const pod = await k.read(ns, 'pod', 'shell');
    expect(pod.metadata.labels).toEqual({ app: 'shell', tier: 'debug' });
    expect(pod.spec.containers).toMatchObject([
      {
        name: 'shell',
        image: 'busybox',
        command: ['sleep', '3600'],
        env: [{ name: 'MODE', value: 'test' }],
        ports: [{ containerPort: 8080 }],
      },
    ]);
    expect(pod.status.phase).toBe('Pending');
  });

  it('lists the pod with the pod printer columns', async () => {
    const ns = await podNamespace();
    await k.ok(['run', 'p', '--image=busybox', '-n', ns]);
    const out = await k.ok(['get', 'pods', '-n', ns]);
    expect(out).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\np\s+0\/1\s+Pending\s+0\s+\S+\n$/);
    const wide = await k.ok(['get', 'pods', '-n', ns, '-o', 'wide']);
    expect(wide).toMatch(
      /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES\n/,
    );
    expect(wide).toMatch(/\np\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+<none>\s+<none>\s+<none>\n$/);
  });
});
