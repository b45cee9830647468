#!/usr/bin/env node
// Checks the packages as users get them, not as the workspace sees them: packs every publishable package,
// installs the tarballs into a scratch project outside the workspace, type-checks a program importing every
// entry point (strict, NodeNext, skipLibCheck: false) in ESM and CJS, and runs it with import and require().
// Run after `pnpm build`. LASSO_KEEP_PACKED=1 keeps the scratch directory for a look.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const started = performance.now();
const problems = [];

function step(message) {
  process.stdout.write(
    `check-packed: ${message} (${((performance.now() - started) / 1000).toFixed(1)} s)\n`,
  );
}

function run(command, args, options) {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...options,
  });
  if (result.error) throw result.error;
  return result;
}

class CheckFailed extends Error {}

function fail(message) {
  throw new CheckFailed(message);
}

// Every non-private package under packages/, so a package added later is checked without editing this file.
const packages = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter(
    (entry) =>
      entry.isDirectory() && existsSync(join(root, 'packages', entry.name, 'package.json')),
  )
  .map((entry) => {
    const dir = join(root, 'packages', entry.name);
    return { dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) };
  })
  .filter(({ manifest }) => manifest.private !== true);
if (packages.length === 0) throw new Error('check-packed: no publishable package under packages/');

/** Every file an exports map (or main/types/module) points to, with the subpaths to import. */
function entryPoints(manifest) {
  const targets = new Set();
  const collect = (value) => {
    if (typeof value === 'string') targets.add(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(collect);
  };
  collect(manifest.exports);
  for (const field of ['main', 'types', 'typings', 'module']) collect(manifest[field]);
  const exportsMap = manifest.exports ?? {};
  const subpaths =
    typeof exportsMap === 'string' || Array.isArray(exportsMap)
      ? ['.']
      : Object.keys(exportsMap).filter((key) => key.startsWith('.') && !key.includes('*'));
  const specifiers = subpaths
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) => (subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`));
  return { targets: [...targets].filter((target) => !target.includes('*')), specifiers };
}

const rootLicense = readFileSync(join(root, 'LICENSE'), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'lasso-packed-'));
const tarballs = join(scratch, 'tarballs');
const consumer = join(scratch, 'consumer');
mkdirSync(tarballs);
mkdirSync(consumer);

try {
  // 1. Pack (pnpm rewrites workspace: and catalog: ranges, as `pnpm publish` does).
  const filters = packages.flatMap(({ manifest }) => ['--filter', manifest.name]);
  const pack = run('pnpm', ['-r', ...filters, 'pack', '--pack-destination', tarballs, '--json'], {
    cwd: root,
  });
  if (pack.status !== 0) fail(`pnpm pack exited ${pack.status}:\n${pack.stderr}${pack.stdout}`);
  const jsonStart = pack.stdout.search(/[[{]/);
  const packed = [JSON.parse(pack.stdout.slice(jsonStart))].flat();
  step(`packed ${packed.map((entry) => entry.name).join(', ')}`);

  // 2. What each tarball holds.
  const byName = new Map(packed.map((entry) => [entry.name, entry]));
  const codes = [];
  for (const { dir, manifest } of packages) {
    const entry = byName.get(manifest.name);
    if (entry === undefined) {
      problems.push(`${manifest.name}: pnpm pack gave no tarball`);
      continue;
    }
    const files = new Set(entry.files.map((file) => file.path.replace(/^package\//, '')));
    const { targets } = entryPoints(manifest);
    for (const target of targets) {
      if (!files.has(target.replace(/^\.\//, ''))) {
        problems.push(`${manifest.name}: exports target ${target} is not in the tarball (built?)`);
      }
    }
    if (!files.has('LICENSE')) problems.push(`${manifest.name}: no LICENSE in the tarball`);
    else if (readFileSync(join(dir, 'LICENSE'), 'utf8') !== rootLicense) {
      problems.push(
        `${manifest.name}: LICENSE differs from the repository's (copy it from the root)`,
      );
    }
    const readme = existsSync(join(dir, 'README.md'))
      ? readFileSync(join(dir, 'README.md'), 'utf8')
      : '';
    if (/CHANGELOG\.md/.test(readme) && !files.has('CHANGELOG.md')) {
      problems.push(`${manifest.name}: README points to CHANGELOG.md, which is not in the tarball`);
    }
    for (const file of files) {
      if (/\.test(-d)?\.ts$|__fixtures__/.test(file))
        problems.push(`${manifest.name}: publishes ${file}`);
    }
    // The error codes the package declares into core's LassoErrorCodes: the consumer program uses them,
    // so a declaration bundle that drops the augmentation fails the type check.
    const errors = join(dir, 'src', 'errors.ts');
    if (existsSync(errors)) {
      for (const block of readFileSync(errors, 'utf8').matchAll(
        /interface LassoErrorCodes \{([\s\S]*?)\n\s*\}/g,
      )) {
        for (const code of block[1].matchAll(/^\s*(LASSO_[A-Z0-9_]+)\??:/gm)) codes.push(code[1]);
      }
    }
  }
  if (problems.length > 0) fail(problems.join('\n'));

  // 3. A scratch consumer outside the workspace. Overrides make the packages' dependencies on each other
  // resolve to these tarballs, not to the registry. @types/node and kubernetes-types are the versions the
  // workspace installed, so their files come from the pnpm store.
  const tarballOf = (name) =>
    `file:${join(tarballs, byName.get(name).filename.split(/[/\\]/).pop())}`;
  const lasso = Object.fromEntries(
    packages.map(({ manifest }) => [manifest.name, tarballOf(manifest.name)]),
  );
  const workspaceRequire = createRequire(join(root, 'packages', 'client', 'package.json'));
  const versionOf = (name) =>
    JSON.parse(readFileSync(workspaceRequire.resolve(`${name}/package.json`), 'utf8')).version;
  writeFileSync(
    join(consumer, 'package.json'),
    `${JSON.stringify(
      {
        name: 'lasso-packed-consumer',
        private: true,
        type: 'commonjs',
        dependencies: {
          ...lasso,
          '@types/node': versionOf('@types/node'),
          'kubernetes-types': versionOf('kubernetes-types'),
        },
        pnpm: { overrides: lasso },
      },
      null,
      2,
    )}\n`,
  );
  const install = run(
    'pnpm',
    [
      'install',
      '--prefer-offline',
      '--ignore-scripts',
      '--config.auto-install-peers=true',
      '--reporter=silent',
    ],
    { cwd: consumer },
  );
  if (install.status !== 0)
    fail(`pnpm install exited ${install.status}:\n${install.stderr}${install.stdout}`);
  step('installed the tarballs into a scratch project');

  // 4. Type-check as a strict consumer would, both module kinds, every entry point.
  const specifiers = packages.flatMap(({ manifest }) => entryPoints(manifest).specifiers);
  const alias = (index) => `entry${index}`;
  const usage = [
    `export const loaded = [${specifiers.map((_, index) => alias(index)).join(', ')}];`,
    ...(packages.some(({ manifest }) => manifest.name === '@lasso/core')
      ? [
          `export const codes: import('@lasso/core').LassoErrorCode[] = ${JSON.stringify(codes)};`,
          `export const guard = (value: unknown) => ${alias(specifiers.indexOf('@lasso/core'))}.isLassoError(value, ${JSON.stringify(codes[0] ?? 'LASSO_TIMEOUT')});`,
        ]
      : []),
  ];
  writeFileSync(
    join(consumer, 'check.mts'),
    [
      ...specifiers.map((specifier, index) => `import * as ${alias(index)} from '${specifier}';`),
      ...usage,
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(consumer, 'check.cts'),
    [
      ...specifiers.map((specifier, index) => `import ${alias(index)} = require('${specifier}');`),
      ...usage,
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    `${JSON.stringify(
      {
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          lib: ['ES2023'],
          types: ['node'],
          skipLibCheck: false,
          noEmit: true,
        },
        files: ['check.mts', 'check.cts'],
      },
      null,
      2,
    )}\n`,
  );
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  const typecheck = run(process.execPath, [tsc, '-p', join(consumer, 'tsconfig.json')], {
    cwd: consumer,
  });
  if (typecheck.status !== 0) {
    fail(
      `tsc (strict, NodeNext, skipLibCheck: false) failed on the packed packages:\n${typecheck.stdout}${typecheck.stderr}`,
    );
  }
  step(`type-checked ${specifiers.length} entry points as ESM and CJS`);

  // 5. Load every entry point with import and with require() (Node >= 20.19 loads ESM through it).
  const lister = (load) =>
    `const specifiers = ${JSON.stringify(specifiers)};\nconst out = {};\n` +
    `for (const specifier of specifiers) out[specifier] = Object.keys(${load}).sort();\n` +
    'process.stdout.write(JSON.stringify(out));\n';
  writeFileSync(join(consumer, 'run.mjs'), lister('await import(specifier)'));
  writeFileSync(join(consumer, 'run.cjs'), lister('require(specifier)'));
  const loaded = {};
  for (const file of ['run.mjs', 'run.cjs']) {
    const result = run(process.execPath, [file], { cwd: consumer });
    if (result.status !== 0) fail(`node ${file} failed:\n${result.stderr}`);
    loaded[file] = JSON.parse(result.stdout);
  }
  for (const specifier of specifiers) {
    const esm = loaded['run.mjs'][specifier];
    const cjs = loaded['run.cjs'][specifier];
    if (esm.length === 0) problems.push(`${specifier}: import gave no exports`);
    if (esm.join() !== cjs.join())
      problems.push(`${specifier}: import and require() give different exports`);
  }
  if (problems.length > 0) fail(problems.join('\n'));
  step(
    `passed: ${packages.length} packages, ${specifiers.length} entry points loaded with import and require()`,
  );
} catch (error) {
  if (!(error instanceof CheckFailed)) throw error;
  process.stderr.write(`check-packed failed:\n  ${error.message.split('\n').join('\n  ')}\n`);
  process.exitCode = 1;
} finally {
  if (process.env.LASSO_KEEP_PACKED === '1')
    process.stdout.write(`check-packed: kept ${scratch}\n`);
  else rmSync(scratch, { recursive: true, force: true });
}
