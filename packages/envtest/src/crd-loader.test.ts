import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLassoError } from '@lasso/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CrdLoadError, loadCrdFiles, parseCrdYaml } from './crd-loader.ts';

const fixtures = fileURLToPath(new URL('./__fixtures__/crds', import.meta.url));
const names = (crds: Array<Record<string, unknown>>): unknown[] =>
  crds.map((crd) => (crd.metadata as { name: string }).name);

const crd = (overrides: string): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  names: { plural: widgets, kind: Widget }
  scope: Namespaced
  versions: [{ name: v1, served: true, storage: true }]
${overrides}`;

function loadError(run: () => unknown): CrdLoadError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CrdLoadError);
    return error as CrdLoadError;
  }
  throw new Error('expected a CrdLoadError');
}

describe('parseCrdYaml', () => {
  it('returns every CRD of a multi-document text and skips empty documents', () => {
    const crds = parseCrdYaml(`---\n${crd('')}---\n---\n${crd('').replaceAll('widget', 'gadget')}`);
    expect(names(crds)).toEqual(['widgets.example.com', 'gadgets.example.com']);
    expect(parseCrdYaml('')).toEqual([]);
    expect(parseCrdYaml('# only a comment\n---\n')).toEqual([]);
  });

  it('accepts a kind: List of CRDs', () => {
    const text = `apiVersion: v1\nkind: List\nitems:\n${crd('')
      .split('\n')
      .map((line, index) => (index === 0 ? `  - ${line}` : `    ${line}`))
      .join('\n')}`;
    expect(names(parseCrdYaml(text))).toEqual(['widgets.example.com']);
  });

  it('names the source, document and field of an invalid CRD', () => {
    const error = loadError(() =>
      parseCrdYaml(
        `${crd('')}---\n${crd('').replace('group: example.com', 'group: ""')}`,
        'crds.yaml',
      ),
    );
    expect(error.message).toBe(
      'crds.yaml: document 2: spec.group: must be a non-empty string, got ""',
    );
    expect(error).toMatchObject({
      source: 'crds.yaml',
      document: 2,
      field: 'spec.group',
      code: 'LASSO_INVALID_OBJECT',
    });
    expect(isLassoError(error, 'LASSO_INVALID_OBJECT')).toBe(true);
  });

  it('requires exactly one storage version', () => {
    const two = crd('').replace(
      '[{ name: v1, served: true, storage: true }]',
      '[{ name: v1, served: true, storage: true }, { name: v2, served: true, storage: true }]',
    );
    expect(loadError(() => parseCrdYaml(two)).message).toBe(
      '<input>: document 1: spec.versions: must have exactly one version marked storage: true, found 2',
    );
    const none = crd('').replace('storage: true', 'storage: false');
    expect(loadError(() => parseCrdYaml(none)).field).toBe('spec.versions');
    expect(
      loadError(() => parseCrdYaml(crd('').replace('versions: [', 'versions: [] #'))).field,
    ).toBe('spec.versions');
  });

  it('rejects other kinds and API versions, missing names and a mismatched metadata.name', () => {
    expect(loadError(() => parseCrdYaml('apiVersion: v1\nkind: ConfigMap\n')).message).toBe(
      '<input>: document 1: apiVersion: must be "apiextensions.k8s.io/v1", got "v1"',
    );
    expect(
      loadError(() =>
        parseCrdYaml(crd('').replace('apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1')),
      ).field,
    ).toBe('apiVersion');
    expect(
      loadError(() => parseCrdYaml(crd('').replace('kind: CustomResourceDefinition', 'kind: Crd')))
        .field,
    ).toBe('kind');
    expect(loadError(() => parseCrdYaml(crd('').replace('plural: widgets, ', ''))).field).toBe(
      'spec.names.plural',
    );
    expect(
      loadError(() => parseCrdYaml(crd('').replace('kind: Widget', 'singular: widget'))).field,
    ).toBe('spec.names.kind');
    expect(
      loadError(() => parseCrdYaml(crd('').replace('scope: Namespaced', 'scope: Global'))).field,
    ).toBe('spec.scope');
    expect(
      loadError(() => parseCrdYaml(crd('').replace('widgets.example.com', 'widget.example.com')))
        .field,
    ).toBe('metadata.name');
    expect(loadError(() => parseCrdYaml('- a\n- b\n')).message).toContain(
      'document 1: expected a CustomResourceDefinition object',
    );
  });

  it('reports YAML syntax errors with the document number', () => {
    const error = loadError(() => parseCrdYaml(`${crd('')}---\nkey: [unclosed\n`, 'bad.yaml'));
    expect(error.message).toMatch(/^bad\.yaml: document 2: invalid YAML: /);
  });

  it('names the list item of a bad CRD inside a List', () => {
    const error = loadError(() =>
      parseCrdYaml('kind: List\nitems:\n  - kind: CustomResourceDefinition\n'),
    );
    expect(error.message).toBe(
      '<input>: document 1, items[0]: apiVersion: must be "apiextensions.k8s.io/v1", missing',
    );
  });
});

describe('loadCrdFiles', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'lasso-crd-loader-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('reads the yaml, yml and json files of a directory in name order and ignores other files', async () => {
    const crds = await loadCrdFiles([fixtures]);
    expect(names(crds)).toEqual([
      'gadgets.example.com',
      'gizmos.example.com',
      'widgets.example.com',
      'clusterwidgets.example.com',
    ]);
  });

  it('reads single files in the order given', async () => {
    const crds = await loadCrdFiles([join(fixtures, 'list.yml'), join(fixtures, 'gadgets.json')]);
    expect(names(crds)).toEqual(['gizmos.example.com', 'gadgets.example.com']);
  });

  it('names the file of an invalid document', async () => {
    const file = join(directory, 'broken.yaml');
    await writeFile(file, crd('').replace('storage: true', 'storage: yes please'));
    await expect(loadCrdFiles([directory])).rejects.toThrow(
      `${file}: document 1: spec.versions[0].storage: must be a boolean`,
    );
  });

  it('names a missing path', async () => {
    const missing = join(directory, 'nope');
    const error = await loadCrdFiles([missing]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CrdLoadError);
    expect((error as CrdLoadError).message).toMatch(
      new RegExp(`^${missing.replaceAll('/', '\\/')}: cannot read CRD path: `),
    );
  });

  it('returns nothing for an empty directory and rejects bad arguments', async () => {
    await expect(loadCrdFiles([directory])).resolves.toEqual([]);
    await expect(loadCrdFiles([''])).rejects.toThrow(TypeError);
  });
});
