import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { isLassoError } from '@lasso/core';
import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_MAPS,
  failure,
  type TestClientOptions,
  type TestConfig,
  useClients,
} from '../test/helpers/clients.ts';
import { json, type Loopback } from '../test/helpers/loopback.ts';
import { Client } from './client.ts';
import { createRestConfig } from './config/rest-config.ts';
import { isApiError } from './errors.ts';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_WATCH_EVENT_BYTES,
} from './transport/response-body.ts';

const { serve, transport, client } = useClients();

const configMaps = (
  loopback: Loopback | string,
  config: TestConfig = {},
  options: Pick<TestClientOptions, 'maxResponseBytes' | 'maxWatchEventBytes'> = {},
): Client => client(loopback, { config, ...options });

/** Writes 64 KiB chunks forever (until the client closes the connection). */
function endless(response: import('node:http').ServerResponse, first = ''): void {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  if (first !== '') response.write(first);
  const pump = (): void => {
    while (!response.destroyed && response.write(chunk)) {
      /* keep writing until the socket buffer is full */
    }
    if (!response.destroyed) response.once('drain', pump);
  };
  pump();
}

describe('response bounds', () => {
  it('has defaults no real object reaches: 512 MiB per response, 16 MiB per watch event', () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(512 * 1024 * 1024);
    expect(DEFAULT_MAX_WATCH_EVENT_BYTES).toBe(16 * 1024 * 1024);
  });

  it('refuses bad limits, naming the option', () => {
    expect(() => createRestConfig({ server: 'https://x', maxResponseBytes: 0 })).toThrow(
      new RangeError(
        'createRestConfig: maxResponseBytes must be an integer number of bytes >= 1, got 0',
      ),
    );
    expect(() => createRestConfig({ server: 'https://x', maxWatchEventBytes: 1.5 })).toThrow(
      'createRestConfig: maxWatchEventBytes must be',
    );
    const rest = transport('https://x');
    expect(() => new Client({ ...CONFIG_MAPS, rest, maxResponseBytes: Number.NaN })).toThrow(
      'Client: maxResponseBytes must be',
    );
  });

  it('stops reading an endless 200 body at maxResponseBytes and closes its connection', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      endless(response, '{"items":["');
    });
    const error = await failure(configMaps(server, { maxResponseBytes: 1024 * 1024 }).list('d'));
    expect(isLassoError(error, 'LASSO_RESPONSE_TOO_LARGE')).toBe(true);
    expect(error.message).toBe(
      'list configmaps in namespace "d": the response body passed maxResponseBytes (1048576 bytes); the connection was closed',
    );
    await server.closed[0];
    expect(server.requests).toHaveLength(1);
  });

  it('takes a Client maxResponseBytes over the config', async () => {
    const server = await serve((_request, response) =>
      json(response, 200, { metadata: { name: 'a' }, data: { x: 'y'.repeat(2000) } }),
    );
    const error = await failure(configMaps(server, {}, { maxResponseBytes: 1000 }).get('d', 'a'));
    expect(error.message).toBe(
      'get configmaps "a" in namespace "d": the response body passed maxResponseBytes (1000 bytes); the connection was closed',
    );
    await expect(configMaps(server).get('d', 'a')).resolves.toMatchObject({
      metadata: { name: 'a' },
    });
  });

  it('reports an endless error body by its status, reading at most 1 MiB of it', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      endless(response);
    });
    const error = await failure(configMaps(server).create('d', { metadata: { name: 'a' } }));
    expect(isApiError(error)).toBe(true);
    expect(error.message).toBe(
      'create configmaps in namespace "d": the server responded 500 InternalError',
    );
    await server.closed[0];
  });

  it('stops an unterminated watch line at maxWatchEventBytes and closes the connection', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
      endless(response, '{"type":"ADDED","object":{"data":"');
    });
    const names: unknown[] = [];
    const error = await failure(
      (async () => {
        for await (const event of configMaps(server, { maxWatchEventBytes: 256 * 1024 }).watch(
          'd',
        )) {
          names.push(event.object.metadata?.name);
        }
      })(),
    );
    expect(names).toEqual(['a']);
    expect(isLassoError(error, 'LASSO_RESPONSE_TOO_LARGE')).toBe(true);
    expect(error.message).toBe(
      'watch configmaps in namespace "d": a watch event passed maxWatchEventBytes (262144 bytes); the connection was closed',
    );
    await server.closed[0];
  });

  it('yields the event before an oversized last one, then throws naming the request', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.end(
        `{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"ADDED","object":{"data":"${'x'.repeat(2000)}`,
      );
    });
    const names: unknown[] = [];
    const error = await failure(
      (async () => {
        for await (const event of configMaps(server, { maxWatchEventBytes: 1000 }).watch('d')) {
          names.push(event.object.metadata?.name);
        }
      })(),
    );
    expect(names).toEqual(['a']);
    expect(error.message).toBe(
      'watch configmaps in namespace "d": a watch event passed maxWatchEventBytes (1000 bytes); the connection was closed',
    );
  });

  it('does not bound a watch by maxResponseBytes: many small events pass', async () => {
    const line = `${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' }, data: { x: 'y'.repeat(900) } } })}\n`;
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.end(line.repeat(50));
    });
    let count = 0;
    for await (const _ of configMaps(server, { maxResponseBytes: 10_000 }).watch('d')) count++;
    expect(count).toBe(50);
  });
});

describe('response decoding errors name themselves', () => {
  it('decodes a gzip body the server sent', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(gzipSync(JSON.stringify({ metadata: { name: 'a' } })));
    });
    await expect(configMaps(server).get('d', 'a')).resolves.toMatchObject({
      kind: 'ConfigMap',
      metadata: { name: 'a' },
    });
  });

  it('says gzip for a gzip body that does not decompress', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end('{"metadata":{"name":"s3cret"}}');
    });
    const error = await failure(configMaps(server).get('d', 'a'));
    expect(isLassoError(error, 'LASSO_RESPONSE_INVALID')).toBe(true);
    expect(error.message).toBe(
      'get configmaps "a" in namespace "d": the server answered 200 with a 30-byte gzip body that does not decompress (Z_DATA_ERROR: incorrect header check)',
    );
  });

  it('says gzip for a gzip body cut short', async () => {
    const zipped = gzipSync(JSON.stringify({ metadata: { name: 'a' } }));
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip' });
      response.end(zipped.subarray(0, zipped.length - 10));
    });
    const error = await failure(configMaps(server).get('d', 'a'));
    expect(error.message).toMatch(
      /gzip body that does not decompress \(Z_BUF_ERROR: unexpected end of file\)$/,
    );
  });

  it('bounds the decompressed size of a gzip body (a zip bomb)', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip' });
      response.end(gzipSync(Buffer.alloc(8 * 1024 * 1024, ' ')));
    });
    const error = await failure(
      configMaps(server, { maxResponseBytes: 1024 * 1024 }).get('d', 'a'),
    );
    expect(isLassoError(error, 'LASSO_RESPONSE_TOO_LARGE')).toBe(true);
    expect(error.message).toBe(
      'get configmaps "a" in namespace "d": the decompressed response body passed maxResponseBytes (1048576 bytes); the connection was closed',
    );
  });

  it('says "cut short" for truncated JSON and "not JSON" for other text, quoting neither', async () => {
    let body = '';
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(body);
    });
    body = '{"metadata":{"name":"s3cret';
    const truncated = await failure(configMaps(server).get('d', 'a'));
    expect(truncated.message).toBe(
      'get configmaps "a" in namespace "d": the server answered 200 with a JSON body cut short (27 bytes, ending inside a value)',
    );
    body = '<html>s3cret</html>';
    const html = await failure(configMaps(server).get('d', 'a'));
    expect(html.message).toBe(
      'get configmaps "a" in namespace "d": the server answered 200 with a 19-byte body that is not JSON',
    );
    expect(`${truncated.message}${html.message}`).not.toContain('s3cret');
  });

  it('refuses a Content-Encoding it did not ask for, naming it', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-encoding': 'br' });
      response.end('xx');
    });
    const error = await failure(configMaps(server).get('d', 'a'));
    expect(error.message).toBe(
      'get configmaps "a" in namespace "d": the server answered 200 with a body in Content-Encoding "br", which it was not asked for',
    );
  });
});

describe('http:// to a TLS port', () => {
  it('says so at once instead of retrying for 10 s', async () => {
    const pki = join(import.meta.dirname, 'config/__fixtures__/pki');
    const tlsServer = createHttpsServer(
      { cert: readFileSync(join(pki, 'client.crt')), key: readFileSync(join(pki, 'client.key')) },
      (_request, response) => response.end('{}'),
    );
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = tlsServer.address() as AddressInfo;
      const clock = new FakeClock();
      const error = await failure(configMaps(`http://127.0.0.1:${port}`, { clock }).get('d', 'a'));
      expect(isLassoError(error, 'LASSO_CONNECTION_FAILED')).toBe(true);
      expect(error.message).toBe(
        `GET /api/v1/namespaces/d/configmaps/a: http://127.0.0.1:${port} answers TLS: the config's server says http://, use https://`,
      );
      // No retry was waited for: the clock never moved and holds no timer.
      expect(clock.pendingTimers()).toBe(0);
    } finally {
      tlsServer.closeAllConnections();
      await new Promise((resolve) => tlsServer.close(resolve));
    }
  });

  it("says so for Go's answer to plain HTTP on a TLS port (kube-apiserver)", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(400);
      response.end('Client sent an HTTP request to an HTTPS server.\n');
    });
    const error = await failure(configMaps(server).get('d', 'a'));
    expect(isLassoError(error, 'LASSO_CONNECTION_FAILED')).toBe(true);
    expect(error.message).toBe(
      `GET /api/v1/namespaces/d/configmaps/a: ${server.url} answers TLS: the config's server says http://, use https://`,
    );
  });

  it('still retries a lost connection of a plain-HTTP server (probed once)', async () => {
    let calls = 0;
    const server = await serve((_request, response) => {
      calls++;
      if (calls === 1) response.socket?.destroy();
      else json(response, 200, { metadata: { name: 'a' } });
    });
    const clock = new FakeClock();
    const result = configMaps(server, { clock, timeoutMs: 0 }).get('d', 'a');
    await clock.untilPending();
    await clock.advance(1000);
    await expect(result).resolves.toMatchObject({ metadata: { name: 'a' } });
    expect(calls).toBe(2);
  });
});
