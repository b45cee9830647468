// What `pnpm pack:all <packages>` tells a user to install: enough for the README examples and Testing sections
// of the packages named to compile and run in a strict project, where only direct dependencies resolve (pnpm).
// A pure function of the manifests and READMEs, so pack-all.test.ts checks it without building anything.

/** Node's built-in modules (`node:fs`, `fs`) are never installed. */
const builtin =
  /^(node:|(assert|buffer|child_process|crypto|events|fs|http|https|net|os|path|stream|timers|url|util|zlib)(\/|$))/;

/** Type definitions every example of a Kubernetes object uses (`ConfigMap`, `Deployment`): always installed. */
export const alwaysInstalled = ['kubernetes-types'];

/**
 * The package names a README's "## Example..." and "## Testing..." sections import in their ```ts blocks,
 * as `{ example, testing }` sets: `@lasso/core/testing` counts as `@lasso/core`, `kubernetes-types/core/v1.js`
 * as `kubernetes-types`; relative paths and Node built-ins are left out.
 */
export function readmeImports(markdown) {
  const found = { example: new Set(), testing: new Set() };
  for (const section of markdown.split(/^## /m).slice(1)) {
    const title = section.slice(0, section.indexOf('\n'));
    const kind = /^Example/i.test(title)
      ? 'example'
      : /^Testing/i.test(title)
        ? 'testing'
        : undefined;
    if (kind === undefined) continue;
    for (const [, code] of section.matchAll(
      /^```(?:ts|typescript|js|javascript)\n([\s\S]*?)^```/gm,
    )) {
      const specifiers = code.matchAll(
        /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm,
      );
      for (const match of specifiers) {
        const name = packageOf(match[1] ?? match[2]);
        if (name !== undefined) found[kind].add(name);
      }
    }
  }
  return found;
}

/** The package a bare specifier names (`@scope/name/sub` -> `@scope/name`), undefined for others. */
export function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || builtin.test(specifier)) {
    return undefined;
  }
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * The install lines' contents for `wanted` (package names; empty = every publishable package).
 *
 * - `lasso`: the @lasso packages to install together (npm line, pnpm overrides): those wanted, those their
 *   READMEs' examples and Testing sections import, and every @lasso package those depend on.
 * - `direct`: the @lasso packages a project imports (pnpm add line): the wanted ones and those their READMEs
 *   import, since pnpm resolves only direct dependencies (`@lasso/core` for `createShutdownSignal`).
 * - `external`: other packages the examples import, with the range the workspace uses, and
 *   {@link alwaysInstalled}; `dev`: those only the Testing sections import (`vitest`).
 *
 * @param {object} input
 * @param {Map<string, object>} input.manifests publishable package name -> package.json
 * @param {string[]} input.wanted package names asked for
 * @param {(name: string) => string | undefined} input.readme a package's README.md, undefined when none
 * @param {(name: string) => string | undefined} input.rangeOf the version range of an external package
 */
export function installSet({ manifests, wanted, readme, rangeOf }) {
  const names = [...manifests.keys()].sort();
  const asked = wanted.length > 0 ? wanted : names;
  const direct = new Set(asked);
  const exampleExternal = new Set(alwaysInstalled);
  const testingExternal = new Set();
  for (const name of asked) {
    const text = readme(name);
    if (text === undefined) continue;
    const { example, testing } = readmeImports(text);
    for (const [imported, into] of [
      ...[...example].map((dependency) => [dependency, exampleExternal]),
      ...[...testing].map((dependency) => [dependency, testingExternal]),
    ]) {
      if (manifests.has(imported)) direct.add(imported);
      else if (!imported.startsWith('@lasso/')) into.add(imported);
    }
  }
  const lasso = new Set();
  const select = (name) => {
    if (lasso.has(name) || !manifests.has(name)) return;
    lasso.add(name);
    const manifest = manifests.get(name);
    for (const dependency of Object.keys(manifest.dependencies ?? {})) select(dependency);
  };
  for (const name of direct) select(name);
  const versioned = (name) => {
    const range = rangeOf(name);
    return range === undefined ? name : `${name}@${range}`;
  };
  const external = [...exampleExternal].sort();
  const dev = [...testingExternal].filter((name) => !exampleExternal.has(name)).sort();
  return {
    lasso: names.filter((name) => lasso.has(name)),
    direct: names.filter((name) => direct.has(name)),
    external: external.map(versioned),
    dev: dev.map(versioned),
  };
}

/**
 * `rangeOf` for {@link installSet} from the workspace: the range the packages' manifests give a dependency
 * (any of dependencies, peer, dev), a `catalog:` range read from the workspace catalog.
 *
 * @param {object[]} manifests every package.json of the workspace
 * @param {Record<string, string>} catalog the `catalog:` of pnpm-workspace.yaml
 */
export function workspaceRanges(manifests, catalog) {
  return (name) => {
    for (const manifest of manifests) {
      for (const field of ['dependencies', 'peerDependencies', 'devDependencies']) {
        const range = manifest[field]?.[name];
        if (range === undefined) continue;
        if (range === 'catalog:' || range === 'catalog:default') return catalog[name];
        if (!/^(workspace|catalog|file|link):/.test(range)) return range;
      }
    }
    return catalog[name];
  };
}

/** The default catalog of a pnpm-workspace.yaml (the flat `catalog:` map; enough for this repository). */
export function parseCatalog(yamlText) {
  const catalog = {};
  const block = /^catalog:\n((?:[ \t]+.*\n?)*)/m.exec(yamlText);
  if (block === null) return catalog;
  for (const line of block[1].split('\n')) {
    const entry = /^\s+["']?([^"':#]+)["']?\s*:\s*["']?([^"'#\s]+)/.exec(line);
    if (entry !== null) catalog[entry[1].trim()] = entry[2];
  }
  return catalog;
}

// `^` and `~` are patterns in some shells (zsh): such words are quoted.
const shellWord = (word) => (/^[\w@/.:=+-]+$/.test(word) ? word : `'${word}'`);

/**
 * The printed install instructions for `set` (what {@link installSet} returns), `tarballOf` giving each @lasso
 * package's tarball path: the npm line (every @lasso tarball together, so their dependencies on each other
 * resolve to them, and the external packages), the pnpm overrides and `pnpm add` line, and a `--save-dev` line
 * for the test runner of the Testing sections.
 */
export function installLines(set, tarballOf) {
  const external = set.external.map(shellWord);
  const dev = set.dev.map(shellWord);
  const overrides = Object.fromEntries(set.lasso.map((name) => [name, `file:${tarballOf(name)}`]));
  const indented = JSON.stringify({ pnpm: { overrides } }, null, 2).replace(/^/gm, '  ');
  return [
    'They are not on the npm registry yet: install these files in your project.',
    '',
    'npm: install them together, so their dependencies on each other resolve to these files:',
    `  npm install ${[...set.lasso.map(tarballOf), ...external].join(' ')}`,
    ...(dev.length > 0 ? [`  npm install --save-dev ${dev.join(' ')}`] : []),
    '',
    'pnpm: first add these overrides to your package.json (without them pnpm looks the dependencies',
    'between the packages up on the registry and fails with a 404), then add the packages:',
    indented,
    `  pnpm add ${[...set.direct.map(tarballOf), ...external].join(' ')}`,
    ...(dev.length > 0 ? [`  pnpm add --save-dev ${dev.join(' ')}`] : []),
  ];
}
