#!/usr/bin/env node
// `pnpm pack:all`: the @lasso/* packages are not on the npm registry yet. This builds every publishable package
// (packages/*/package.json without "private": true, found at run time, so a new package needs no edit here),
// packs each into a tarball in one folder (default `.packs/` at the repository root, gitignored) and prints
// how to install them in another project.
//
// `pnpm pack` rewrites `workspace:^` ranges to the version (`@lasso/core: ^0.1.0`), as `pnpm publish` will,
// so a tarball's dependencies on the other @lasso packages still name registry versions. npm resolves them to
// the tarballs when they are installed together (it dedupes onto the ones already placed); pnpm asks the
// registry and fails with a 404 unless `pnpm.overrides` points each name at its tarball, which is printed too.
//
// Usage: node tooling/scripts/pack-all.mjs [--out <dir>] [--no-build] [package ...]
//   package: the packages you import (`factory` or `@lasso/factory`); the printed install lines then hold
//   what their README examples and Testing sections need (install-set.mjs): those packages, the @lasso
//   packages their READMEs import (`@lasso/envtest` for a Testing section), every @lasso package those depend
//   on, `kubernetes-types`, and the test runner as a dev dependency. Default: all. Every publishable package is
//   packed either way.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { installLines, installSet, parseCatalog, workspaceRanges } from './install-set.mjs';

const root = join(import.meta.dirname, '..', '..');

function usage(message) {
  if (message) process.stderr.write(`pack-all: ${message}\n`);
  process.stderr.write(
    'usage: node tooling/scripts/pack-all.mjs [--out <dir>] [--no-build] [package ...]\n',
  );
  process.exit(2);
}

let out = join(root, '.packs');
let build = true;
const wanted = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--no-build') build = false;
  else if (arg === '--out') {
    const value = args[++i];
    if (value === undefined || value === '') usage('--out needs a directory');
    out = resolve(value);
  } else if (arg.startsWith('--out=')) out = resolve(arg.slice('--out='.length));
  else if (arg === '--help' || arg === '-h') usage();
  else if (arg.startsWith('-')) usage(`unknown option ${arg}`);
  else wanted.push(arg.startsWith('@') ? arg : `@lasso/${arg}`);
}

function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...options,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    // pnpm reports a failing build on stdout; the end of the output is where the error is.
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trimEnd().split('\n').slice(-60);
    process.stderr.write(
      `pack-all: ${command} ${commandArgs.join(' ')} exited ${result.status}\n${output.join('\n')}\n`,
    );
    process.exit(1);
  }
  return result;
}

// Every non-private package under packages/ (with the folder its README is in).
const folders = new Map();
const allManifests = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => join(root, 'packages', entry.name))
  .filter((dir) => existsSync(join(dir, 'package.json')))
  .map((dir) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    folders.set(manifest.name, dir);
    return manifest;
  });
const packages = allManifests
  .filter((manifest) => manifest.private !== true)
  .sort((a, b) => a.name.localeCompare(b.name));
if (packages.length === 0) usage('no publishable package under packages/');
const names = packages.map((manifest) => manifest.name);
for (const name of wanted) {
  if (!names.includes(name)) usage(`${name} is not a publishable package (${names.join(', ')})`);
}
// What to install: enough for the READMEs of the packages asked for (install-set.mjs says what that is).
const workspaceYaml = join(root, 'pnpm-workspace.yaml');
const toInstall = installSet({
  manifests: new Map(packages.map((manifest) => [manifest.name, manifest])),
  wanted,
  readme: (name) => {
    const file = join(folders.get(name), 'README.md');
    return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  },
  rangeOf: workspaceRanges(
    allManifests,
    existsSync(workspaceYaml) ? parseCatalog(readFileSync(workspaceYaml, 'utf8')) : {},
  ),
});
const filters = names.flatMap((name) => ['--filter', name]);

if (build) {
  process.stdout.write(`pack-all: building ${names.join(', ')}\n`);
  // pnpm -r runs the builds in dependency order.
  run('pnpm', ['-r', ...filters, 'run', 'build']);
}

// Drop tarballs of earlier versions of these packages so the folder holds one of each.
mkdirSync(out, { recursive: true });
const tarballPrefixes = names.map((name) => `${name.replace(/^@/, '').replace('/', '-')}-`);
for (const file of readdirSync(out)) {
  if (file.endsWith('.tgz') && tarballPrefixes.some((prefix) => file.startsWith(prefix))) {
    rmSync(join(out, file));
  }
}

const pack = run('pnpm', ['-r', ...filters, 'pack', '--pack-destination', out, '--json']);
const packed = [JSON.parse(pack.stdout.slice(pack.stdout.search(/[[{]/)))].flat();
const tarballs = new Map(packed.map((entry) => [entry.name, resolve(out, entry.filename)]));

// What pnpm pack wrote must install outside the workspace: no workspace: or catalog: range left, and a build.
const problems = [];
for (const manifest of packages) {
  const tarball = tarballs.get(manifest.name);
  if (tarball === undefined) {
    problems.push(`${manifest.name}: pnpm pack gave no tarball`);
    continue;
  }
  const packedManifest = JSON.parse(
    run('tar', ['-xzOf', tarball, 'package/package.json'], { cwd: out }).stdout,
  );
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [dependency, range] of Object.entries(packedManifest[field] ?? {})) {
      if (/^(workspace|catalog):/.test(range)) {
        problems.push(`${manifest.name}: ${field}.${dependency} is still ${range}`);
      }
    }
  }
  const files = packed.find((entry) => entry.name === manifest.name)?.files ?? [];
  if (!files.some((file) => /^(package\/)?dist\//.test(file.path))) {
    problems.push(`${manifest.name}: no dist/ in the tarball (run without --no-build)`);
  }
}
if (problems.length > 0) {
  process.stderr.write(`pack-all: the tarballs are not installable:\n  ${problems.join('\n  ')}\n`);
  process.exit(1);
}

process.stdout.write(
  [
    `pack-all: packed ${names.length} packages into ${out}`,
    ...names.map((name) => `  ${tarballs.get(name)}`),
    '',
    ...installLines(toInstall, (name) => tarballs.get(name)),
    ...(wanted.length > 0
      ? []
      : ['', 'Name the packages you import to shorten these lines: pnpm pack:all factory client']),
    '',
  ].join('\n'),
);
