#!/usr/bin/env node
// Cold start of the built server: a fresh Node process per round imports dist/index.js, starts a server and
// sends GET /version; prints the median of each phase. Run after `pnpm --filter @lasso/apiserver build`:
// `node packages/apiserver/scripts/cold-start.mjs [--rounds N]`.
import { spawnSync } from 'node:child_process';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 10;
const dist = new URL('../dist/index.js', import.meta.url).href;

// One round, in its own process: times are from the process's own start (performance.now() is 0 there).
const round = `
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const { createApiServer } = await import(${JSON.stringify(dist)});
const imported = performance.now();
const https = await import('node:https');
const server = createApiServer();
await server.start(new AbortController().signal);
const listening = performance.now();
const { caPem: ca, clientCertPem: cert, clientKeyPem: key } = server.credentials;
await new Promise((resolve, reject) => {
  https.get(new URL('/version', server.url), { ca, cert, key }, (response) => {
    response.resume().on('end', resolve);
  }).on('error', reject);
});
const answered = performance.now();
const cpu = process.cpuUsage(cpu0);
await server.close();
process.stdout.write(JSON.stringify({ boot: t0, imported: imported - t0, start: listening - imported, firstRequest: answered - listening, total: answered - imported, process: answered, cpu: (cpu.user + cpu.system) / 1000 }));
`;

const results = [];
for (let index = 0; index < rounds; index++) {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', round], {
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(child.stderr);
  results.push(JSON.parse(child.stdout));
}
const median = (key) => {
  const values = results.map((result) => result[key]).sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)].toFixed(1);
};
process.stdout.write(
  `cold start over ${rounds} fresh processes (median ms), node ${process.version}:\n`,
);
process.stdout.write(`  import @lasso/apiserver           ${median('imported')}\n`);
process.stdout.write(`  createApiServer().start (HTTPS)   ${median('start')}\n`);
process.stdout.write(`  first GET /version answered       ${median('firstRequest')}\n`);
process.stdout.write(`  import to first answer            ${median('total')}\n`);
process.stdout.write(`  process start to first answer     ${median('process')}\n`);
// CPU time is what the server costs; wall time on a loaded machine also counts waiting for a core.
process.stdout.write(`  CPU time, import + first answer   ${median('cpu')}\n`);
process.stdout.write(
  `  load average (1 min) at the end   ${(await import('node:os')).loadavg()[0].toFixed(1)}\n`,
);
