// kubectl get and describe: output formats, label and field selectors, server-side printing (Table).

import { call, configMap, crd } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deploymentObject,
  type Kubectl,
  kubectlPath,
  startKubectl,
  suiteOptions,
} from './kubectl.ts';

let k: Kubectl;

/**
 * kubectl -v=6 logs a request once its response arrives (`GET <url> 200 OK` or, structured,
 * `url="<url>" status="200 OK"`): this line means its watch is open.
 */
const watchOpened = /[?&]watch=true[^\s"]*"? (?:status=")?200 OK/;

beforeAll(async () => {
  if (kubectlPath !== undefined) k = await startKubectl();
});

afterAll(async () => {
  await k?.stop();
});

/** A namespace holding ConfigMaps a (tier=web), b (tier=db) and c (no labels), created over HTTP. */
async function seeded(): Promise<string> {
  const ns = await k.namespace('get');
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  for (const body of [
    configMap('a', { one: '1' }, { tier: 'web' }),
    configMap('b', { one: '1', two: '2' }, { tier: 'db' }),
    configMap('c'),
  ]) {
    const reply = await call(k.env, 'POST', path, { body });
    expect(reply.status).toBe(201);
  }
  return ns;
}

describe.skipIf(kubectlPath === undefined)('kubectl get', suiteOptions, () => {
  it('prints the server-side table (NAME DATA AGE) by default', async () => {
    const ns = await seeded();
    const out = await k.ok(['get', 'configmaps', '-n', ns]);
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+DATA\s+AGE$/);
    const rows = lines.slice(1).filter((line) => !line.startsWith('kube-root-ca.crt'));
    expect(rows.map((line) => line.split(/\s+/).slice(0, 2))).toEqual([
      ['a', '1'],
      ['b', '2'],
      ['c', '0'],
    ]);
  });

  it('filters by label selector (equality, set and existence)', async () => {
    const ns = await seeded();
    expect(await k.ok(['get', 'cm', '-n', ns, '-l', 'tier=web', '-o', 'name'])).toBe(
      'configmap/a\n',
    );
    expect(await k.ok(['get', 'cm', '-n', ns, '-l', 'tier in (web,db)', '-o', 'name'])).toBe(
      'configmap/a\nconfigmap/b\n',
    );
    expect(await k.ok(['get', 'cm', '-n', ns, '-l', 'tier,tier!=web', '-o', 'name'])).toBe(
      'configmap/b\n',
    );
  });

  it('filters by field selector', async () => {
    const ns = await seeded();
    const out = await k.ok([
      'get',
      'configmaps',
      '-n',
      ns,
      '--field-selector',
      'metadata.name=b',
      '-o',
      'name',
    ]);
    expect(out).toBe('configmap/b\n');
  });

  it('says when no resources match, on stderr with exit code 0', async () => {
    const ns = await seeded();
    const result = await k.run(['get', 'cm', '-n', ns, '-l', 'tier=none']);
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(result.stderr).toBe(`No resources found in ${ns} namespace.\n`);
  });

  it('prints -o json, -o yaml and -o name', async () => {
    const ns = await seeded();
    const json = JSON.parse(await k.ok(['get', 'cm', 'b', '-n', ns, '-o', 'json']));
    expect(json).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'b', namespace: ns, labels: { tier: 'db' } },
      data: { one: '1', two: '2' },
    });
    const list = JSON.parse(await k.ok(['get', 'cm', '-n', ns, '-l', 'tier', '-o', 'json']));
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    expect(list.items.map((item: any) => item.metadata.name)).toEqual(['a', 'b']);
    const yaml = await k.ok(['get', 'cm', 'a', '-n', ns, '-o', 'yaml']);
    expect(yaml).toContain('apiVersion: v1\n');
    expect(yaml).toContain('kind: ConfigMap\n');
    expect(yaml).toContain('  one: "1"\n');
    expect(await k.ok(['get', 'configmap/a', 'configmap/c', '-n', ns, '-o', 'name'])).toBe(
      'configmap/a\nconfigmap/c\n',
    );
  });

  it('prints -o wide with the same columns as the default table for a ConfigMap', async () => {
    const ns = await seeded();
    const out = await k.ok(['get', 'cm', 'a', '-n', ns, '-o', 'wide']);
    expect(out).toMatch(/^NAME\s+DATA\s+AGE\na\s+1\s+\S+\n$/);
  });

  it('prints --show-labels and -L label columns', async () => {
    const ns = await seeded();
    const labels = await k.ok(['get', 'cm', 'a', '-n', ns, '--show-labels']);
    expect(labels).toMatch(/^NAME\s+DATA\s+AGE\s+LABELS\na\s+1\s+\S+\s+tier=web\n$/);
    const column = await k.ok(['get', 'cm', '-n', ns, '-l', 'tier', '-L', 'tier']);
    expect(column).toMatch(/^NAME\s+DATA\s+AGE\s+TIER\na\s+1\s+\S+\s+web\nb\s+2\s+\S+\s+db\n$/);
  });

  it('prints -o jsonpath and -o custom-columns', async () => {
    const ns = await seeded();
    const names = await k.ok([
      'get',
      'cm',
      '-n',
      ns,
      '-l',
      'tier',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name}={.metadata.labels.tier}{"\\n"}{end}',
    ]);
    expect(names).toBe('a=web\nb=db\n');
    const columns = await k.ok([
      'get',
      'cm',
      '-n',
      ns,
      '-l',
      'tier',
      '-o',
      'custom-columns=NAME:.metadata.name,TIER:.metadata.labels.tier,TWO:.data.two',
    ]);
    expect(columns).toMatch(/^NAME\s+TIER\s+TWO\na\s+web\s+<none>\nb\s+db\s+2\n$/);
  });

  it('sorts with --sort-by', async () => {
    const ns = await seeded();
    const out = await k.ok([
      'get',
      'cm',
      '-n',
      ns,
      '-l',
      'tier',
      '--sort-by',
      '.metadata.labels.tier',
      '-o',
      'name',
    ]);
    expect(out).toBe('configmap/b\nconfigmap/a\n');
  });

  it('fails with NotFound for a missing object (exit code 1)', async () => {
    const ns = await k.namespace('get');
    const result = await k.run(['get', 'cm', 'missing', '-n', ns]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('Error from server (NotFound): configmaps "missing" not found\n');
  });

  it('refuses an unknown resource type', async () => {
    const result = await k.run(['get', 'nosuchthings']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'error: the server doesn\'t have a resource type "nosuchthings"',
    );
  });

  it('lists namespaces (cluster-scoped table) and one namespace by name', async () => {
    const ns = await k.namespace('get');
    const out = await k.ok(['get', 'namespace', ns]);
    expect(out).toMatch(new RegExp(`^NAME\\s+STATUS\\s+AGE\\n${ns}\\s+Active\\s+\\S+\\n$`));
  });

  it('prints the built-in printers’ columns for other kinds', async () => {
    const ns = await k.namespace('get');
    await k.seed(ns, deploymentObject('web'));
    await k.seed(ns, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'api' },
      spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ port: 80, nodePort: 30777 }] },
    });
    await k.seed(ns, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds' },
      type: 'Opaque',
      data: { a: 'YQ==', b: 'Yg==' },
    });
    expect(await k.ok(['get', 'deployments', '-n', ns])).toMatch(
      /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nweb\s+0\/1\s+0\s+0\s+\S+\n$/,
    );
    expect(await k.ok(['get', 'deployments', '-n', ns, '-o', 'wide'])).toMatch(
      /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\nweb\s+0\/1\s+0\s+0\s+\S+\s+main\s+registry\.k8s\.io\/pause:3\.9\s+app=web\n$/,
    );
    expect(await k.ok(['get', 'services', '-n', ns, '-o', 'wide'])).toMatch(
      /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\s+SELECTOR\napi\s+NodePort\s+\d+\.\d+\.\d+\.\d+\s+<none>\s+80:30777\/TCP\s+\S+\s+app=web\n$/,
    );
    expect(await k.ok(['get', 'secrets', 'creds', '-n', ns])).toMatch(
      /^NAME\s+TYPE\s+DATA\s+AGE\ncreds\s+Opaque\s+2\s+\S+\n$/,
    );
  });

  it('prints Name and Created At for a kind without a printer (CustomResourceDefinitions)', async () => {
    const group = `get${Math.random().toString(36).slice(2, 7)}.example.com`;
    const reply = await call(
      k.env,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      { body: crd({ group, plural: 'gadgets', kind: 'Gadget' }) },
    );
    expect(reply.status).toBe(201);
    expect(await k.ok(['get', 'crd', `gadgets.${group}`])).toMatch(
      new RegExp(
        `^NAME\\s+CREATED AT\\ngadgets\\.${group.replaceAll('.', '\\.')}\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\n$`,
      ),
    );
  });

  it('lists across namespaces with -A (a NAMESPACE column)', async () => {
    const ns = await seeded();
    const out = await k.ok(['get', 'cm', '-A', '-l', 'tier=db']);
    // Other tests' namespaces hold a `b` too: find this test's row among them.
    expect(out).toMatch(/^NAMESPACE\s+NAME\s+DATA\s+AGE\n/);
    expect(out).toMatch(new RegExp(`^${ns}\\s+b\\s+2\\s+\\S+$`, 'm'));
    expect(out).not.toMatch(new RegExp(`^${ns}\\s+a\\s`, 'm'));
  });
});

describe.skipIf(kubectlPath === undefined)('kubectl get --watch', suiteOptions, () => {
  it('prints the table, then a row per event (server-side Table watch events)', async () => {
    const ns = await seeded();
    const watching = k.start([
      'get',
      'configmaps',
      '-n',
      ns,
      '-l',
      'tier',
      '--watch',
      '--output-watch-events',
      '-v=6',
    ]);
    try {
      await watching.stdoutLine(/^ADDED\s+b\s+2\s+\S+$/);
      await watching.stderrLine(watchOpened);
      const reply = await call(k.env, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: configMap('d', { x: 'y' }, { tier: 'new' }),
      });
      expect(reply.status).toBe(201);
      await watching.stdoutLine(/^ADDED\s+d\s+1\s+\S+$/);
      await k.ok(['delete', 'cm', 'a', '-n', ns]);
      await watching.stdoutLine(/^DELETED\s+a\s+1\s+\S+$/);
    } finally {
      watching.stop();
    }
    const { stdout } = await watching.result;
    expect(stdout.split('\n')[0]).toMatch(/^EVENT\s+NAME\s+DATA\s+AGE$/);
  });
});

describe.skipIf(kubectlPath === undefined)('kubectl describe', suiteOptions, () => {
  it('describes a ConfigMap with its labels and data', async () => {
    const ns = await seeded();
    const out = await k.ok(['describe', 'configmap', 'b', '-n', ns]);
    expect(out).toMatch(/^Name:\s+b$/m);
    expect(out).toMatch(new RegExp(`^Namespace:\\s+${ns}$`, 'm'));
    expect(out).toMatch(/^Labels:\s+tier=db$/m);
    expect(out).toMatch(/^one:\n----\n1$/m);
    expect(out).toMatch(/^two:\n----\n2$/m);
  });

  it('describes every object a label selector matches', async () => {
    const ns = await seeded();
    const out = await k.ok(['describe', 'cm', '-n', ns, '-l', 'tier']);
    expect(out.match(/^Name:/gm)).toHaveLength(2);
  });

  it('describes a namespace', async () => {
    const ns = await k.namespace('get');
    const out = await k.ok(['describe', 'namespace', ns]);
    expect(out).toMatch(new RegExp(`^Name:\\s+${ns}$`, 'm'));
    expect(out).toMatch(/^Status:\s+Active$/m);
  });
});
