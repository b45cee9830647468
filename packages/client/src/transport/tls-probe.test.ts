// The TLS probe takes node:tls from the running Node: an ES module import of node:tls reads all its exports,
// `rootCertificates` too (220 KiB of certificate strings in every process importing @lasso/client). An import of
// it from here fails this file.
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Loopback, startLoopback } from '../../test/helpers/loopback.ts';
import { speaksTls } from './tls-probe.ts';

vi.mock('node:tls', () => {
  throw new Error('node:tls was imported as an ES module: take it from process.getBuiltinModule');
});

describe('speaksTls', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  it('is true for a TLS server', async () => {
    const pki = join(import.meta.dirname, '../config/__fixtures__/pki');
    const server = createHttpsServer({
      cert: readFileSync(join(pki, 'client.crt')),
      key: readFileSync(join(pki, 'client.key')),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    expect(await speaksTls(`http://127.0.0.1:${port}`, undefined)).toBe(true);
  });

  it('is false for a plain HTTP server', async () => {
    const loopback: Loopback = await startLoopback((_request, response) => {
      response.end();
    });
    closers.push(() => loopback.close());
    expect(await speaksTls(loopback.url, undefined)).toBe(false);
  });
});
