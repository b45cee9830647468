import * as http from 'node:http';
import { describe, expect, it } from 'vitest';
import { createApiServer } from '../server.ts';

type Server = ReturnType<typeof createApiServer>;

/** One request on its own connection (a restarted server has closed the old ones). */
function send(server: Server, method: string, path: string, body?: unknown): Promise<any> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      new URL(path, server.url),
      {
        method,
        agent: false,
        headers: {
          Authorization: `Bearer ${server.credentials.token}`,
          'Content-Type': 'application/json',
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve(JSON.parse(text)));
      },
    );
    request.on('error', reject);
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Watch `path` from `resourceVersion` until an event satisfies `done` (bounded by `timeoutMs`). */
async function watchUntil(
  server: Server,
  path: string,
  resourceVersion: string,
  done: (event: { type: string; object: any }) => boolean,
  timeoutMs = 5_000,
): Promise<void> {
  const stop = AbortSignal.timeout(timeoutMs);
  const response = await fetch(
    new URL(`${path}?watch=1&resourceVersion=${resourceVersion}`, server.url),
    { headers: { Authorization: `Bearer ${server.credentials.token}` }, signal: stop },
  );
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) throw new Error('watch ended');
      buffer += value;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      if (lines.some((line) => line !== '' && done(JSON.parse(line)))) return;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** An owner ConfigMap with a dependent Secret, then the owner deleted; resolves once the dependent goes. */
async function cascade(server: Server, name: string): Promise<void> {
  const cms = '/api/v1/namespaces/default/configmaps';
  const secrets = '/api/v1/namespaces/default/secrets';
  const owner = await send(server, 'POST', cms, { metadata: { name } });
  const { uid } = owner.metadata;
  const dependent = await send(server, 'POST', secrets, {
    metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid }] },
  });
  const gone = watchUntil(
    server,
    secrets,
    dependent.metadata.resourceVersion,
    (event) => event.type === 'DELETED' && event.object.metadata.name === name,
  );
  await send(server, 'DELETE', `${cms}/${name}`);
  await gone;
}

describe('the controllers option of the server', () => {
  it('refuses what is not a controller, or not a boolean, naming the option', () => {
    expect(() => createApiServer({ controllers: { replicaSets: true } as never })).toThrow(
      new TypeError('controllers.replicaSets is not a controller of the built-in server'),
    );
    expect(() => createApiServer({ controllers: { garbageCollector: 'yes' } as never })).toThrow(
      new TypeError('controllers.garbageCollector must be a boolean'),
    );
    expect(() => createApiServer({ controllers: [] as never })).toThrow(TypeError);
  });

  it('runs the controllers while serving, stops them with the server, and runs them again after a restart', async () => {
    await using server = createApiServer({
      insecureHttp: true,
      controllers: { garbageCollector: true },
    });
    const first = new AbortController();
    await server.start(first.signal);
    await cascade(server, 'first');
    first.abort();
    await server.stopped();
    const second = new AbortController();
    await server.start(second.signal);
    await cascade(server, 'second');
    await server.close();
    // Nothing of the controllers stays scheduled once the server is closed.
    expect(process.getActiveResourcesInfo()).not.toContain('Immediate');
  });
});
