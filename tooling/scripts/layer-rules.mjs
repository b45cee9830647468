// The layer rules behind check-layers.mjs: a package may import only packages below it in the layer
// order, only packages it declares in its package.json, and another package only by its name (a relative
// import that leaves the package's directory bypasses both rules). Kept apart so tests can run it on fixtures.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';

// Lower number = lower layer. A package may import only packages with a strictly lower rank.
// apiserver and envtest stand beside the stack on purpose: they must not share @lasso/client's or
// @lasso/workqueue's bugs (envtest sits on apiserver, and the client's tests sit on envtest).
const layers = {
  '@lasso/core': 0,
  '@lasso/workqueue': 1,
  '@lasso/apiserver': 1,
  '@lasso/envtest': 2,
  '@lasso/client': 3,
  '@lasso/cache': 4,
  '@lasso/controller': 5,
  // client-node's informer interface over a lasso informer: the cache and the client below it, nothing above.
  '@lasso/client-node-bridge': 5,
  // Beside the factory, above the controller: its tests drive a controller over a SQL-backed informer.
  '@lasso/sqlcache': 6,
  '@lasso/factory': 6,
  '@lasso/dynamic': 7,
  // Above the dynamic controller: it may use the factory's Kind<T> tokens, the client's types and core.
  '@lasso/webhook': 8,
  // Build-time only (CRDs to types), never imported by a runtime: it reads a cluster's CRDs through the client,
  // and its tests compile the generated modules, which import the factory's Kind<T>.
  '@lasso/codegen': 9,
  // The operator runtime: owns the factories, leader election, recorders, probes and the process's shutdown;
  // may use the webhook server. Only apps sit above it.
  '@lasso/operator': 9,
};
const forbidden = {
  '@lasso/apiserver': ['@lasso/client', '@lasso/workqueue', '@lasso/envtest'],
  '@lasso/envtest': ['@lasso/client', '@lasso/workqueue'],
};

const builtins = new Set(builtinModules);
const importPattern =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

function walk(dir, out = []) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.(ts|mts|js|mjs)$/.test(entry)) out.push(path);
  }
  return out;
}

function packageNameOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return undefined;
  if (specifier.startsWith('node:') || builtins.has(specifier.split('/')[0])) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

// Relative imports across packages still to be removed, each as `file -> specifier`: @lasso/dynamic's tests
// reuse @lasso/factory's test fixtures by path (factory has no testing entry for them yet). The check fails
// on any other such import, and on an entry here that no longer occurs, so the list only shrinks.
export const knownCrossings = new Set([
  'packages/dynamic/src/dynamic-controller.test.ts -> ../../factory/src/__fixtures__/fake-cluster.ts',
  'packages/dynamic/test/integration/helpers.ts -> ../../../factory/test/integration/helpers.ts',
]);

const isConfig = (path) => /(^|[/\\])[^/\\]+\.config\.[cm]?[jt]s$/.test(path);
const isInside = (dir, path) => path === dir || path.startsWith(dir + sep);

/**
 * Every layer problem of the workspace at `root` (a directory holding packages/, apps/, tooling/),
 * one message per offending import; empty when the layers hold.
 */
export function checkLayers(root, allowed = knownCrossings) {
  const problems = [];
  const seen = new Set();
  for (const group of ['packages', 'apps', 'tooling']) {
    let dirs;
    try {
      dirs = readdirSync(join(root, group));
    } catch {
      continue;
    }
    for (const dir of dirs) {
      const pkgDir = join(root, group, dir);
      let manifest;
      try {
        manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
      } catch {
        continue;
      }
      const name = manifest.name;
      const runtime = new Set([
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
      ]);
      const dev = new Set(Object.keys(manifest.devDependencies ?? {}));
      const rank = layers[name];
      // A library without a rank would escape the check entirely.
      if (group === 'packages' && rank === undefined) {
        problems.push(
          `${relative(root, pkgDir)}: ${name} has no layer in tooling/scripts/layer-rules.mjs`,
        );
      }
      for (const file of walk(pkgDir)) {
        const rel = relative(root, file);
        const isTestOnly =
          /\.test\.ts$|\.test-d\.ts$|[/\\]test[/\\]|[/\\]testing[/\\]|config\.ts$/.test(rel);
        const source = readFileSync(file, 'utf8');
        for (const match of source.matchAll(importPattern)) {
          const specifier = match[1] ?? match[2];
          // Build and test configuration (vitest.config.ts, tsup.config.ts) may read the workspace's shared
          // configuration; code may not reach into another package's files.
          if (
            specifier.startsWith('.') &&
            !isConfig(rel) &&
            !isInside(pkgDir, resolve(dirname(file), specifier))
          ) {
            const crossing = `${rel.split(sep).join('/')} -> ${specifier}`;
            if (allowed.has(crossing)) {
              seen.add(crossing);
              continue;
            }
            problems.push(
              `${rel}: imports '${specifier}', which leaves ${name}; import another package by its name`,
            );
            continue;
          }
          const dependency = packageNameOf(specifier);
          if (dependency === undefined || dependency === name) continue;
          const declared = runtime.has(dependency) || (isTestOnly && dev.has(dependency));
          if (!declared) {
            problems.push(
              `${rel}: imports '${dependency}', which ${name} does not declare in ${isTestOnly ? 'dependencies or devDependencies' : 'dependencies'}`,
            );
          }
          const target = layers[dependency];
          if (rank !== undefined && target !== undefined && target >= rank) {
            problems.push(
              `${rel}: ${name} (layer ${rank}) imports ${dependency} (layer ${target}), which is not below it`,
            );
          }
          if ((forbidden[name] ?? []).includes(dependency)) {
            problems.push(`${rel}: ${name} must not import ${dependency}`);
          }
        }
      }
    }
  }
  for (const crossing of allowed) {
    if (!seen.has(crossing)) {
      problems.push(`${crossing}: no longer imported; remove it from knownCrossings`);
    }
  }
  return problems;
}
