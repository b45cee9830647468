// A CRD installed with kubectl, and its custom resources through get (printer columns), apply, patch,
// scale, explain and delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../gates.ts';
import { type Kubectl, kubectlPath, startKubectl, suiteOptions } from './kubectl.ts';

let k: Kubectl;
let group: string;

function crdYaml(): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.${group}
spec:
  group: ${group}
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    listKind: WidgetList
    shortNames: [wd]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Colour
      type: string
      description: The widget's colour.
      jsonPath: .spec.colour
    - name: Ready
      type: boolean
      jsonPath: .status.ready
    - name: Size
      type: number
      priority: 1
      jsonPath: .spec.size
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    schema:
      openAPIV3Schema:
        type: object
        description: A Widget is a test object.
        properties:
          spec:
            type: object
            description: What the widget should be.
            properties:
              replicas:
                type: integer
                description: How many widgets.
              colour:
                type: string
                description: The widget's colour.
              size:
                type: number
              tags:
                type: array
                items:
                  type: string
          status:
            type: object
            properties:
              ready:
                type: boolean
              replicas:
                type: integer
`;
}

function widgetYaml(name: string, spec: string): string {
  return `apiVersion: ${group}/v1\nkind: Widget\nmetadata:\n  name: ${name}\nspec:\n${spec}`;
}

beforeAll(async () => {
  if (kubectlPath === undefined) return;
  k = await startKubectl();
  group = `kubectl${Math.random().toString(36).slice(2, 7)}.example.com`;
  const crd = k.file('crd.yaml', crdYaml());
  await k.ok(['apply', '-f', crd]);
  await k.ok(['wait', '--for=condition=Established', `crd/widgets.${group}`, '--timeout=30s']);
  // kubectl's discovery cache may predate the CRD, a real server serves a new CRD a moment after it is
  // Established and publishes its OpenAPI (what explain reads) a moment later still: neither has an
  // event to await, so both are bounded waits.
  const deadline = Date.now() + 40_000;
  await eventually(
    async () => (await k.run(['get', `widgets.${group}`, '-A'])).code === 0,
    deadline - Date.now(),
  );
  await eventually(
    async () => (await k.run(['explain', `widgets.${group}.spec`])).code === 0,
    Math.max(1, deadline - Date.now()),
  );
}, 60_000);

afterAll(async () => {
  await k?.stop();
});

describe.skipIf(kubectlPath === undefined)('kubectl with a CRD', suiteOptions, () => {
  it('applies a custom resource twice (created, then configured)', async () => {
    const ns = await k.namespace('crd');
    const path = k.file(`${ns}.yaml`, widgetYaml('w', '  replicas: 1\n  colour: red\n'));
    expect(await k.ok(['apply', '-f', path, '-n', ns])).toBe(`widget.${group}/w created\n`);
    k.file(`${ns}.yaml`, widgetYaml('w', '  replicas: 2\n'));
    expect(await k.ok(['apply', '-f', path, '-n', ns])).toBe(`widget.${group}/w configured\n`);
    const widget = JSON.parse(await k.ok(['get', 'widget', 'w', '-n', ns, '-o', 'json']));
    // A custom resource merges as JSON merge patch: the removed colour is gone.
    expect(widget.spec).toEqual({ replicas: 2 });
    expect(widget.metadata.generation).toBe(2);
  });

  it('prints additionalPrinterColumns (priority 1 only with -o wide), by short name too', async () => {
    const ns = await k.namespace('crd');
    await k.ok(['apply', '-f', '-', '-n', ns], {
      input: widgetYaml('w', '  replicas: 3\n  colour: blue\n  size: 1.5\n'),
    });
    const table = await k.ok(['get', 'wd', '-n', ns]);
    expect(table).toMatch(/^NAME\s+REPLICAS\s+COLOUR\s+READY\s+AGE\nw\s+3\s+blue\s+\S+\n$/);
    const wide = await k.ok(['get', 'widgets', '-n', ns, '-o', 'wide']);
    // Wide columns keep their place among the others.
    expect(wide).toMatch(
      /^NAME\s+REPLICAS\s+COLOUR\s+READY\s+SIZE\s+AGE\nw\s+3\s+blue\s+1.5\s+\S+\n$/,
    );
    await k.ok([
      'patch',
      'widget',
      'w',
      '-n',
      ns,
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"ready":true}}',
    ]);
    expect(await k.ok(['get', 'wd', 'w', '-n', ns, '--no-headers'])).toMatch(
      /^w\s+3\s+blue\s+true\s+\S+\n$/,
    );
  });

  it('creates with server-side apply and patches with a merge patch', async () => {
    const ns = await k.namespace('crd');
    const path = k.file(`${ns}-ssa.yaml`, widgetYaml('s', '  tags: [a, b]\n'));
    expect(await k.ok(['apply', '--server-side', '-f', path, '-n', ns])).toBe(
      `widget.${group}/s serverside-applied\n`,
    );
    expect(
      await k.ok([
        'patch',
        'widget',
        's',
        '-n',
        ns,
        '--type=merge',
        '-p',
        '{"spec":{"colour":"x"}}',
      ]),
    ).toBe(`widget.${group}/s patched\n`);
    const refused = await k.run([
      'patch',
      'widget',
      's',
      '-n',
      ns,
      '-p',
      '{"spec":{"colour":"y"}}',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `error: application/strategic-merge-patch+json is not supported by ${group}/v1, Kind=Widget: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
    );
  });

  it('refuses a custom resource whose spec has the wrong type', async () => {
    const ns = await k.namespace('crd');
    const result = await k.run(['apply', '-f', '-', '-n', ns, '--validate=false'], {
      input: widgetYaml('bad', '  colour: 5\n'),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'The Widget "bad" is invalid: spec.colour: Invalid value: "integer": spec.colour in body must be of type string: "integer"\n',
    );
  });

  it('scales through the scale subresource', async () => {
    const ns = await k.namespace('crd');
    await k.ok(['apply', '-f', '-', '-n', ns], { input: widgetYaml('sc', '  replicas: 1\n') });
    expect(await k.ok(['scale', `widget/sc`, '--replicas=5', '-n', ns])).toBe(
      `widget.${group}/sc scaled\n`,
    );
    expect(await k.ok(['get', 'widget', 'sc', '-n', ns, '-o', 'jsonpath={.spec.replicas}'])).toBe(
      '5',
    );
  });

  it('explains the custom resource from its schema', async () => {
    const kind = await k.ok(['explain', `widgets.${group}`]);
    expect(kind).toMatch(/^KIND:\s+Widget$/m);
    expect(kind).toContain('A Widget is a test object.');
    const field = await k.ok(['explain', `widgets.${group}.spec.colour`]);
    expect(field).toMatch(/^FIELD:\s+colour <string>$/m);
    expect(field).toContain("The widget's colour.");
  });

  it('lists the resource in api-resources and deletes a custom resource', async () => {
    const resources = await k.ok(['api-resources', `--api-group=${group}`]);
    expect(resources).toMatch(new RegExp(`^widgets\\s+wd\\s+${group}/v1\\s+true\\s+Widget$`, 'm'));
    const ns = await k.namespace('crd');
    await k.ok(['apply', '-f', '-', '-n', ns], { input: widgetYaml('gone', '  replicas: 1\n') });
    expect(await k.ok(['delete', 'widget', 'gone', '-n', ns])).toBe(
      `widget.${group} "gone" deleted\n`,
    );
    expect(await k.ok(['get', 'widgets', '-n', ns, '-o', 'name'])).toBe('');
  });
});
