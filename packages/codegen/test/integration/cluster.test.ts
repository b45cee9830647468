// --kubeconfig: the CRDs a cluster serves, read through @lasso/client, give the same modules as their files.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCodegen } from '../../src/cli.ts';
import { generateTypes } from '../../src/generate.ts';
import { loadCrdFiles } from '../../src/load.ts';

const corpus = fileURLToPath(new URL('../corpus/', import.meta.url));
// CRDs that kube-apiserver 1.20 accepts too (it refuses cert-manager's: a string field defaulting to "").
const files = [
  `${corpus}keda/keda.sh_scaledobjects.yaml`,
  fileURLToPath(new URL('../../../../apps/example-operator/manifests/crd.yaml', import.meta.url)),
];

let env: Environment;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lasso-codegen-cluster-'));
  env = await startEnvironment({ crds: files });
});
afterAll(async () => {
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCodegen(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

describe('lasso-codegen --kubeconfig', () => {
  it('writes, for the CRDs the cluster serves, what their files give', async () => {
    const out = join(dir, 'cluster');
    const result = await run([
      '--kubeconfig',
      env.kubeconfigPath,
      '--group',
      'keda.sh',
      '--group',
      'example.lasso.dev',
      '--out',
      out,
    ]);
    expect(result).toEqual({
      code: 0,
      stdout: `lasso-codegen: wrote example.lasso.dev_v1.ts, index.ts, keda.sh_v1alpha1.ts to ${out}\n`,
      stderr: '',
    });
    const expected = generateTypes(await loadCrdFiles(files));
    for (const [name, text] of expected) {
      expect(readFileSync(join(out, name), 'utf8'), name).toBe(text);
    }
  });

  it('exits 1 saying what the cluster answered when the kubeconfig cannot be used', async () => {
    const result = await run([
      '--kubeconfig',
      join(dir, 'missing-kubeconfig'),
      '--out',
      join(dir, 'x'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^lasso-codegen: cannot read the inputs: /);
  });
});
