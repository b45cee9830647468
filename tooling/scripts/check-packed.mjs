#!/usr/bin/env node
// Checks the packages as users get them, not as the workspace sees them: packs every publishable package,
// installs the tarballs into a scratch project outside the workspace, type-checks a program importing every
// entry point (strict, NodeNext, skipLibCheck: false) in ESM and CJS, and runs it with import and require().
// @lasso/sqlcache then opens a database through its public API with the driver a user of this Node gets: node:sqlite
// on Node 22.13+ (and better-sqlite3, its optional peer, must not be installed there: nothing compiles), the
// better-sqlite3 addon on Node 20 (installed as a Node 20 user would). The newest toolchains a newcomer gets by
// default also run: TypeScript 7 type-checks the same program, and a consumer test runs under vitest 5 (Node 22.12+).
// Their versions are pinned below; they come from the npm registry into the scratch project (the pnpm store
// keeps them for the next run). Run after `pnpm build`, with the Node to check (tooling/scripts/node-versions.mjs
// runs it on each supported version). LASSO_KEEP_PACKED=1 keeps the scratch directory for a look.
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
// The newest majors a newcomer's `pnpm add typescript vitest` gets (checked November 2026); exact for
// reproducible runs. vite is vitest's peer, pinned to the workspace's version.
const newestTypeScript = '7.0.2';
const newestVitest = '5.1.2';
// vitest 5 declares node ^22.12.0 || ^24 || >=26.
const [nodeMajor, nodeMinor] = process.versions.node.split('.').map(Number);
const vitestRuns = nodeMajor >= 24 || (nodeMajor === 22 && nodeMinor >= 12);
// What @lasso/sqlcache's default driver is on this Node.
const hasNodeSqlite = process.getBuiltinModule?.('node:sqlite') !== undefined;
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
  const versionOf = (name, from = workspaceRequire) =>
    JSON.parse(readFileSync(from.resolve(`${name}/package.json`), 'utf8')).version;
  // better-sqlite3 is an optional peer of the packages that can use it: a Node 20 user installs it, a user of
  // Node 22.13+ does not.
  const sqlitePackages = packages.filter(
    ({ manifest }) =>
      manifest.peerDependencies?.['better-sqlite3'] !== undefined ||
      manifest.dependencies?.['better-sqlite3'] !== undefined,
  );
  const withBetterSqlite = sqlitePackages.length > 0 && !hasNodeSqlite;
  const vitestRequire = createRequire(workspaceRequire.resolve('vitest/package.json'));
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
          typescript: newestTypeScript,
          ...(vitestRuns ? { vitest: newestVitest, vite: versionOf('vite', vitestRequire) } : {}),
          ...(withBetterSqlite
            ? {
                'better-sqlite3': versionOf(
                  'better-sqlite3',
                  createRequire(join(sqlitePackages[0].dir, 'package.json')),
                ),
              }
            : {}),
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

  // 3b. The SQLite driver. On Node 22.13+ nothing native may be installed: better-sqlite3 is an optional peer.
  // On Node 20 the install above ran no install script, so better-sqlite3 has no binary yet, and a package that
  // loads it lazily (as @lasso/sqlcache does) would still pass steps 4 and 5. Compiling it from source again
  // costs about 2 CPU-minutes: when the scratch project got the same better-sqlite3 version as the workspace and
  // the workspace's build exists, its build/Release/better_sqlite3.node is copied in (same version, built by the
  // Node 20 that ran `pnpm install`, so the same ABI); otherwise `pnpm rebuild better-sqlite3` runs its install
  // script (prebuild-install, else node-gyp). Step 6 then opens a database through the package's public API.
  const installedDrivers = readdirSync(join(consumer, 'node_modules', '.pnpm')).filter((name) =>
    name.startsWith('better-sqlite3@'),
  );
  if (!withBetterSqlite && installedDrivers.length > 0) {
    fail(
      `Node ${process.version} has node:sqlite, yet installing the packages installed ${installedDrivers.join(', ')} (it must stay an optional peer)`,
    );
  }
  if (sqlitePackages.length > 0 && !withBetterSqlite) {
    step(`Node ${process.version}: no native SQLite driver installed (node:sqlite is built in)`);
  }
  for (const { dir, manifest } of withBetterSqlite ? sqlitePackages : []) {
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
  // The workspace's TypeScript, then the newest major from the registry (TypeScript 7, the native compiler).
  const compilers = [
    createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc'),
    join(consumer, 'node_modules', 'typescript', 'bin', 'tsc'),
  ];
  for (const tsc of compilers) {
    const version = JSON.parse(readFileSync(join(tsc, '..', '..', 'package.json'), 'utf8')).version;
    const typecheck = run(process.execPath, [tsc, '-p', join(consumer, 'tsconfig.json')], {
      cwd: consumer,
    });
    if (typecheck.status !== 0) {
      fail(
        `tsc ${version} (strict, NodeNext, skipLibCheck: false) failed on the packed packages:\n${typecheck.stdout}${typecheck.stderr}`,
      );
    }
    step(`TypeScript ${version}: type-checked ${specifiers.length} entry points as ESM and CJS`);
  }

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

  // 6. The default driver loads: a :memory: database through the driver seam, then a store in a database file
  // (created and removed by openSqlDatabase), with import and with require(). Where node:sqlite is the default,
  // asking for the absent better-sqlite3 fails with a message that names it as an optional peer.
  if (sqlitePackages.some(({ manifest }) => manifest.name === '@lasso/sqlcache')) {
    const expectedDriver = hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3';
    const body = [
      'const driver = sqlcache.defaultSqliteDriver();',
      "const connection = driver.open(':memory:');",
      "const { version } = connection.prepare('SELECT sqlite_version() AS version').get();",
      "connection.exec('CREATE TABLE t (k TEXT)');",
      "connection.prepare('INSERT INTO t (k) VALUES (?)').run('a');",
      "const rows = connection.prepare('SELECT k FROM t').all();",
      'connection.close();',
      'const database = sqlcache.openSqlDatabase();',
      "const store = sqlcache.createSqlStore(database, { gvk: { group: '', version: 'v1', kind: 'Secret' } });",
      "store.add({ metadata: { namespace: 'default', name: 's' }, data: { token: 'dG9rZW4=' } });",
      "const listed = store.listByOptions({ namespace: 'default', partitions: [{ passthrough: true }] });",
      'const driverName = database.driverName;',
      'database.close();',
      "let missing = '';",
      ...(hasNodeSqlite
        ? [
            "try { sqlcache.betterSqlite3Driver().open(':memory:'); } catch (error) { missing = error.message; }",
          ]
        : []),
      'process.stdout.write(JSON.stringify({ name: driver.name, driverName, version, rows, total: listed.total, data: listed.items[0]?.data, missing }));',
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
      if (result.status !== 0)
        fail(`node ${file} (the ${expectedDriver} driver) failed:\n${result.stderr}`);
      const out = JSON.parse(result.stdout);
      if (
        out.name !== expectedDriver ||
        out.driverName !== expectedDriver ||
        (hasNodeSqlite && !/optional peer dependency/.test(out.missing)) ||
        !/^3\.\d+/.test(out.version) ||
        JSON.stringify(out.rows) !== '[{"k":"a"}]' ||
        out.total !== 1 ||
        out.data?.token !== 'dG9rZW4='
      ) {
        fail(
          `node ${file}: unexpected answers from the ${expectedDriver} driver: ${result.stdout}`,
        );
      }
    }
    step(
      `@lasso/sqlcache opened a :memory: database and a store with ${expectedDriver} (import, require)`,
    );
  }

  // 7. A consumer's test under the newest vitest: the packages load in its runner (vite's module graph, not
  // Node's loader) and a workqueue, a fake clock and a store behave there.
  if (vitestRuns) {
    writeFileSync(
      join(consumer, 'consumer.test.mjs'),
      [
        "import { expect, it } from 'vitest';",
        "import { FakeClock } from '@lasso/core/testing';",
        "import { createIndexer } from '@lasso/cache';",
        '',
        "it('runs the packed packages under vitest', async () => {",
        '  const clock = new FakeClock();',
        '  const fired = [];',
        "  clock.schedule(1500, () => fired.push('timer'));",
        '  await clock.advance(1500);',
        "  expect(fired).toEqual(['timer']);",
        '  const indexer = createIndexer();',
        "  indexer.add({ metadata: { namespace: 'ns', name: 'a' } });",
        "  expect(indexer.listKeys()).toEqual(['ns/a']);",
        '});',
        '',
      ].join('\n'),
    );
    const vitest = run(
      process.execPath,
      [join(consumer, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=dot'],
      { cwd: consumer, env: { ...process.env, CI: 'true' } },
    );
    if (vitest.status !== 0) {
      fail(`vitest ${newestVitest} failed in the consumer:\n${vitest.stdout}${vitest.stderr}`);
    }
    step(`vitest ${newestVitest}: a consumer test passed on Node ${process.version}`);
  } else {
    step(`vitest ${newestVitest} skipped: it needs Node 22.12+, this is ${process.version}`);
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
