// kubectl apply (client-side three-way merge and server-side), diff, patch, label, annotate, scale.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configMapObject,
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

function configMapYaml(name: string, data: Record<string, string>): string {
  const lines = Object.entries(data).map(([key, value]) => `  ${key}: "${value}"`);
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n${lines.join('\n')}\n`;
}

function deploymentYaml(name: string, replicas: number, env: Record<string, string>): string {
  const variables = Object.entries(env)
    .map(([key, value]) => `        - name: ${key}\n          value: "${value}"`)
    .join('\n');
  return [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    `  replicas: ${replicas}`,
    '  selector:',
    '    matchLabels:',
    `      app: ${name}`,
    '  template:',
    '    metadata:',
    '      labels:',
    `        app: ${name}`,
    '    spec:',
    '      containers:',
    '      - name: main',
    '        image: registry.k8s.io/pause:3.9',
    ...(variables === '' ? [] : ['        env:', variables]),
    '',
  ].join('\n');
}

/** The stored object `type/name`, read over HTTP. */
async function getJson(ns: string, what: string): Promise<any> {
  const [type = '', name = ''] = what.split('/');
  return k.read(ns, type, name);
}

describe.skipIf(kubectlPath === undefined)('kubectl apply (client-side)', suiteOptions, () => {
  it('creates, configures, then reports unchanged', async () => {
    const ns = await k.namespace('apply');
    const path = k.file(`${ns}.yaml`, configMapYaml('settings', { a: '1', b: '2' }));
    expect(await k.ok(['apply', '-f', path, '-n', ns])).toBe('configmap/settings created\n');
    const created = await getJson(ns, 'cm/settings');
    const lastApplied = JSON.parse(
      created.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'],
    );
    expect(lastApplied).toMatchObject({ data: { a: '1', b: '2' }, metadata: { name: 'settings' } });
    k.file(`${ns}.yaml`, configMapYaml('settings', { a: '1', c: '3' }));
    expect(await k.ok(['apply', '-f', path, '-n', ns])).toBe('configmap/settings configured\n');
    // The three-way merge removes what the last apply set and this one dropped.
    expect((await getJson(ns, 'cm/settings')).data).toEqual({ a: '1', c: '3' });
    expect(await k.ok(['apply', '-f', path, '-n', ns])).toBe('configmap/settings unchanged\n');
  });

  it('keeps fields another writer set that the manifest never named', async () => {
    const ns = await k.namespace('apply');
    const path = k.file(`${ns}.yaml`, configMapYaml('shared', { a: '1' }));
    await k.ok(['apply', '-f', path, '-n', ns]);
    await k.ok(['patch', 'cm', 'shared', '-n', ns, '--type=merge', '-p', '{"data":{"x":"9"}}']);
    k.file(`${ns}.yaml`, configMapYaml('shared', { a: '2' }));
    await k.ok(['apply', '-f', path, '-n', ns]);
    expect((await getJson(ns, 'cm/shared')).data).toEqual({ a: '2', x: '9' });
  });

  it('merges a Deployment strategically (env list by name) and bumps its generation', async () => {
    const ns = await k.namespace('apply');
    const path = k.file(`${ns}.yaml`, deploymentYaml('web', 1, { A: '1', B: '2' }));
    expect(await k.ok(['apply', '-f', path, '-n', ns])).toBe('deployment.apps/web created\n');
    k.file(`${ns}.yaml`, deploymentYaml('web', 2, { B: '3' }));
    expect(await k.ok(['apply', '-f', path, '-n', ns])).toBe('deployment.apps/web configured\n');
    const deployment = await getJson(ns, 'deployment/web');
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.template.spec.containers[0].env).toEqual([{ name: 'B', value: '3' }]);
    expect(deployment.metadata.generation).toBe(2);
  });

  it('applies every document of a multi-document manifest and a directory', async () => {
    const ns = await k.namespace('apply');
    const path = k.file(
      `${ns}-multi.yaml`,
      `${configMapYaml('one', { k: 'v' })}---\n${configMapYaml('two', { k: 'v' })}`,
    );
    expect(await k.ok(['apply', '-f', path, '-n', ns])).toBe(
      'configmap/one created\nconfigmap/two created\n',
    );
  });

  it('applies from stdin and prints the result with -o', async () => {
    const ns = await k.namespace('apply');
    const out = await k.ok(['apply', '-f', '-', '-n', ns, '-o', 'jsonpath={.data.k}'], {
      input: configMapYaml('piped', { k: 'from-stdin' }),
    });
    expect(out).toBe('from-stdin');
  });

  it('refuses a manifest whose kind the server does not know', async () => {
    const ns = await k.namespace('apply');
    const result = await k.run(['apply', '-f', '-', '-n', ns], {
      input: 'apiVersion: example.com/v1\nkind: Nothing\nmetadata:\n  name: x\n',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'resource mapping not found for name: "x" namespace: "" from "STDIN": no matches for kind "Nothing" in version "example.com/v1"',
    );
  });
});

describe.skipIf(kubectlPath === undefined)('kubectl apply --server-side', suiteOptions, () => {
  it('applies, records the kubectl field manager, and re-applies', async () => {
    const ns = await k.namespace('ssa');
    const path = k.file(`${ns}.yaml`, configMapYaml('ssa', { a: '1', b: '2' }));
    expect(await k.ok(['apply', '--server-side', '-f', path, '-n', ns])).toBe(
      'configmap/ssa serverside-applied\n',
    );
    const applied = JSON.parse(
      await k.ok(['get', 'cm', 'ssa', '-n', ns, '-o', 'json', '--show-managed-fields']),
    );
    expect(applied.metadata.managedFields).toMatchObject([
      { manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1' },
    ]);
    expect(applied.metadata.annotations).toBeUndefined();
    k.file(`${ns}.yaml`, configMapYaml('ssa', { a: '1' }));
    await k.ok(['apply', '--server-side', '-f', path, '-n', ns]);
    // Fields this manager owned and no longer applies are removed.
    expect((await getJson(ns, 'cm/ssa')).data).toEqual({ a: '1' });
  });

  it('reports a conflict with another manager, and takes the field with --force-conflicts', async () => {
    const ns = await k.namespace('ssa');
    const path = k.file(`${ns}.yaml`, configMapYaml('owned', { a: '1' }));
    await k.ok(['apply', '--server-side', '--field-manager=first', '-f', path, '-n', ns]);
    k.file(`${ns}.yaml`, configMapYaml('owned', { a: '2' }));
    const conflict = await k.run(['apply', '--server-side', '-f', path, '-n', ns]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "first"');
    expect(conflict.stderr).toContain('.data.a');
    await k.ok(['apply', '--server-side', '--force-conflicts', '-f', path, '-n', ns]);
    expect((await getJson(ns, 'cm/owned')).data).toEqual({ a: '2' });
  });
});

describe.skipIf(kubectlPath === undefined)('kubectl diff', suiteOptions, () => {
  it('exits 1 with a unified diff when the live object differs, 0 when it does not', async () => {
    const ns = await k.namespace('diff');
    const path = k.file(`${ns}.yaml`, configMapYaml('live', { a: '1' }));
    await k.ok(['apply', '-f', path, '-n', ns]);
    expect(await k.run(['diff', '-f', path, '-n', ns])).toMatchObject({ code: 0, stdout: '' });
    k.file(`${ns}.yaml`, configMapYaml('live', { a: '2' }));
    const changed = await k.run(['diff', '-f', path, '-n', ns]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toMatch(/^-\s+a: "1"$/m);
    expect(changed.stdout).toMatch(/^\+\s+a: "2"$/m);
    // diff is a dry run: nothing changed on the server.
    expect((await getJson(ns, 'cm/live')).data).toEqual({ a: '1' });
  });

  it('shows a new object as all additions', async () => {
    const ns = await k.namespace('diff');
    const path = k.file(`${ns}.yaml`, configMapYaml('new', { a: '1' }));
    const result = await k.run(['diff', '-f', path, '-n', ns]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^\+\s+name: new$/m);
    expect((await k.run(['get', 'cm', 'new', '-n', ns])).code).toBe(1);
  });
});

describe.skipIf(kubectlPath === undefined)('kubectl patch', suiteOptions, () => {
  it('applies merge, JSON and strategic patches', async () => {
    const ns = await k.namespace('patch');
    await k.ok(['apply', '-f', '-', '-n', ns], { input: deploymentYaml('web', 1, { A: '1' }) });
    expect(
      await k.ok([
        'patch',
        'deployment',
        'web',
        '-n',
        ns,
        '--type=merge',
        '-p',
        '{"spec":{"replicas":3}}',
      ]),
    ).toBe('deployment.apps/web patched\n');
    await k.ok([
      'patch',
      'deployment',
      'web',
      '-n',
      ns,
      '--type=json',
      '-p',
      '[{"op":"add","path":"/metadata/labels","value":{"team":"a"}}]',
    ]);
    // Strategic (the default for built-in kinds): the container list merges by name.
    await k.ok([
      'patch',
      'deployment',
      'web',
      '-n',
      ns,
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"main","env":[{"name":"B","value":"2"}]}]}}}}',
    ]);
    const deployment = await getJson(ns, 'deployment/web');
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.metadata.labels).toEqual({ team: 'a' });
    expect(deployment.spec.template.spec.containers).toHaveLength(1);
    expect(deployment.spec.template.spec.containers[0].env).toEqual([
      { name: 'B', value: '2' },
      { name: 'A', value: '1' },
    ]);
  });

  it('says "(no change)" and refuses a failing JSON patch test', async () => {
    const ns = await k.namespace('patch');
    await k.seed(ns, configMapObject('p', { a: '1' }));
    expect(
      await k.ok(['patch', 'cm', 'p', '-n', ns, '--type=merge', '-p', '{"data":{"a":"1"}}']),
    ).toBe('configmap/p patched (no change)\n');
    const failed = await k.run([
      'patch',
      'cm',
      'p',
      '-n',
      ns,
      '--type=json',
      '-p',
      '[{"op":"test","path":"/data/a","value":"2"}]',
    ]);
    expect(failed.code).toBe(1);
    // The message is the server's (its wording changed across releases); the object is unchanged.
    expect(failed.stderr).toMatch(/^The request is invalid: /);
    expect((await getJson(ns, 'cm/p')).data).toEqual({ a: '1' });
  });

  it('patches the status subresource with --subresource', async () => {
    const ns = await k.namespace('patch');
    await k.ok(['apply', '-f', '-', '-n', ns], { input: deploymentYaml('st', 1, {}) });
    await k.ok([
      'patch',
      'deployment',
      'st',
      '-n',
      ns,
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"observedGeneration":1}}',
    ]);
    expect((await getJson(ns, 'deployment/st')).status.observedGeneration).toBe(1);
  });
});

describe.skipIf(kubectlPath === undefined)('kubectl label and annotate', suiteOptions, () => {
  it('adds, refuses to overwrite without --overwrite, overwrites and removes labels', async () => {
    const ns = await k.namespace('label');
    await k.seed(ns, configMapObject('l'));
    expect(await k.ok(['label', 'cm', 'l', 'tier=web', '-n', ns])).toBe('configmap/l labeled\n');
    const refused = await k.run(['label', 'cm', 'l', 'tier=db', '-n', ns]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      "error: 'tier' already has a value (web), and --overwrite is false\n",
    );
    await k.ok(['label', 'cm', 'l', 'tier=db', '--overwrite', '-n', ns]);
    expect((await getJson(ns, 'cm/l')).metadata.labels).toEqual({ tier: 'db' });
    expect(await k.ok(['label', 'cm', 'l', 'tier-', '-n', ns])).toBe('configmap/l unlabeled\n');
    expect((await getJson(ns, 'cm/l')).metadata.labels).toBeUndefined();
  });

  it('labels every object a selector matches', async () => {
    const ns = await k.namespace('label');
    for (const name of ['x', 'y']) {
      await k.seed(ns, configMapObject(name));
      await k.ok(['label', 'cm', name, 'group=one', '-n', ns]);
    }
    await k.ok(['label', 'cm', '-l', 'group=one', 'marked=yes', '-n', ns]);
    expect(await k.ok(['get', 'cm', '-l', 'marked=yes', '-n', ns, '-o', 'name'])).toBe(
      'configmap/x\nconfigmap/y\n',
    );
  });

  it('adds and removes annotations', async () => {
    const ns = await k.namespace('annotate');
    await k.seed(ns, configMapObject('a'));
    expect(await k.ok(['annotate', 'cm', 'a', 'note=hello world', '-n', ns])).toBe(
      'configmap/a annotated\n',
    );
    expect((await getJson(ns, 'cm/a')).metadata.annotations).toEqual({ note: 'hello world' });
    await k.ok(['annotate', 'cm', 'a', 'note-', '-n', ns]);
    expect((await getJson(ns, 'cm/a')).metadata.annotations).toBeUndefined();
  });
});

describe.skipIf(kubectlPath === undefined)('kubectl scale', suiteOptions, () => {
  it('scales a Deployment through its scale subresource, honouring --current-replicas', async () => {
    const ns = await k.namespace('scale');
    await k.ok(['apply', '-f', '-', '-n', ns], { input: deploymentYaml('web', 1, {}) });
    expect(await k.ok(['scale', 'deployment', 'web', '--replicas=3', '-n', ns])).toBe(
      'deployment.apps/web scaled\n',
    );
    expect((await getJson(ns, 'deployment/web')).spec.replicas).toBe(3);
    const stale = await k.run([
      'scale',
      'deployment',
      'web',
      '--current-replicas=1',
      '--replicas=5',
      '-n',
      ns,
    ]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('Expected replicas to be 1, was 3');
    expect((await getJson(ns, 'deployment/web')).spec.replicas).toBe(3);
  });
});
