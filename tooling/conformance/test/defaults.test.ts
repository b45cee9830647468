// Conformance: the defaults built-in kinds get when written (pods, pod templates, workloads, services),
// the admission plugins that change a Pod on create (ServiceAccount, DefaultTolerationSeconds, Priority),
// the service allocators' refusals, and the 500s an unparsable resourceVersion earns.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, watch } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atLeast } from './gates.ts';

let env: Environment;
let ns: string;

/** The token Secret kube-apiserver before 1.21 mounts (no token controller runs beside it here). */
const tokenSecret = 'default-token-abcde';

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  // Before 1.21 the ServiceAccount admission mounts a token Secret the account lists (and refuses the
  // Pod while none exists); from 1.21 it projects a bound token and needs no Secret.
  const account = await call(env, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
    body: { metadata: { name: 'default' }, secrets: [{ name: tokenSecret }] },
  });
  if (account.status === 409) {
    await call(env, 'PATCH', `/api/v1/namespaces/${ns}/serviceaccounts/default`, {
      body: { secrets: [{ name: tokenSecret }] },
      contentType: 'application/merge-patch+json',
    });
  }
  const secret = await call(env, 'POST', `/api/v1/namespaces/${ns}/secrets`, {
    body: {
      metadata: {
        name: tokenSecret,
        annotations: { 'kubernetes.io/service-account.name': 'default' },
      },
      type: 'kubernetes.io/service-account-token',
      data: { token: 'dG9rZW4=' },
    },
  });
  expect(secret.status).toBe(201);
});

afterAll(async () => {
  await env?.stop();
});

function createPod(name: string, spec: any): Promise<any> {
  return call(env, 'POST', `/api/v1/namespaces/${ns}/pods`, {
    body: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec },
  });
}

/** The PodSpec defaults every pod template gets, for a template with one container `c` of `image`. */
function templateDefaults(image: string, restartPolicy = 'Always'): any {
  return {
    containers: [
      {
        name: 'c',
        image,
        resources: {},
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy:
          image.includes(':') && !image.endsWith(':latest') ? 'IfNotPresent' : 'Always',
      },
    ],
    restartPolicy,
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    securityContext: {},
    schedulerName: 'default-scheduler',
  };
}

describe('pod defaults', () => {
  it('defaults the spec, containers, probes, ports, env and volumes as SetDefaults_Pod does', async () => {
    const reply = await createPod('defaulted', {
      containers: [
        {
          name: 'c',
          image: 'nginx',
          ports: [{ containerPort: 80 }],
          env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          livenessProbe: { httpGet: { port: 80 } },
          readinessProbe: { exec: { command: ['true'] } },
          lifecycle: { preStop: { httpGet: { port: 8080 } } },
        },
      ],
      initContainers: [{ name: 'init', image: 'busybox:1.36' }],
      volumes: [
        { name: 'secret', secret: { secretName: 'x' } },
        { name: 'config', configMap: { name: 'x' } },
        { name: 'host', hostPath: { path: '/tmp' } },
        { name: 'projected', projected: { sources: [{ configMap: { name: 'x' } }] } },
        {
          name: 'downward',
          downwardAPI: { items: [{ path: 'a', fieldRef: { fieldPath: 'metadata.name' } }] },
        },
        { name: 'nothing' },
      ],
    });
    expect(reply.status).toBe(201);
    const spec = reply.body.spec;
    expect(spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      securityContext: {},
      enableServiceLinks: true,
      serviceAccountName: 'default',
      serviceAccount: 'default',
    });
    expect(spec.containers[0]).toMatchObject({
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      resources: {},
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      env: [
        { name: 'POD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
      ],
      livenessProbe: {
        httpGet: { path: '/', port: 80, scheme: 'HTTP' },
        timeoutSeconds: 1,
        periodSeconds: 10,
        successThreshold: 1,
        failureThreshold: 3,
      },
      readinessProbe: {
        timeoutSeconds: 1,
        periodSeconds: 10,
        successThreshold: 1,
        failureThreshold: 3,
      },
      lifecycle: { preStop: { httpGet: { path: '/', port: 8080, scheme: 'HTTP' } } },
    });
    expect(spec.initContainers[0]).toMatchObject({
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    expect(spec.volumes.slice(0, 6)).toEqual([
      { name: 'secret', secret: { secretName: 'x', defaultMode: 420 } },
      { name: 'config', configMap: { name: 'x', defaultMode: 420 } },
      { name: 'host', hostPath: { path: '/tmp', type: '' } },
      {
        name: 'projected',
        projected: { sources: [{ configMap: { name: 'x' } }], defaultMode: 420 },
      },
      {
        name: 'downward',
        downwardAPI: {
          items: [{ path: 'a', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } }],
          defaultMode: 420,
        },
      },
      { name: 'nothing', emptyDir: {} },
    ]);
    expect(reply.body.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
  });

  it('picks the pull policy from the image tag: Always for latest or none, else IfNotPresent', async () => {
    const images = [
      'nginx',
      'nginx:latest',
      'nginx:1.25',
      'localhost:5000/app',
      'localhost:5000/app:v1',
      `nginx@sha256:${'0'.repeat(64)}`,
    ];
    const reply = await createPod('pull-policy', {
      containers: images.map((image, index) => ({ name: `c${index}`, image })),
    });
    expect(reply.status).toBe(201);
    expect(reply.body.spec.containers.map((container: any) => container.imagePullPolicy)).toEqual([
      'Always',
      'Always',
      'IfNotPresent',
      'Always',
      'IfNotPresent',
      'IfNotPresent',
    ]);
  });

  it('copies limits to missing requests and records the QoS class', async () => {
    const guaranteed = await createPod('guaranteed', {
      containers: [
        { name: 'c', image: 'nginx', resources: { limits: { cpu: '1', memory: '1Gi' } } },
      ],
    });
    expect(guaranteed.status).toBe(201);
    expect(guaranteed.body.spec.containers[0].resources).toEqual({
      limits: { cpu: '1', memory: '1Gi' },
      requests: { cpu: '1', memory: '1Gi' },
    });
    expect(guaranteed.body.status.qosClass).toBe('Guaranteed');
    const burstable = await createPod('burstable', {
      containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m' } } }],
    });
    expect(burstable.body.status.qosClass).toBe('Burstable');
  });

  it('adds the not-ready and unreachable tolerations (DefaultTolerationSeconds) and priority 0', async () => {
    const reply = await createPod('admitted', {
      containers: [{ name: 'c', image: 'nginx' }],
      tolerations: [
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
      ],
    });
    expect(reply.status).toBe(201);
    expect(reply.body.spec.tolerations).toEqual([
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
      {
        key: 'node.kubernetes.io/not-ready',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
    ]);
    expect(reply.body.spec.priority).toBe(0);
    expect(reply.body.spec.preemptionPolicy).toBe('PreemptLowerPriority');
    expect(reply.body.spec.priorityClassName).toBeUndefined();
  });

  it('takes priority from a PriorityClass and refuses an unknown class or a stated priority', async () => {
    const critical = await createPod('critical', {
      priorityClassName: 'system-node-critical',
      containers: [{ name: 'c', image: 'nginx' }],
    });
    expect(critical.status).toBe(201);
    expect(critical.body.spec.priority).toBe(2000001000);
    const unknown = await createPod('unknown-class', {
      priorityClassName: 'no-such-class',
      containers: [{ name: 'c', image: 'nginx' }],
    });
    expect(unknown.status).toBe(403);
    expect(unknown.body).toMatchObject({
      reason: 'Forbidden',
      message:
        'pods "unknown-class" is forbidden: no PriorityClass with name no-such-class was found',
    });
    const stated = await createPod('stated', {
      priority: 7,
      containers: [{ name: 'c', image: 'nginx' }],
    });
    expect(stated.status).toBe(403);
    expect(stated.body.message).toBe(
      'pods "stated" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name',
    );
  });

  it('mounts the service account token in every container (a projected kube-api-access volume from 1.21)', async () => {
    const reply = await createPod('token', {
      initContainers: [{ name: 'init', image: 'busybox:1.36' }],
      containers: [{ name: 'c', image: 'nginx' }],
    });
    expect(reply.status).toBe(201);
    const spec = reply.body.spec;
    const volume = spec.volumes.at(-1);
    const mount = {
      name: volume.name,
      readOnly: true,
      mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
    };
    expect(spec.containers[0].volumeMounts).toEqual([mount]);
    expect(spec.initContainers[0].volumeMounts).toEqual([mount]);
    // kubernetes#95667 (BoundServiceAccountTokenVolume, beta in 1.21) replaced the token Secret volume.
    if (await atLeast(env, 21)) {
      expect(volume.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(volume.projected).toEqual({
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          {
            downwardAPI: {
              items: [
                {
                  path: 'namespace',
                  fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' },
                },
              ],
            },
          },
        ],
        defaultMode: 420,
      });
    } else {
      expect(volume).toEqual({
        name: tokenSecret,
        secret: { secretName: tokenSecret, defaultMode: 420 },
      });
    }
    const optedOut = await createPod('no-token', {
      automountServiceAccountToken: false,
      containers: [{ name: 'c', image: 'nginx' }],
    });
    expect(optedOut.status).toBe(201);
    expect(optedOut.body.spec.volumes).toBeUndefined();
    expect(optedOut.body.spec.containers[0].volumeMounts).toBeUndefined();
  });

  it('defaults what an update writes, as decoding does', async () => {
    const created = await createPod('updated', { containers: [{ name: 'c', image: 'nginx' }] });
    const patched = await call(env, 'PATCH', `/api/v1/namespaces/${ns}/pods/updated`, {
      body: { spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect(patched.status).toBe(200);
    expect(patched.body.spec.containers[0].image).toBe('nginx:1.25');
    // The pull policy was stored as Always: a patch of the image keeps it.
    expect(patched.body.spec.containers[0].imagePullPolicy).toBe('Always');
    expect(patched.body.spec.tolerations).toEqual(created.body.spec.tolerations);
  });
});

describe('workload defaults', () => {
  const selector = { matchLabels: { app: 'w' } };
  const template = {
    metadata: { labels: { app: 'w' } },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  };

  it('defaults a Deployment and its template (and again on update)', async () => {
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const reply = await call(env, 'POST', path, {
      body: { metadata: { name: 'd' }, spec: { selector, template } },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.spec).toMatchObject({
      replicas: 1,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
      },
    });
    expect(reply.body.spec.template.spec).toEqual(templateDefaults('nginx'));
    const body = structuredClone(reply.body);
    body.spec.template = structuredClone(template);
    body.spec.template.spec.containers[0].image = 'nginx:1.25';
    delete body.spec.strategy;
    const updated = await call(env, 'PUT', `${path}/d`, { body });
    expect(updated.status).toBe(200);
    expect(updated.body.spec.template.spec).toEqual(templateDefaults('nginx:1.25'));
    expect(updated.body.spec.strategy.type).toBe('RollingUpdate');
  });

  it('refuses negative counts of a Deployment', async () => {
    const reply = await call(env, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
      body: { metadata: { name: 'negative' }, spec: { replicas: -1, selector, template } },
    });
    expect(reply.status).toBe(422);
    expect(reply.body.message).toBe(
      'Deployment.apps "negative" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
  });

  it('defaults a ReplicaSet', async () => {
    const reply = await call(env, 'POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, {
      body: { metadata: { name: 'rs' }, spec: { selector, template } },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.spec.replicas).toBe(1);
    expect(reply.body.spec.template.spec).toEqual(templateDefaults('nginx'));
  });

  it('defaults a StatefulSet (persistentVolumeClaimRetentionPolicy from 1.27)', async () => {
    const reply = await call(env, 'POST', `/apis/apps/v1/namespaces/${ns}/statefulsets`, {
      body: {
        metadata: { name: 'sts' },
        spec: {
          serviceName: 'sts',
          selector,
          template,
          volumeClaimTemplates: [
            {
              metadata: { name: 'data' },
              spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
            },
          ],
        },
      },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.spec).toMatchObject({
      replicas: 1,
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
    });
    expect(reply.body.spec.volumeClaimTemplates[0]).toMatchObject({
      spec: { volumeMode: 'Filesystem' },
      status: { phase: 'Pending' },
    });
    expect(reply.body.spec.template.spec).toEqual(templateDefaults('nginx'));
    // kubernetes#111300 (StatefulSetAutoDeletePVC beta, 1.27).
    if (await atLeast(env, 27)) {
      expect(reply.body.spec.persistentVolumeClaimRetentionPolicy).toEqual({
        whenDeleted: 'Retain',
        whenScaled: 'Retain',
      });
    }
  });

  it('defaults a DaemonSet and records its template generation (maxSurge from 1.22)', async () => {
    const path = `/apis/apps/v1/namespaces/${ns}/daemonsets`;
    const reply = await call(env, 'POST', path, {
      body: { metadata: { name: 'ds' }, spec: { selector, template } },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.spec).toMatchObject({
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
      revisionHistoryLimit: 10,
    });
    expect(reply.body.spec.template.spec).toEqual(templateDefaults('nginx'));
    expect(reply.body.metadata.annotations).toEqual({
      'deprecated.daemonset.template.generation': '1',
    });
    // DaemonSetUpdateSurge, beta in 1.22.
    if (await atLeast(env, 22)) {
      expect(reply.body.spec.updateStrategy.rollingUpdate.maxSurge).toBe(0);
    }
    const patched = await call(env, 'PATCH', `${path}/ds`, {
      body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect(patched.status).toBe(200);
    expect(patched.body.metadata.annotations['deprecated.daemonset.template.generation']).toBe('2');
  });

  it('defaults a Job and generates its selector (completionMode and suspend from 1.22, batch.kubernetes.io labels from 1.27)', async () => {
    const reply = await call(env, 'POST', `/apis/batch/v1/namespaces/${ns}/jobs`, {
      body: {
        metadata: { name: 'job' },
        spec: {
          template: {
            spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'nginx' }] },
          },
        },
      },
    });
    expect(reply.status).toBe(201);
    const uid = reply.body.metadata.uid;
    expect(reply.body.spec).toMatchObject({ parallelism: 1, completions: 1, backoffLimit: 6 });
    expect(reply.body.spec.template.spec).toEqual(templateDefaults('nginx', 'Never'));
    const labels = reply.body.spec.template.metadata.labels;
    expect(labels).toMatchObject({ 'controller-uid': uid, 'job-name': 'job' });
    expect(reply.body.metadata.labels).toEqual(labels);
    if (await atLeast(env, 22)) {
      expect(reply.body.spec).toMatchObject({ completionMode: 'NonIndexed', suspend: false });
    }
    // kubernetes#114930 (1.27) prefixed the generated labels.
    if (await atLeast(env, 27)) {
      expect(reply.body.spec.selector).toEqual({
        matchLabels: { 'batch.kubernetes.io/controller-uid': uid },
      });
      expect(labels).toMatchObject({
        'batch.kubernetes.io/controller-uid': uid,
        'batch.kubernetes.io/job-name': 'job',
      });
    } else {
      expect(reply.body.spec.selector).toEqual({ matchLabels: { 'controller-uid': uid } });
    }
    const parallel = await call(env, 'POST', `/apis/batch/v1/namespaces/${ns}/jobs`, {
      body: {
        metadata: { name: 'parallel' },
        spec: {
          parallelism: 3,
          template: {
            spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'nginx' }] },
          },
        },
      },
    });
    expect(parallel.status).toBe(201);
    expect(parallel.body.spec.parallelism).toBe(3);
    expect(parallel.body.spec.completions).toBeUndefined();
  });

  it('defaults a CronJob and its job template (batch/v1 from 1.21)', async () => {
    const version = (await atLeast(env, 21)) ? 'v1' : 'v1beta1';
    const reply = await call(env, 'POST', `/apis/batch/${version}/namespaces/${ns}/cronjobs`, {
      body: {
        metadata: { name: 'cron' },
        spec: {
          schedule: '*/5 * * * *',
          jobTemplate: {
            spec: {
              template: {
                spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'nginx' }] },
              },
            },
          },
        },
      },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.spec).toMatchObject({
      concurrencyPolicy: 'Allow',
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
    });
    expect(reply.body.spec.jobTemplate.spec.template.spec).toEqual(
      templateDefaults('nginx', 'OnFailure'),
    );
    expect(reply.body.spec.jobTemplate.spec.backoffLimit).toBeUndefined();
  });
});

describe('service defaults and allocation', () => {
  const services = (): string => `/api/v1/namespaces/${ns}/services`;

  it('defaults a ClusterIP Service (IP families from 1.21, internalTrafficPolicy from 1.22)', async () => {
    const reply = await call(env, 'POST', services(), {
      body: {
        metadata: { name: 'plain' },
        spec: { selector: { app: 'x' }, ports: [{ port: 80 }] },
      },
    });
    expect(reply.status).toBe(201);
    const spec = reply.body.spec;
    expect(spec).toMatchObject({
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    });
    expect(spec.clusterIP).toMatch(/^10\.0\.0\.\d+$/);
    expect(spec.clusterIPs).toEqual([spec.clusterIP]);
    expect(spec.externalTrafficPolicy).toBeUndefined();
    expect(spec.ports[0].nodePort).toBeUndefined();
    // kubernetes#98516 (IPv6DualStack beta, 1.21) and #103462 (ServiceInternalTrafficPolicy beta, 1.22).
    if (await atLeast(env, 21)) {
      expect(spec).toMatchObject({ ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' });
    }
    if (await atLeast(env, 22)) expect(spec.internalTrafficPolicy).toBe('Cluster');
    const affinity = await call(env, 'POST', services(), {
      body: {
        metadata: { name: 'sticky' },
        spec: { sessionAffinity: 'ClientIP', ports: [{ port: 80, targetPort: 'http' }] },
      },
    });
    expect(affinity.status).toBe(201);
    expect(affinity.body.spec.sessionAffinityConfig).toEqual({
      clientIP: { timeoutSeconds: 10800 },
    });
    expect(affinity.body.spec.ports[0].targetPort).toBe('http');
  });

  it('gives NodePort and LoadBalancer Services a nodePort per port from 30000-32767 (allocateLoadBalancerNodePorts from 1.22)', async () => {
    const nodePort = await call(env, 'POST', services(), {
      body: { metadata: { name: 'node-port' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } },
    });
    expect(nodePort.status).toBe(201);
    expect(nodePort.body.spec.externalTrafficPolicy).toBe('Cluster');
    const allocated = nodePort.body.spec.ports[0].nodePort;
    expect(allocated).toBeGreaterThanOrEqual(30000);
    expect(allocated).toBeLessThanOrEqual(32767);
    const balancer = await call(env, 'POST', services(), {
      body: {
        metadata: { name: 'balancer' },
        spec: {
          type: 'LoadBalancer',
          ports: [
            { name: 'a', port: 80 },
            { name: 'b', port: 81 },
          ],
        },
      },
    });
    expect(balancer.status).toBe(201);
    expect(balancer.body.spec.externalTrafficPolicy).toBe('Cluster');
    const ports = balancer.body.spec.ports.map((port: any) => port.nodePort);
    expect(new Set([...ports, allocated]).size).toBe(3);
    for (const port of ports) expect(port).toBeGreaterThanOrEqual(30000);
    if (await atLeast(env, 22)) expect(balancer.body.spec.allocateLoadBalancerNodePorts).toBe(true);
    const taken = await call(env, 'POST', services(), {
      body: {
        metadata: { name: 'taken-port' },
        spec: { type: 'NodePort', ports: [{ port: 80, nodePort: allocated }] },
      },
    });
    expect(taken.status).toBe(422);
    expect(taken.body).toMatchObject({
      reason: 'Invalid',
      message: `Service "taken-port" is invalid: spec.ports[0].nodePort: Invalid value: ${allocated}: provided port is already allocated`,
      details: { name: 'taken-port', kind: 'Service' },
    });
    const outside = await call(env, 'POST', services(), {
      body: {
        metadata: { name: 'outside' },
        spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] },
      },
    });
    expect(outside.status).toBe(422);
    expect(outside.body.message).toBe(
      'Service "outside" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    // Deleting a Service frees its nodePort.
    await call(env, 'DELETE', `${services()}/node-port`);
    const reused = await call(env, 'POST', services(), {
      body: {
        metadata: { name: 'reused-port' },
        spec: { type: 'NodePort', ports: [{ port: 80, nodePort: allocated }] },
      },
    });
    expect(reused.status).toBe(201);
  });

  it('keeps the allocated clusterIP and nodePorts through an update that omits them (from 1.23)', async () => {
    const created = await call(env, 'POST', services(), {
      body: { metadata: { name: 'kept' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } },
    });
    expect(created.status).toBe(201);
    const body = {
      metadata: { name: 'kept', resourceVersion: created.body.metadata.resourceVersion },
      spec: { type: 'NodePort', ports: [{ port: 80, targetPort: 8080 }] },
    };
    const updated = await call(env, 'PUT', `${services()}/kept`, { body });
    // The service REST rewrite (kubernetes#104601, 1.23) patches the allocated values back in; before
    // it an update had to carry them.
    if (!(await atLeast(env, 23))) {
      expect(updated.status).toBe(422);
      expect(updated.body.message).toBe(
        'Service "kept" is invalid: spec.clusterIPs[0]: Invalid value: []string(nil): primary clusterIP can not be unset',
      );
      return;
    }
    expect(updated.status).toBe(200);
    expect(updated.body.spec.clusterIP).toBe(created.body.spec.clusterIP);
    expect(updated.body.spec.ports).toEqual([
      {
        protocol: 'TCP',
        port: 80,
        targetPort: 8080,
        nodePort: created.body.spec.ports[0].nodePort,
      },
    ]);
  });

  it('refuses a clusterIP another Service holds or outside the range (reworded in 1.24 and 1.27)', async () => {
    const first = await call(env, 'POST', services(), {
      body: { metadata: { name: 'holder' }, spec: { ports: [{ port: 80 }] } },
    });
    const ip = first.body.spec.clusterIP;
    const taken = await call(env, 'POST', services(), {
      body: { metadata: { name: 'taken-ip' }, spec: { clusterIP: ip, ports: [{ port: 80 }] } },
    });
    expect(taken.status).toBe(422);
    const outside = await call(env, 'POST', services(), {
      body: {
        metadata: { name: 'outside-ip' },
        spec: { clusterIP: '192.168.0.1', ports: [{ port: 80 }] },
      },
    });
    expect(outside.status).toBe(422);
    expect(outside.body.details.causes[0].field).toBe('spec.clusterIPs');
    // The service REST rewrite (1.24) reworded the allocation failure; the service CIDR allocator
    // (1.27) names the refused address in the range error.
    if (await atLeast(env, 24)) {
      expect(taken.body.message).toBe(
        `Service "taken-ip" is invalid: spec.clusterIPs: Invalid value: []string{"${ip}"}: failed to allocate IP ${ip}: provided IP is already allocated`,
      );
    } else {
      expect(taken.body.message).toBe(
        `Service "taken-ip" is invalid: spec.clusterIPs: Invalid value: []string{"${ip}"}: failed to allocated ip:${ip} with error:provided IP is already allocated`,
      );
    }
    if (await atLeast(env, 27)) {
      expect(outside.body.message).toBe(
        'Service "outside-ip" is invalid: spec.clusterIPs: Invalid value: []string{"192.168.0.1"}: failed to allocate IP 192.168.0.1: the provided IP (192.168.0.1) is not in the valid range. The range of valid IPs is 10.0.0.0/24',
      );
    } else {
      expect(outside.body.message).toMatch(
        /^Service "outside-ip" is invalid: spec\.clusterIPs: Invalid value: \[\]string\{"192\.168\.0\.1"\}: failed to allocate.*provided IP is not in the valid range\. The range of valid IPs is 10\.0\.0\.0\/24$/,
      );
    }
  });
});

describe('unparsable resourceVersion', () => {
  const message =
    'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax';

  it('answers list, watch and get with 500 and the versioner error', async () => {
    const cms = `/api/v1/namespaces/${ns}/configmaps`;
    await call(env, 'POST', cms, { body: { metadata: { name: 'rv' } } });
    for (const path of [`${cms}?resourceVersion=abc`, `${cms}/rv?resourceVersion=abc`]) {
      const reply = await call(env, 'GET', path);
      expect(reply.status).toBe(500);
      expect(reply.body).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message,
        code: 500,
      });
    }
    const stream = await watch(env, `${cms}?watch=1&resourceVersion=abc`);
    stream.close();
    expect(stream.status).toBe(500);
  });

  it('answers an update or merge patch carrying one with 500', async () => {
    const cms = `/api/v1/namespaces/${ns}/configmaps`;
    await call(env, 'POST', cms, { body: { metadata: { name: 'rv-write' } } });
    const put = await call(env, 'PUT', `${cms}/rv-write`, {
      body: { metadata: { name: 'rv-write', resourceVersion: 'abc' }, data: { a: 'b' } },
    });
    const patch = await call(env, 'PATCH', `${cms}/rv-write`, {
      body: { metadata: { resourceVersion: 'abc' } },
      contentType: 'application/merge-patch+json',
    });
    for (const reply of [put, patch]) {
      expect(reply.status).toBe(500);
      expect(reply.body).toMatchObject({
        message: 'strconv.ParseUint: parsing "abc": invalid syntax',
        code: 500,
      });
      expect(reply.body.reason).toBeUndefined();
    }
  });
});
