// Request guards: run right before a request is handed to the socket; a signal a guard aborts stops the send (a
// sharded factory's fence check after a process wakes from a pause).
import { afterEach, describe, expect, it } from 'vitest';
import { json, type Loopback, startLoopback } from '../test/helpers/loopback.ts';
import { createRestConfig } from './config/rest-config.ts';
import { RestTransport } from './transport.ts';

let server: Loopback | undefined;
let transport: RestTransport | undefined;
afterEach(async () => {
  await transport?.close();
  await server?.close();
  transport = undefined;
  server = undefined;
});

describe('RestTransport.addRequestGuard', () => {
  it('runs guards before each request; a signal a guard aborts sends nothing; removal stops the guard', async () => {
    server = await startLoopback((_request, response) => json(response, 200, { ok: true }));
    transport = new RestTransport(createRestConfig({ server: server.url }));
    const fence = new AbortController();
    let fenced = false;
    let runs = 0;
    const remove = transport.addRequestGuard(() => {
      runs++;
      if (fenced) fence.abort(new Error('fenced: past the renew deadline'));
    });
    await transport.requestJson({ method: 'GET', path: '/api/v1/a', signal: fence.signal });
    expect(runs).toBe(1);
    expect(server.requests).toHaveLength(1);

    // The deadline passed while the process was paused; no timer has run yet, the guard notices first.
    fenced = true;
    await expect(
      transport.requestJson({
        method: 'PUT',
        path: '/api/v1/b',
        body: {},
        signal: AbortSignal.any([fence.signal, new AbortController().signal]),
      }),
    ).rejects.toThrow(/fenced|abort/i);
    expect(server.requests).toHaveLength(1);

    // A request without that signal is not stopped; a removed guard runs no more.
    remove();
    await transport.requestJson({ method: 'GET', path: '/api/v1/c' });
    expect(runs).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('fails a request whose guard throws, without sending it', async () => {
    server = await startLoopback((_request, response) => json(response, 200, { ok: true }));
    transport = new RestTransport(createRestConfig({ server: server.url }));
    transport.addRequestGuard(() => {
      throw new Error('guard refused');
    });
    await expect(transport.requestJson({ method: 'GET', path: '/api/v1/a' })).rejects.toThrow(
      /guard refused/,
    );
    expect(server.requests).toHaveLength(0);
    expect(() => transport?.addRequestGuard('x' as never)).toThrow(/guard must be a function/);
  });
});
