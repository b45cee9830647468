// kubectl edit (with an editor script), explain and api-resources: the commands that read OpenAPI and discovery.
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

/** An editor that runs `sed -i <expression>` on the file kubectl hands it. */
function sedEditor(name: string, expression: string): Record<string, string> {
  const script = k.file(name, `#!/bin/sh\nexec sed -i -e '${expression}' "$1"\n`);
  return { KUBE_EDITOR: script, EDITOR: script };
}

describe.skipIf(kubectlPath === undefined)('kubectl edit', suiteOptions, () => {
  it('saves what the editor changed', async () => {
    const ns = await k.namespace('edit');
    await k.seed(ns, configMapObject('e', { colour: 'blue' }));
    const editor = sedEditor(`${ns}-edit.sh`, 's/colour: blue/colour: green/');
    expect(await k.ok(['edit', 'cm', 'e', '-n', ns], { env: editor })).toBe('configmap/e edited\n');
    const cm = await k.read(ns, 'cm', 'e');
    expect(cm.data).toEqual({ colour: 'green' });
  });

  it('cancels when the editor changes nothing', async () => {
    const ns = await k.namespace('edit');
    await k.seed(ns, configMapObject('same', { a: 'b' }));
    const editor = sedEditor(`${ns}-noop.sh`, 's/nothing-matches-this//');
    const result = await k.run(['edit', 'cm', 'same', '-n', ns], { env: editor });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('Edit cancelled, no changes made.\n');
  });

  it('edits a Deployment (a strategic merge patch: the container list merges by name)', async () => {
    const ns = await k.namespace('edit');
    await k.seed(ns, deploymentObject('web'));
    const editor = sedEditor(
      `${ns}-deploy.sh`,
      's/replicas: 1/replicas: 4/;s|image: registry.k8s.io/pause:3.9|image: registry.k8s.io/pause:3.10|',
    );
    expect(await k.ok(['edit', 'deployment/web', '-n', ns], { env: editor })).toBe(
      'deployment.apps/web edited\n',
    );
    const deployment = await k.read(ns, 'deployment', 'web');
    expect(deployment.spec.replicas).toBe(4);
    expect(deployment.spec.template.spec.containers).toMatchObject([
      { name: 'main', image: 'registry.k8s.io/pause:3.10' },
    ]);
    expect(deployment.metadata.generation).toBe(2);
  });

  it('refuses an edit the server rejects and keeps a copy of the file', async () => {
    const ns = await k.namespace('edit');
    await k.seed(ns, deploymentObject('bad', 'busybox'));
    const editor = sedEditor(`${ns}-bad.sh`, 's/replicas: 1/replicas: -1/');
    const result = await k.run(['edit', 'deployment/bad', '-n', ns], { env: editor });
    expect(result.code).toBe(1);
    // The causes go into the saved copy as comments; stderr names the object.
    expect(result.stderr).toContain('error: deployments.apps "bad" is invalid\n');
    expect(result.stderr).toMatch(/A copy of your changes has been stored to "[^"]+"/);
  });
});

describe.skipIf(kubectlPath === undefined)('kubectl explain', suiteOptions, () => {
  it('explains a kind and a nested field of a built-in type', async () => {
    const kind = await k.ok(['explain', 'configmaps']);
    expect(kind).toMatch(/^KIND:\s+ConfigMap$/m);
    expect(kind).toMatch(/^VERSION:\s+v1$/m);
    expect(kind).toMatch(/^\s+data\s+<map\[string\]string>$/m);
    const field = await k.ok(['explain', 'deployment.spec.replicas']);
    expect(field).toMatch(/^KIND:\s+Deployment$/m);
    expect(field).toMatch(/^GROUP:\s+apps$|^VERSION:\s+apps\/v1$/m);
    expect(field).toMatch(/^FIELD:\s+replicas <integer>$/m);
    // The wording is the server's own; the field is described (kubectl prints `<empty>` otherwise).
    expect(field).toMatch(/^DESCRIPTION:\n\s+\S[^\n]*pods/m);
  });

  it('explains recursively', async () => {
    const out = await k.ok(['explain', 'pod.spec.containers', '--recursive']);
    expect(out).toMatch(/^\s+image\s+<string>$/m);
    expect(out).toMatch(/^\s+containerPort\s+<integer>/m);
  });

  it('refuses an unknown field', async () => {
    const result = await k.run(['explain', 'configmap.nothing']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('field "nothing" does not exist');
  });
});

describe.skipIf(kubectlPath === undefined)(
  'kubectl api-resources and api-versions',
  suiteOptions,
  () => {
    it('lists the served resources with short names, versions, scope and kind', async () => {
      const out = await k.ok(['api-resources']);
      expect(out).toMatch(/^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND$/m);
      expect(out).toMatch(/^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
      expect(out).toMatch(/^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
      expect(out).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    });

    it('filters by group, scope and verb and prints names', async () => {
      const apps = await k.ok(['api-resources', '--api-group=apps', '-o', 'name']);
      expect(apps.split('\n')).toEqual(
        expect.arrayContaining(['deployments.apps', 'statefulsets.apps']),
      );
      const cluster = await k.ok(['api-resources', '--namespaced=false', '-o', 'name']);
      expect(cluster.split('\n')).toContain('namespaces');
      expect(cluster.split('\n')).not.toContain('configmaps');
      const listable = await k.ok(['api-resources', '--verbs=list', '-o', 'name']);
      expect(listable.split('\n')).toContain('configmaps');
    });

    it('lists group versions', async () => {
      const out = (await k.ok(['api-versions'])).split('\n');
      expect(out).toEqual(expect.arrayContaining(['v1', 'apps/v1', 'batch/v1']));
    });
  },
);
