// The checked-in types of src/generated/ are what lasso-codegen makes of manifests/crd.yaml today: a CRD edited
// without `pnpm --filter @lasso/example-operator codegen` fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateTypes, loadCrdFiles } from '@lasso/codegen';
import { describe, expect, it } from 'vitest';

const generatedDir = fileURLToPath(new URL('./generated/', import.meta.url));
const crd = fileURLToPath(new URL('../manifests/crd.yaml', import.meta.url));

describe('src/generated', () => {
  it('is what lasso-codegen generates from manifests/crd.yaml (run `pnpm --filter @lasso/example-operator codegen`)', async () => {
    const expected = generateTypes(await loadCrdFiles([crd]), { importExtension: '.ts' });
    expect(readdirSync(generatedDir).sort()).toEqual([...expected.keys()]);
    for (const [name, text] of expected) {
      expect(readFileSync(`${generatedDir}${name}`, 'utf8'), name).toBe(text);
    }
  });
});
