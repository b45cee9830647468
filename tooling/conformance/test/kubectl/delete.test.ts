// kubectl wait (conditions, jsonpath, deletion) and kubectl delete (by name, label, --all, finalizers, --wait).

import { call } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configMapObject,
  deploymentObject,
  type Kubectl,
  kubectlPath,
  startKubectl,
  suiteOptions,
} from './kubectl.ts';

let k: Kubectl;

beforeAll(async () => {
  if (kubectlPath !== undefined) k = await startKubectl();
});

afterAll(async () => {
  await k?.stop();
});

/**
 * kubectl -v=6 logs a request once its response arrives (`GET <url> 200 OK` or, structured,
 * `url="<url>" status="200 OK"`): this line means its watch is open.
 */
const watchOpened = /[?&]watch=true[^\s"]*"? (?:status=")?200 OK/;

/** A Deployment created with kubectl; no controller runs, so the test writes its status itself. */
async function deployment(ns: string, name: string): Promise<void> {
  await k.seed(ns, deploymentObject(name));
}

async function setAvailable(ns: string, name: string, status: 'True' | 'False'): Promise<void> {
  const reply = await call(
    k.env,
    'PATCH',
    `/apis/apps/v1/namespaces/${ns}/deployments/${name}/status`,
    {
      contentType: 'application/merge-patch+json',
      body: {
        status: {
          conditions: [
            {
              type: 'Available',
              status,
              reason: 'MinimumReplicasAvailable',
              message: 'Deployment has minimum availability.',
              lastUpdateTime: '2024-01-01T00:00:00Z',
              lastTransitionTime: '2024-01-01T00:00:00Z',
            },
          ],
        },
      },
    },
  );
  expect(reply.status).toBe(200);
}

describe.skipIf(kubectlPath === undefined)('kubectl wait', suiteOptions, () => {
  it('returns once a condition is met (set while kubectl watches)', async () => {
    const ns = await k.namespace('wait');
    await deployment(ns, 'web');
    const waiting = k.start([
      'wait',
      '--for=condition=Available',
      'deployment/web',
      '-n',
      ns,
      '--timeout=20s',
      '-v=6',
    ]);
    await waiting.stderrLine(watchOpened);
    await setAvailable(ns, 'web', 'True');
    expect(await waiting.result).toMatchObject({
      code: 0,
      stdout: 'deployment.apps/web condition met\n',
    });
  });

  it('returns at once for a condition already met, and times out for one that is not', async () => {
    const ns = await k.namespace('wait');
    await deployment(ns, 'up');
    await deployment(ns, 'down');
    await setAvailable(ns, 'up', 'True');
    await setAvailable(ns, 'down', 'False');
    expect(
      await k.ok(['wait', '--for=condition=Available', 'deployment/up', '-n', ns, '--timeout=5s']),
    ).toBe('deployment.apps/up condition met\n');
    const timedOut = await k.run([
      'wait',
      '--for=condition=Available',
      'deployment/down',
      '-n',
      ns,
      '--timeout=1s',
    ]);
    expect(timedOut.code).toBe(1);
    expect(timedOut.stderr).toBe(
      'error: timed out waiting for the condition on deployments/down\n',
    );
    expect(
      await k.ok([
        'wait',
        '--for=condition=Available=false',
        'deployment/down',
        '-n',
        ns,
        '--timeout=5s',
      ]),
    ).toBe('deployment.apps/down condition met\n');
  });

  it('waits for a jsonpath value over every object a selector matches', async () => {
    const ns = await k.namespace('wait');
    await k.seed(ns, configMapObject('a', { state: 'ready' }));
    await k.seed(ns, configMapObject('b', { state: 'pending' }));
    await k.ok(['label', 'cm', 'a', 'b', 'group=x', '-n', ns]);
    const waiting = k.start([
      'wait',
      '--for=jsonpath={.data.state}=ready',
      'cm',
      '-l',
      'group=x',
      '-n',
      ns,
      '--timeout=20s',
      '-v=6',
    ]);
    await waiting.stderrLine(watchOpened);
    await k.ok(['patch', 'cm', 'b', '-n', ns, '--type=merge', '-p', '{"data":{"state":"ready"}}']);
    const result = await waiting.result;
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').sort()).toEqual([
      '',
      'configmap/a condition met',
      'configmap/b condition met',
    ]);
  });

  it('--for=delete returns once the object is gone', async () => {
    const ns = await k.namespace('wait');
    await k.seed(ns, configMapObject('doomed'));
    const waiting = k.start([
      'wait',
      '--for=delete',
      'cm/doomed',
      '-n',
      ns,
      '--timeout=20s',
      '-v=6',
    ]);
    await waiting.stderrLine(watchOpened);
    await k.ok(['delete', 'cm', 'doomed', '-n', ns]);
    const result = await waiting.result;
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('configmap/doomed condition met\n');
  });
});

describe.skipIf(kubectlPath === undefined)('kubectl delete', suiteOptions, () => {
  it('deletes by name and refuses a missing name unless --ignore-not-found', async () => {
    const ns = await k.namespace('delete');
    await k.seed(ns, configMapObject('x'));
    expect(await k.ok(['delete', 'cm', 'x', '-n', ns])).toBe('configmap "x" deleted\n');
    const missing = await k.run(['delete', 'cm', 'x', '-n', ns]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('Error from server (NotFound): configmaps "x" not found\n');
    expect(await k.run(['delete', 'cm', 'x', '-n', ns, '--ignore-not-found'])).toMatchObject({
      code: 0,
      stdout: '',
    });
  });

  it('deletes by label selector and with --all', async () => {
    const ns = await k.namespace('delete');
    for (const name of ['a', 'b', 'c']) await k.seed(ns, configMapObject(name));
    await k.ok(['label', 'cm', 'a', 'b', 'tier=web', '-n', ns]);
    expect(await k.ok(['delete', 'cm', '-l', 'tier=web', '-n', ns])).toBe(
      'configmap "a" deleted\nconfigmap "b" deleted\n',
    );
    expect(await k.ok(['get', 'cm', '-n', ns, '-o', 'name', '-l', '!tier'])).toContain(
      'configmap/c',
    );
    const all = await k.ok(['delete', 'cm', '--all', '-n', ns]);
    expect(all).toContain('configmap "c" deleted\n');
    expect(await k.ok(['get', 'cm', 'c', '-n', ns, '--ignore-not-found'])).toBe('');
  });

  it('deletes what a manifest names with -f', async () => {
    const ns = await k.namespace('delete');
    const path = k.file(
      `${ns}.yaml`,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-file\n',
    );
    await k.ok(['apply', '-f', path, '-n', ns]);
    expect(await k.ok(['delete', '-f', path, '-n', ns])).toBe('configmap "from-file" deleted\n');
  });

  it('waits for finalizers (--wait) unless told not to (--wait=false)', async () => {
    const ns = await k.namespace('delete');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const created = await call(k.env, 'POST', path, {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'held', finalizers: ['example.com/hold'] },
      },
    });
    expect(created.status).toBe(201);
    expect(await k.ok(['delete', 'cm', 'held', '-n', ns, '--wait=false'])).toBe(
      'configmap "held" deleted\n',
    );
    const held = await k.read(ns, 'cm', 'held');
    expect(held.metadata.deletionTimestamp).toBeDefined();
    const timedOut = await k.run(['delete', 'cm', 'held', '-n', ns, '--timeout=1s']);
    expect(timedOut.code).toBe(1);
    expect(timedOut.stderr).toContain('error: timed out waiting for the condition');
    const waiting = k.start(['delete', 'cm', 'held', '-n', ns, '--timeout=20s', '-v=6']);
    await waiting.stderrLine(watchOpened);
    const released = await call(k.env, 'PATCH', `${path}/held`, {
      contentType: 'application/merge-patch+json',
      body: { metadata: { finalizers: null } },
    });
    expect(released.status).toBe(200);
    expect(await waiting.result).toMatchObject({ code: 0, stdout: 'configmap "held" deleted\n' });
    expect((await call(k.env, 'GET', `${path}/held`)).status).toBe(404);
  });

  it('--dry-run=server deletes nothing', async () => {
    const ns = await k.namespace('delete');
    await k.seed(ns, configMapObject('kept'));
    expect(await k.ok(['delete', 'cm', 'kept', '-n', ns, '--dry-run=server'])).toBe(
      'configmap "kept" deleted (server dry run)\n',
    );
    expect(await k.ok(['get', 'cm', 'kept', '-n', ns, '-o', 'name'])).toBe('configmap/kept\n');
  });
});
