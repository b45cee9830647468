// What `pnpm pack:all <packages>` prints must be enough for the README examples and Testing sections of the
// packages named: checked on this repository's manifests and READMEs, and on small fixtures.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations.
import * as installSetModule from './install-set.mjs';

type Manifest = { name: string; private?: boolean; dependencies?: Record<string, string> };
type InstallSet = { lasso: string[]; direct: string[]; external: string[]; dev: string[] };
const { installLines, installSet, packageOf, parseCatalog, readmeImports, workspaceRanges } =
  installSetModule as {
    installLines(set: InstallSet, tarballOf: (name: string) => string): string[];
    installSet(input: {
      manifests: Map<string, Manifest>;
      wanted: string[];
      readme(name: string): string | undefined;
      rangeOf(name: string): string | undefined;
    }): InstallSet;
    packageOf(specifier: string): string | undefined;
    parseCatalog(text: string): Record<string, string>;
    readmeImports(markdown: string): { example: Set<string>; testing: Set<string> };
    workspaceRanges(
      manifests: Manifest[],
      catalog: Record<string, string>,
    ): (name: string) => string;
  };

const root = join(import.meta.dirname, '..', '..');

/** This repository's publishable packages and what pack-all would print for `wanted`. */
function repository(wanted: string[]) {
  const folders = new Map<string, string>();
  const all: Manifest[] = readdirSync(join(root, 'packages'))
    .map((name) => join(root, 'packages', name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
      folders.set(manifest.name, dir);
      return manifest;
    });
  const manifests = new Map(all.filter((m) => m.private !== true).map((m) => [m.name, m]));
  const set = installSet({
    manifests,
    wanted,
    readme: (name) => {
      const file = join(folders.get(name) ?? '', 'README.md');
      return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    },
    rangeOf: workspaceRanges(
      all,
      parseCatalog(readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8')),
    ),
  });
  return {
    set,
    lines: installLines(set, (name) => `/packs/${name.slice(1).replace('/', '-')}.tgz`),
  };
}

describe('pack-all install lines', () => {
  it("cover the factory README's example and Testing section for `pack:all factory client`", () => {
    const { set, lines } = repository(['@lasso/factory', '@lasso/client']);
    // What the example and the Testing section import, pnpm resolving only direct dependencies.
    for (const name of [
      '@lasso/core',
      '@lasso/controller',
      '@lasso/envtest',
      '@lasso/factory',
      '@lasso/client',
    ]) {
      expect(set.direct).toContain(name);
      expect(set.lasso).toContain(name);
    }
    expect(set.external).toEqual([expect.stringMatching(/^kubernetes-types@\^1\./)]);
    expect(set.dev).toEqual([expect.stringMatching(/^vitest@/)]);
    const npm = lines.find((line) => line.startsWith('  npm install /')) ?? '';
    expect(npm).toContain('/packs/lasso-envtest.tgz');
    expect(npm).toContain('/packs/lasso-core.tgz');
    expect(npm).toMatch(/ 'kubernetes-types@\^1\.[^']+'$/);
    expect(lines).toContain(`  npm install --save-dev ${`'${set.dev[0]}'`}`);
    const pnpm = lines.find((line) => line.startsWith('  pnpm add /')) ?? '';
    for (const name of ['core', 'controller', 'envtest', 'factory', 'client']) {
      expect(pnpm).toContain(`/packs/lasso-${name}.tgz`);
    }
    // Every tarball the npm line installs has a pnpm override.
    const overrides = lines.join('\n');
    for (const name of set.lasso) expect(overrides).toContain(`"${name}": "file:/packs/`);
  });

  it('install, for every package named alone, each @lasso package its README imports', () => {
    const { set: everything } = repository([]);
    for (const name of everything.direct) {
      const { set } = repository([name]);
      expect(set.direct).toContain(name);
      for (const direct of set.direct) expect(set.lasso).toContain(direct);
      expect(set.external.some((entry) => entry.startsWith('kubernetes-types@'))).toBe(true);
    }
  });
});

describe('the root README', () => {
  it('lists every publishable package in its package table', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const table = readme.slice(
      readme.indexOf('## Packages'),
      readme.indexOf('\n## ', readme.indexOf('## Packages') + 1),
    );
    const { set } = repository([]);
    const missing = set.direct.filter(
      (name) => !table.includes(`[\`${name}\`](packages/${name.slice('@lasso/'.length)})`),
    );
    expect(missing).toEqual([]);
  });
});

describe('readmeImports', () => {
  it('reads the example and Testing sections only, by package', () => {
    const markdown = [
      '# @lasso/x',
      '## Install',
      '```ts',
      "import { nope } from '@lasso/install-only';",
      '```',
      '## Example: a controller',
      '```ts',
      "import { a } from '@lasso/a';",
      "import type { ConfigMap } from 'kubernetes-types/core/v1.js';",
      "import { readFileSync } from 'node:fs';",
      "import * as local from './local.ts';",
      "import { FakeClock } from '@lasso/core/testing';",
      "const lazy = await import('yaml');",
      '```',
      '## Testing',
      '```typescript',
      "import { expect, it } from 'vitest';",
      'import {',
      '  startEnvironment,',
      "} from '@lasso/envtest';",
      '```',
      '## API',
      '```ts',
      "import { b } from '@lasso/api-only';",
      '```',
    ].join('\n');
    const { example, testing } = readmeImports(markdown);
    expect([...example].sort()).toEqual(['@lasso/a', '@lasso/core', 'kubernetes-types', 'yaml']);
    expect([...testing].sort()).toEqual(['@lasso/envtest', 'vitest']);
  });

  it('names packages, not paths or built-ins', () => {
    expect(packageOf('@scope/name/deep/path.js')).toBe('@scope/name');
    expect(packageOf('kubernetes-types/apps/v1.js')).toBe('kubernetes-types');
    expect(packageOf('node:fs')).toBeUndefined();
    expect(packageOf('fs/promises')).toBeUndefined();
    expect(packageOf('../x.ts')).toBeUndefined();
  });
});

describe('installSet', () => {
  const manifests = new Map<string, Manifest>([
    ['@lasso/core', { name: '@lasso/core' }],
    [
      '@lasso/client',
      { name: '@lasso/client', dependencies: { '@lasso/core': '^0.1.0', undici: '^7' } },
    ],
    ['@lasso/envtest', { name: '@lasso/envtest', dependencies: { '@lasso/core': '^0.1.0' } }],
    ['@lasso/factory', { name: '@lasso/factory', dependencies: { '@lasso/client': '^0.1.0' } }],
  ]);
  const readmes: Record<string, string> = {
    '@lasso/factory': [
      '## Example',
      '```ts',
      "import { createShutdownSignal } from '@lasso/core';",
      "import { parse } from 'yaml';",
      '```',
      '## Testing',
      '```ts',
      "import { startEnvironment } from '@lasso/envtest';",
      "import { it } from 'vitest';",
      "import { parse } from 'yaml';",
      '```',
    ].join('\n'),
  };

  it('adds README imports, their @lasso dependencies, kubernetes-types, and the test runner as dev', () => {
    const set = installSet({
      manifests,
      wanted: ['@lasso/factory'],
      readme: (name) => readmes[name],
      rangeOf: (name) => ({ yaml: '^2.8.1', vitest: '^4.1.12' })[name],
    });
    expect(set).toEqual({
      lasso: ['@lasso/client', '@lasso/core', '@lasso/envtest', '@lasso/factory'],
      direct: ['@lasso/core', '@lasso/envtest', '@lasso/factory'],
      external: ['kubernetes-types', 'yaml@^2.8.1'],
      dev: ['vitest@^4.1.12'],
    });
  });

  it('resolves catalog ranges from the workspace', () => {
    const catalog = parseCatalog(
      'packages:\n  - a\n\ncatalog:\n  "@types/node": ^20.19.0\n  kubernetes-types: ^1.30.0\n\nother: 1\n',
    );
    expect(catalog).toEqual({ '@types/node': '^20.19.0', 'kubernetes-types': '^1.30.0' });
    const rangeOf = workspaceRanges(
      [{ name: 'a', devDependencies: { 'kubernetes-types': 'catalog:', x: '1.2.3' } } as Manifest],
      catalog,
    );
    expect(rangeOf('kubernetes-types')).toBe('^1.30.0');
    expect(rangeOf('x')).toBe('1.2.3');
    expect(rangeOf('unknown')).toBeUndefined();
  });
});
