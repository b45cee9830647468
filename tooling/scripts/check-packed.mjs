#!/usr/bin/env node
// Checks the packages as users get them, not as the workspace sees them: packs every publishable package,
// installs the tarballs into a scratch project outside the workspace, type-checks a program importing every
// entry point (strict, NodeNext, skipLibCheck: false) in ESM and CJS, and runs it with import and require().
// A package depending on better-sqlite3 gets the native driver installed in the scratch project and a database
// opened through its public API, so a driver that does not load fails here and not at a user's.
// Run after `pnpm build`. LASSO_KEEP_PACKED=1 keeps the scratch directory for a look.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
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
        // onlyBuiltDependencies: pnpm 10 builds a dependency only when allowed (the fallback rebuild below).
        pnpm: { overrides: lasso, onlyBuiltDependencies: ['better-sqlite3'] },
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

  // 3b. The native driver. The install above ran no install script, so better-sqlite3 has no binary yet, and a
  // package that loads it lazily (as @lasso/sqlcache does) would still pass steps 4 and 5. Compiling it from source
  // again costs about 2 CPU-minutes: when the scratch project got the same better-sqlite3 version as the
  // workspace and the workspace's build exists, its build/Release/better_sqlite3.node is copied in (same version,
  // same Node binary running both, so the same ABI); otherwise `pnpm rebuild better-sqlite3` runs its install
  // script (prebuild-install, else node-gyp). Step 6 then opens a database through the package's public API.
  const sqlitePackages = packages.filter(
    ({ manifest }) => manifest.dependencies?.['better-sqlite3'] !== undefined,
  );
  for (const { dir, manifest } of sqlitePackages) {
    const installed = realpathSync(join(consumer, 'node_modules', ...manifest.name.split('/')));
    const scratchDriver = realpathSync(
      join(
        createRequire(join(installed, 'package.json')).resolve('better-sqlite3/package.json'),
        '..',
      ),
    );
    const binary = join('build', 'Release', 'better_sqlite3.node');
    if (existsSync(join(scratchDriver, binary))) continue;
    const workspaceDriver = realpathSync(
      join(createRequire(join(dir, 'package.json')).resolve('better-sqlite3/package.json'), '..'),
    );
    const version = (driver) =>
      JSON.parse(readFileSync(join(driver, 'package.json'), 'utf8')).version;
    if (
      version(scratchDriver) === version(workspaceDriver) &&
      existsSync(join(workspaceDriver, binary))
    ) {
      mkdirSync(join(scratchDriver, 'build', 'Release'), { recursive: true });
      copyFileSync(join(workspaceDriver, binary), join(scratchDriver, binary));
      step(`better-sqlite3 ${version(scratchDriver)}: reused the workspace's native binary`);
    } else {
      const rebuild = run('pnpm', ['rebuild', 'better-sqlite3'], { cwd: consumer });
      if (rebuild.status !== 0 || !existsSync(join(scratchDriver, binary))) {
        fail(
          `pnpm rebuild better-sqlite3 exited ${rebuild.status} without ${binary}:\n${rebuild.stderr}${rebuild.stdout}`,
        );
      }
      step(`better-sqlite3 ${version(scratchDriver)}: built by its install script`);
    }
  }

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

  // 6. The native driver loads: a :memory: database through the driver seam, then a store in a database file
  // (created and removed by openSqlDatabase), with import and with require().
  if (sqlitePackages.some(({ manifest }) => manifest.name === '@lasso/sqlcache')) {
    const body = [
      "const connection = sqlcache.betterSqlite3Driver().open(':memory:');",
      "const { version } = connection.prepare('SELECT sqlite_version() AS version').get();",
      "connection.exec('CREATE TABLE t (k TEXT)');",
      "connection.prepare('INSERT INTO t (k) VALUES (?)').run('a');",
      "const rows = connection.prepare('SELECT k FROM t').all();",
      'connection.close();',
      'const database = sqlcache.openSqlDatabase();',
      "const store = sqlcache.createSqlStore(database, { gvk: { group: '', version: 'v1', kind: 'Secret' } });",
      "store.add({ metadata: { namespace: 'default', name: 's' }, data: { token: 'dG9rZW4=' } });",
      "const listed = store.listByOptions({ namespace: 'default' });",
      'database.close();',
      'process.stdout.write(JSON.stringify({ version, rows, total: listed.total, data: listed.items[0]?.data }));',
      '',
    ].join('\n');
    writeFileSync(
      join(consumer, 'sqlite.mjs'),
      `import * as sqlcache from '@lasso/sqlcache';\n${body}`,
    );
    writeFileSync(
      join(consumer, 'sqlite.cjs'),
      `const sqlcache = require('@lasso/sqlcache');\n${body}`,
    );
    for (const file of ['sqlite.mjs', 'sqlite.cjs']) {
      const result = run(process.execPath, [file], { cwd: consumer });
      if (result.status !== 0) fail(`node ${file} (the native driver) failed:\n${result.stderr}`);
      const out = JSON.parse(result.stdout);
      if (
        !/^3\.\d+/.test(out.version) ||
        JSON.stringify(out.rows) !== '[{"k":"a"}]' ||
        out.total !== 1 ||
        out.data?.token !== 'dG9rZW4='
      ) {
        fail(`node ${file}: unexpected answers from the native driver: ${result.stdout}`);
      }
    }
    step(
      '@lasso/sqlcache opened a :memory: database and a store with better-sqlite3 (import, require)',
    );
  }
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
