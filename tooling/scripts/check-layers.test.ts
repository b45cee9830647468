// Runs the layer check on small fixture workspaces: it must fail on an import of a package above,
// on an undeclared import, and on a library with no layer, and pass on a clean tree.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations.
import { checkLayers, knownCrossings } from './layer-rules.mjs';

type Manifest = {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};

const roots: string[] = [];

/** A fixture workspace: `files` maps paths under the root to contents (objects become JSON). */
function workspace(files: Record<string, string | Manifest>): string {
  const root = mkdtempSync(join(tmpdir(), 'lasso-layers-'));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(
      join(root, path),
      typeof content === 'string' ? content : JSON.stringify(content),
    );
  }
  return root;
}

const core = {
  'packages/core/package.json': { name: '@lasso/core' },
  'packages/core/src/index.ts': "export const x = 1;\nimport { readFileSync } from 'node:fs';\n",
};
const workqueue = (source: string, manifest: Partial<Manifest> = {}) => ({
  'packages/workqueue/package.json': {
    name: '@lasso/workqueue',
    dependencies: { '@lasso/core': 'workspace:^' },
    ...manifest,
  },
  'packages/workqueue/src/index.ts': source,
});

const check = (root: string, allowed = new Set<string>()): string[] =>
  checkLayers(root, allowed) as string[];

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('checkLayers', () => {
  it('passes a tree whose packages import only declared packages below them', () => {
    const root = workspace({
      ...core,
      ...workqueue("import type { Clock } from '@lasso/core';\nimport './local.ts';\n"),
    });
    expect(check(root)).toEqual([]);
  });

  it.for([
    { name: 'a static import', source: "import { createQueue } from '@lasso/workqueue';" },
    { name: 'a type-only import', source: "import type { WorkQueue } from '@lasso/workqueue';" },
    { name: 'an export from', source: "export { createQueue } from '@lasso/workqueue';" },
    { name: 'a dynamic import', source: "const m = await import('@lasso/workqueue');" },
    {
      name: 'a multi-line import',
      source:
        "import {\n  createQueue,\n  createDelayingQueue,\n} from '@lasso/workqueue/testing';",
    },
  ])('fails when a package imports a package above it ($name)', ({ source }) => {
    const root = workspace({
      'packages/core/package.json': {
        name: '@lasso/core',
        dependencies: { '@lasso/workqueue': 'workspace:^' },
      },
      'packages/core/src/index.ts': source,
      ...workqueue(''),
    });
    expect(check(root)).toEqual([
      'packages/core/src/index.ts: @lasso/core (layer 0) imports @lasso/workqueue (layer 1), which is not below it',
    ]);
  });

  it('fails when a test imports a package above it, even as a devDependency', () => {
    const root = workspace({
      'packages/core/package.json': {
        name: '@lasso/core',
        devDependencies: { '@lasso/workqueue': 'workspace:^' },
      },
      'packages/core/src/clock.test.ts': "import { createQueue } from '@lasso/workqueue';",
      ...workqueue(''),
    });
    expect(check(root)).toEqual([
      'packages/core/src/clock.test.ts: @lasso/core (layer 0) imports @lasso/workqueue (layer 1), which is not below it',
    ]);
  });

  it('fails when a package imports one it does not declare', () => {
    const root = workspace({ ...core, ...workqueue("import { request } from 'undici';") });
    expect(check(root)).toEqual([
      "packages/workqueue/src/index.ts: imports 'undici', which @lasso/workqueue does not declare in dependencies",
    ]);
  });

  it('lets tests (not library code) use devDependencies', () => {
    const root = workspace({
      ...core,
      ...workqueue("import fc from 'fast-check';", { devDependencies: { 'fast-check': '^4' } }),
      'packages/workqueue/src/queue.test.ts': "import fc from 'fast-check';",
    });
    expect(check(root)).toEqual([
      "packages/workqueue/src/index.ts: imports 'fast-check', which @lasso/workqueue does not declare in dependencies",
    ]);
  });

  it('keeps envtest away from the packages it tests', () => {
    const root = workspace({
      ...core,
      ...workqueue(''),
      'packages/envtest/package.json': {
        name: '@lasso/envtest',
        dependencies: { '@lasso/workqueue': 'workspace:^' },
      },
      'packages/envtest/src/index.ts': "import { createQueue } from '@lasso/workqueue';",
    });
    // envtest sits above workqueue now (it depends on @lasso/apiserver), so only the explicit ban applies.
    expect(check(root)).toEqual([
      'packages/envtest/src/index.ts: @lasso/envtest must not import @lasso/workqueue',
    ]);
  });

  it.for([
    { name: 'an import', source: "import { x } from '../../core/src/index.ts';" },
    { name: 'a type-only import', source: "import type { X } from '../../core/src/x.ts';" },
    { name: 'an export from', source: "export { x } from '../../core/src/index.ts';" },
    { name: 'a dynamic import', source: "const m = await import('../../core/src/index.ts');" },
  ])('fails when a relative import leaves the package ($name)', ({ source }) => {
    const root = workspace({
      ...core,
      ...workqueue(''),
      'packages/workqueue/test/a.test.ts': source,
    });
    expect(check(root)).toEqual([
      expect.stringMatching(
        /^packages\/workqueue\/test\/a\.test\.ts: imports '\.\.\/\.\.\/core\/src\/\w+\.ts', which leaves @lasso\/workqueue; import another package by its name$/,
      ),
    ]);
  });

  it('lets a relative import stay inside its package, and config files read the shared tooling', () => {
    const root = workspace({
      ...core,
      ...workqueue("import { x } from '../test/x.ts';\nexport * from './queue.ts';"),
      'packages/workqueue/vitest.config.ts':
        "import { lassoProject } from '../../tooling/vitest.shared.ts';",
    });
    expect(check(root)).toEqual([]);
  });

  it('fails for a library package that has no layer', () => {
    const root = workspace({
      ...core,
      'packages/unranked/package.json': { name: '@lasso/unranked' },
      'packages/unranked/src/index.ts': '',
    });
    expect(check(root)).toEqual([
      'packages/unranked: @lasso/unranked has no layer in tooling/scripts/layer-rules.mjs',
    ]);
  });

  it('lists a known crossing that no longer occurs, so the list of them only shrinks', () => {
    const root = workspace({ ...core, ...workqueue('') });
    expect(
      check(root, new Set(['packages/workqueue/src/index.ts -> ../../core/src/index.ts'])),
    ).toEqual([
      'packages/workqueue/src/index.ts -> ../../core/src/index.ts: no longer imported; remove it from knownCrossings',
    ]);
  });

  it('passes on this repository', () => {
    expect(checkLayers(fileURLToPath(new URL('../..', import.meta.url)), knownCrossings)).toEqual(
      [],
    );
  });
});

describe('check-layers.mjs', () => {
  const script = fileURLToPath(new URL('./check-layers.mjs', import.meta.url));

  it('exits 1 and lists the problems when the layers are broken', () => {
    const root = workspace({ ...core, ...workqueue("import { request } from 'undici';") });
    const result = spawnSync(process.execPath, [script, root], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("imports 'undici'");
  });

  it('exits 0 on a clean tree', () => {
    const root = workspace({ ...core, ...workqueue("import '@lasso/core';") });
    const result = spawnSync(process.execPath, [script, root], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('layer check passed');
  });
});
