// Peak-RSS probe of the client's bounds (issue 19, item 2): one hostile server per process, run by
// run-bounds-probe.mjs. Not a test: it measures. Usage (after bundling): node probe.mjs <scenario> [limitBytes]
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, createRestConfig, RestTransport } from '@lasso/client';

const scenario = process.argv[2] ?? 'list';
const limit = process.argv[3] !== undefined ? Number(process.argv[3]) : undefined;

/** Writes 1 MiB chunks as fast as the socket takes them, forever. */
function endless(response: ServerResponse, first: string): void {
  const chunk = Buffer.alloc(1024 * 1024, 'a');
  response.write(first);
  const pump = (): void => {
    while (!response.destroyed && response.write(chunk)) {
      /* until the socket buffer is full */
    }
    if (!response.destroyed) response.once('drain', pump);
  };
  pump();
}

let socketClosed = false;
const server = createServer((_request, response) => {
  response.on('close', () => {
    socketClosed = true;
  });
  response.writeHead(200, { 'content-type': 'application/json' });
  if (scenario === 'watch') {
    response.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
    endless(response, '{"type":"ADDED","object":{"data":"');
  } else {
    endless(response, '{"kind":"ConfigMapList","items":["');
  }
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
const transport = new RestTransport(
  createRestConfig({
    server: `http://127.0.0.1:${port}`,
    timeoutMs: 0,
    ...(limit !== undefined
      ? scenario === 'watch'
        ? { maxWatchEventBytes: limit }
        : { maxResponseBytes: limit }
      : {}),
  }),
);
const client = new Client({
  gvr: { group: '', version: 'v1', resource: 'configmaps' },
  kind: 'ConfigMap',
  namespaced: true,
  rest: transport,
});
const started = Date.now();
let outcome: string;
try {
  if (scenario === 'watch') {
    for await (const _ of client.watch('default')) {
      /* the one whole event */
    }
  } else {
    await client.list('default');
  }
  outcome = 'no error';
} catch (error) {
  const { code, message } = error as { code?: string; message?: string };
  outcome = `${code}: ${message}`;
}
const afterError = process.memoryUsage().rss;
await new Promise((resolve) => setTimeout(resolve, 200));
globalThis.gc?.();
await transport.close();
server.closeAllConnections();
server.close();
process.stdout.write(
  `${JSON.stringify({
    scenario,
    limitBytes: limit ?? 'default',
    outcome,
    ms: Date.now() - started,
    socketClosed,
    peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    rssAtErrorMiB: Math.round(afterError / 1024 / 1024),
    rssAfterGcMiB: Math.round(process.memoryUsage().rss / 1024 / 1024),
    arrayBuffersAfterGcMiB: Math.round(process.memoryUsage().arrayBuffers / 1024 / 1024),
    heapUsedAfterGcMiB: Math.round(process.memoryUsage().heapUsed / 1024 / 1024),
  })}\n`,
);
