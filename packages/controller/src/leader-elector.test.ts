// Unit tests of strictFencing's deferral: an abort may follow a timer at once (nextTick), but never run inside a
// socket read callback (TLSWrap's read loop crashes on a stream destroyed between two records).
import { executionAsyncResource } from 'node:async_hooks';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { fenceDeferral } from './leader-elector.ts';

describe('fenceDeferral', () => {
  it('aborts in a nextTick after a timer or an immediate', async () => {
    const fromTimeout = await new Promise((resolve) =>
      setTimeout(() => resolve(executionAsyncResource()), 0),
    );
    const fromImmediate = await new Promise((resolve) =>
      setImmediate(() => resolve(executionAsyncResource())),
    );
    expect(fenceDeferral(fromTimeout)).toBe('tick');
    expect(fenceDeferral(fromImmediate)).toBe('tick');
  });

  it('defers to setImmediate after a socket read, a promise reaction or anything unknown', async () => {
    const server = createServer((socket) => socket.end('hello'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const client = connect(address.port, '127.0.0.1');
    const [fromRead] = await new Promise<unknown[]>((resolve) =>
      client.once('data', () => resolve([executionAsyncResource()])),
    );
    client.destroy();
    server.close();
    await once(server, 'close');
    const fromPromise = await Promise.resolve().then(() => executionAsyncResource());
    expect(fenceDeferral(fromRead)).toBe('immediate');
    expect(fenceDeferral(fromPromise)).toBe('immediate');
    expect(fenceDeferral(undefined)).toBe('immediate');
    expect(fenceDeferral({})).toBe('immediate');
  });
});
