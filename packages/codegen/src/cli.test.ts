import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCodegen } from './cli.ts';
import { parseCrdDocuments } from './load.ts';

const crdYaml = (kind: string, extra = '') => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${kind.toLowerCase()}s.example.com
spec:
  group: example.com
  scope: Namespaced
  names: { kind: ${kind}, plural: ${kind.toLowerCase()}s }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: { type: integer${extra} }
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lasso-codegen-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function run(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCodegen(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

describe('lasso-codegen', () => {
  it('reads multi-document YAML and JSON, skips documents that are not CRDs, and writes the modules', async () => {
    const deployment = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\n';
    writeFileSync(join(dir, 'crds.yaml'), `${crdYaml('Widget')}---\n${deployment}---\n`);
    // What `kubectl get crd -o json` prints: a List.
    const list = { kind: 'List', apiVersion: 'v1', items: [parseYaml(crdYaml('Gizmo'))] };
    writeFileSync(join(dir, 'list.json'), JSON.stringify(list));
    writeFileSync(join(dir, 'gadget.json'), JSON.stringify(parseYaml(crdYaml('Gadget'))));
    const out = join(dir, 'out');
    const result = await run(dir, '--out', out);
    expect(result).toEqual({
      code: 0,
      stdout: `lasso-codegen: wrote example.com_v1.ts, index.ts to ${out}\n`,
      stderr: '',
    });
    const module = readFileSync(join(out, 'example.com_v1.ts'), 'utf8');
    expect(module).toContain('export interface Gadget {');
    expect(module).toContain('export interface Gizmo {');
    expect(module).toContain('export interface Widget {');
    expect(readFileSync(join(out, 'index.ts'), 'utf8')).toContain("from './example.com_v1.js';");
  });

  it('--check exits 0 when the output is current and 1 naming the stale files; writing leaves current files alone', async () => {
    writeFileSync(join(dir, 'crd.yaml'), crdYaml('Widget'));
    const out = join(dir, 'out');
    expect((await run(join(dir, 'crd.yaml'), '--out', out, '--import-extension', '.ts')).code).toBe(
      0,
    );
    const mtime = statSync(join(out, 'index.ts')).mtimeMs;
    expect(
      await run(join(dir, 'crd.yaml'), '--out', out, '--import-extension', '.ts', '--check'),
    ).toEqual({
      code: 0,
      stdout: `lasso-codegen: 2 file(s) in ${out} are up to date\n`,
      stderr: '',
    });
    writeFileSync(join(dir, 'crd.yaml'), crdYaml('Widget', ', format: int32'));
    expect(
      await run(join(dir, 'crd.yaml'), '--out', out, '--import-extension', '.ts', '--check'),
    ).toEqual({
      code: 1,
      stdout: '',
      stderr: `lasso-codegen: 1 file(s) in ${out} are not what lasso-codegen generates: example.com_v1.ts\n`,
    });
    expect((await run(join(dir, 'crd.yaml'), '--out', out, '--import-extension', '.ts')).code).toBe(
      0,
    );
    expect(readFileSync(join(out, 'example.com_v1.ts'), 'utf8')).toContain('Format: `int32`.');
    expect(statSync(join(out, 'index.ts')).mtimeMs).toBe(mtime);
  });

  it('exits 1 naming the file, document and schema path of a bad CRD', async () => {
    writeFileSync(
      join(dir, 'bad.yaml'),
      `${crdYaml('Widget')}---\n${crdYaml('Gadget').replace('type: integer', 'type: int')}`,
    );
    const result = await run(join(dir, 'bad.yaml'), '--out', join(dir, 'out'));
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `lasso-codegen: ${join(dir, 'bad.yaml')} (document 2): spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.type: must be one of object, array, string, integer, number, boolean, got "int"\n`,
    );
  });

  it('exits 1 naming the file and line of YAML or JSON that does not parse, and for a missing file', async () => {
    writeFileSync(join(dir, 'broken.yaml'), 'kind: [unclosed\n');
    const yaml = await run(join(dir, 'broken.yaml'), '--out', join(dir, 'out'));
    expect(yaml.code).toBe(1);
    expect(yaml.stderr).toMatch(
      new RegExp(
        `^lasso-codegen: ${escapeRegExp(join(dir, 'broken.yaml'))}: not valid YAML at line \\d+, column \\d+: `,
      ),
    );
    writeFileSync(join(dir, 'broken.json'), '{"kind": ');
    const json = await run(join(dir, 'broken.json'), '--out', join(dir, 'out'));
    expect(json.code).toBe(1);
    expect(json.stderr).toMatch(
      new RegExp(`^lasso-codegen: ${escapeRegExp(join(dir, 'broken.json'))}: not valid JSON: `),
    );
    const missing = await run(join(dir, 'nope.yaml'), '--out', join(dir, 'out'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      `lasso-codegen: ${join(dir, 'nope.yaml')}: cannot read: ENOENT`,
    );
  });

  it('exits 1 when --group leaves no CRD', async () => {
    writeFileSync(join(dir, 'crd.yaml'), crdYaml('Widget'));
    expect(
      await run(join(dir, 'crd.yaml'), '--out', join(dir, 'out'), '--group', 'other.io'),
    ).toEqual({
      code: 1,
      stdout: '',
      stderr: 'lasso-codegen: no CustomResourceDefinition of the groups other.io among 1\n',
    });
  });

  it('exits 1 when the inputs hold no CRD', async () => {
    writeFileSync(
      join(dir, 'empty.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n',
    );
    expect(await run(join(dir, 'empty.yaml'), '--out', join(dir, 'out'))).toEqual({
      code: 1,
      stdout: '',
      stderr: `lasso-codegen: no CustomResourceDefinition in ${join(dir, 'empty.yaml')}\n`,
    });
  });

  it('exits 2 with the usage on bad flags, and 0 with it on --help', async () => {
    for (const argv of [
      ['crd.yaml'],
      ['--out', 'x'],
      ['crd.yaml', '--out', 'x', '--import-extension', '.mjs'],
      ['crd.yaml', '--out', 'x', '--bogus'],
      ['crd.yaml', '--out', 'x', '--context', 'c'],
    ]) {
      const result = await run(...argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toContain('Usage: lasso-codegen FILE|DIR... --out DIR');
    }
    expect((await run('crd.yaml')).stderr).toMatch(/^lasso-codegen: --out DIR is required\n/);
    const help = await run('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes: 0 done');
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function parseYaml(text: string): unknown {
  // The CRD above as an object, through the package's own reader of YAML.
  return (parseCrdDocuments(text, 'x.yaml')[0] as { crd: unknown }).crd;
}
