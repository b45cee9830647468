// Bundles bounds-probe.ts (sources through the @lasso/source condition) and runs each scenario in its
// own process, printing its peak RSS. `node test/probes/run-bounds-probe.mjs` from packages/client.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(createRequire(import.meta.url).resolve('tsup'));
const esbuild = require('esbuild');
const out = mkdtempSync(join(tmpdir(), 'lasso-probe-'));
const bundle = join(out, 'probe.mjs');
await esbuild.build({
  entryPoints: [new URL('./bounds-probe.ts', import.meta.url).pathname],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile: bundle,
  conditions: ['@lasso/source'],
  define: { __LASSO_VERSION__: '"probe"' },
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
const only = process.argv.slice(2);
const runs =
  only.length > 0
    ? [only]
    : [['list'], ['list', String(64 * 1024 * 1024)], ['watch'], ['watch', String(1024 * 1024)]];
try {
  for (const args of runs) {
    const output = execFileSync(
      process.execPath,
      ['--expose-gc', '--max-old-space-size=256', bundle, ...args],
      {
        encoding: 'utf8',
      },
    );
    process.stdout.write(output);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
