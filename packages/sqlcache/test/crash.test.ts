// Crash safety: a process killed in the middle of a write batch leaves files that the next start deletes; the
// cache starts again from a fresh list and holds exactly that list.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '@lasso/client';
import { build } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlStore, openSqlDatabase } from '../src/index.ts';
import { testDrivers } from './drivers.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
// Inside the package, so the bundle resolves the native driver from its node_modules.
const bundleDir = join(packageDir, 'node_modules', '.crash-child');
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'lasso-sqlcache-crash-'));
  await build({
    entry: { child: fileURLToPath(new URL('./fixtures/crash-child.ts', import.meta.url)) },
    outDir: bundleDir,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    noExternal: [/^(?!better-sqlite3)/],
    external: ['better-sqlite3'],
    splitting: false,
    sourcemap: false,
    dts: false,
    silent: true,
    config: false,
    esbuildOptions(options) {
      options.conditions = ['@lasso/source'];
    },
  });
}, 60_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(bundleDir, { recursive: true, force: true });
});

// The child writes with the same driver the parent then opens the leftovers with.
describe.each(testDrivers)('$name', ({ name, driver }) => {
  it('starts again from a fresh list after a process is killed in the middle of a batch', async () => {
    const child = spawn(process.execPath, [join(bundleDir, 'child.js'), work, name], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    // Killed as the second batch (2,000 updates of 1 KiB objects in one transaction) starts committing.
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('batch 2\n')) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.once('exit', () =>
        reject(new Error(`child exited before its second batch: ${stderr}`)),
      );
    });
    expect(await exited).toBe('SIGKILL');
    const path = join(work, 'lasso-sqlcache.db');
    // The killed process left its database and an uncheckpointed WAL behind.
    expect(statSync(path).size).toBeGreaterThan(0);
    expect(existsSync(`${path}-wal`)).toBe(true);

    const database = openSqlDatabase({ directory: work, driver: driver() });
    const store = createSqlStore<KubeObject>(database, {
      gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
      fields: ['data.round'],
    });
    // Nothing of the killed process survives the start.
    expect(store.size()).toBe(0);
    const fresh = Array.from(
      { length: 500 },
      (_, i) =>
        ({
          metadata: { namespace: 'ns', name: `fresh-${i}` },
          data: { round: 'fresh' },
        }) as KubeObject,
    );
    store.replace(fresh, '42');
    expect(store.size()).toBe(500);
    expect(
      store.listByOptions({
        partitions: [{ passthrough: true }],
        filters: [[{ field: 'data.round', op: '!=', values: ['fresh'] }]],
      }).total,
    ).toBe(0);
    expect(database.read((prepare) => prepare('PRAGMA integrity_check').get())).toEqual({
      integrity_check: 'ok',
    });
    database.close();
    expect(existsSync(path)).toBe(false);
  }, 60_000);
});
