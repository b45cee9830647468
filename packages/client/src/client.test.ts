import { isLassoError, TimeoutError } from '@lasso/core';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { NAMESPACES, type TestConfig, useClients } from '../test/helpers/clients.ts';
import { json, type Loopback, status } from '../test/helpers/loopback.ts';
import { Client } from './client.ts';
import { isGone, isNotFound, isResourceExpired } from './errors.ts';
import type { KubeObject, WatchEvent } from './types.ts';

const { serve, transport, client } = useClients();

const configMaps = (loopback: Loopback, config: TestConfig = {}): Client =>
  client(loopback, { config });

const namespaces = (loopback: Loopback): Client => client(loopback, NAMESPACES);

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('Client', () => {
  it.for([
    { name: 'gvr.resource', patch: { gvr: { group: '', version: 'v1', resource: '' } } },
    { name: 'gvr.version', patch: { gvr: { group: '', version: '', resource: 'pods' } } },
    { name: 'kind', patch: { kind: '' } },
    { name: 'namespaced', patch: { namespaced: undefined } },
    { name: 'defaultTimeoutMs', patch: { defaultTimeoutMs: -1 } },
  ])('names $name when the constructor gets a bad one', ({ name, patch }) => {
    const options = {
      gvr: { group: '', version: 'v1', resource: 'pods' },
      kind: 'Pod',
      namespaced: true,
      rest: transport('https://k8s.example:6443'),
      ...patch,
    };
    expect(() => new Client(options as ConstructorParameters<typeof Client>[0])).toThrow(
      name === 'defaultTimeoutMs' ? RangeError : TypeError,
    );
    expect(() => new Client(options as ConstructorParameters<typeof Client>[0])).toThrow(name);
  });

  it('builds namespaced, all-namespace and cluster-scoped URLs (cluster scope ignores the namespace)', async () => {
    const server = await serve((request, response) =>
      json(
        response,
        200,
        request.url.includes('List') ? {} : { metadata: { name: 'x' }, items: [] },
      ),
    );
    const cms = configMaps(server);
    await cms.get('ns1', 'a');
    await cms.list('ns1', { labelSelector: 'a=b', limit: 2, continue: 'tok' });
    await cms.list('');
    await cms.list(undefined);
    const deployments = new Client({
      gvr: { group: 'apps', version: 'v1', resource: 'deployments' },
      kind: 'Deployment',
      namespaced: true,
      rest: cms.transport,
    });
    await deployments.get('web', 'front');
    const ns = namespaces(server);
    await ns.get('ignored', 'kube-system');
    await ns.list('ignored');
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/v1/namespaces/ns1/configmaps/a',
      '/api/v1/namespaces/ns1/configmaps?labelSelector=a%3Db&limit=2&continue=tok',
      '/api/v1/configmaps',
      '/api/v1/configmaps',
      '/apis/apps/v1/namespaces/web/deployments/front',
      '/api/v1/namespaces/kube-system',
      '/api/v1/namespaces',
    ]);
  });

  it('fills apiVersion and kind into results and list items the server left bare', async () => {
    const server = await serve((request, response) => {
      if (request.url.endsWith('/a')) json(response, 200, { metadata: { name: 'a' } });
      else
        json(response, 200, {
          metadata: { resourceVersion: '5' },
          items: [{ metadata: { name: 'a' } }],
        });
    });
    const cms = configMaps(server);
    expect(await cms.get('d', 'a')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a' },
    });
    const list = await cms.list('d');
    expect(list).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '5' },
    });
    expect(list.items[0]).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  });

  it('pages through every item with listAll', async () => {
    const server = await serve((request, response) => {
      const url = new URL(request.url, 'http://x');
      const page = Number(url.searchParams.get('continue') ?? '0');
      json(response, 200, {
        metadata: page < 2 ? { continue: String(page + 1) } : {},
        items: [{ metadata: { name: `item-${page}` } }],
      });
    });
    const names = (await collect(configMaps(server).listAll('d', { limit: 1 }))).map(
      (o) => o.metadata?.name,
    );
    expect(names).toEqual(['item-0', 'item-1', 'item-2']);
    expect(
      server.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('limit')),
    ).toEqual(['1', '1', '1']);
  });

  describe('listAll when the continue token expires', () => {
    const expired = status(
      410,
      'Expired',
      'The provided continue parameter is too old to display a consistent list result.',
      { metadata: { continue: 'newer' } },
    );
    /** Page 0 (ns1/a, ns1/b) is served; the continue token then answers 410; a full list has everything now. */
    async function expiringServer(): Promise<Loopback> {
      return serve((request, response) => {
        const url = new URL(request.url, 'http://x');
        if (url.searchParams.get('continue') === '1') {
          json(response, 410, expired);
        } else if (url.searchParams.has('limit')) {
          json(response, 200, {
            metadata: { continue: '1', resourceVersion: '7' },
            items: [
              { metadata: { namespace: 'ns1', name: 'a', resourceVersion: '3' } },
              { metadata: { namespace: 'ns1', name: 'b', resourceVersion: '4' } },
            ],
          });
        } else {
          json(response, 200, {
            metadata: { resourceVersion: '20' },
            items: [
              { metadata: { namespace: 'ns1', name: 'a', resourceVersion: '15' } },
              { metadata: { namespace: 'ns1', name: 'c', resourceVersion: '16' } },
              { metadata: { namespace: 'ns2', name: 'a', resourceVersion: '17' } },
            ],
          });
        }
      });
    }

    it('falls back to one full list at the requested resourceVersion, yielding every object once', async () => {
      const server = await expiringServer();
      const logger = createTestLogger();
      const items = await collect(
        configMaps(server, { logger }).listAll('', {
          limit: 2,
          resourceVersion: '7',
          resourceVersionMatch: 'NotOlderThan',
          labelSelector: 'app=x',
        }),
      );
      expect(items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`)).toEqual([
        'ns1/a',
        'ns1/b',
        'ns1/c',
        'ns2/a',
      ]);
      // Objects yielded before the expiry stay as they were then; the rest come from the full list.
      expect(items.map((o) => o.metadata?.resourceVersion)).toEqual(['3', '4', '16', '17']);
      expect(items.every((o) => o.kind === 'ConfigMap' && o.apiVersion === 'v1')).toBe(true);
      const queries = server.requests.map((r) =>
        Object.fromEntries(new URL(r.url, 'http://x').searchParams),
      );
      expect(queries).toEqual([
        {
          limit: '2',
          resourceVersion: '7',
          resourceVersionMatch: 'NotOlderThan',
          labelSelector: 'app=x',
        },
        { limit: '2', continue: '1', labelSelector: 'app=x' },
        { resourceVersion: '7', resourceVersionMatch: 'NotOlderThan', labelSelector: 'app=x' },
      ]);
      expect(logger.find('continue token expired')).toHaveLength(1);
    });

    it('throws the 410 when fullListIfExpired is false', async () => {
      const server = await expiringServer();
      const names: string[] = [];
      const error = await (async () => {
        for await (const item of configMaps(server).listAll('', {
          limit: 2,
          fullListIfExpired: false,
        })) {
          names.push(item.metadata?.name ?? '');
        }
      })().catch((e: unknown) => e);
      expect(isResourceExpired(error)).toBe(true);
      expect(names).toEqual(['a', 'b']);
      expect(server.requests).toHaveLength(2);
    });

    it('throws the 410 of a continue token the caller passed in (nothing to go on from)', async () => {
      const server = await expiringServer();
      const error = await collect(
        configMaps(server).listAll('', { limit: 2, continue: '1' }),
      ).catch((e: unknown) => e);
      expect(isResourceExpired(error)).toBe(true);
      expect(server.requests).toHaveLength(1);
    });

    it('throws a failure of the full list itself', async () => {
      let calls = 0;
      const server = await serve((_request, response) => {
        calls++;
        if (calls === 1) json(response, 200, { metadata: { continue: '1' }, items: [] });
        else json(response, 410, expired);
      });
      const error = await collect(configMaps(server).listAll('d', { limit: 1 })).catch(
        (e: unknown) => e,
      );
      expect(isResourceExpired(error)).toBe(true);
      expect(server.requests).toHaveLength(3);
    });

    it('names fullListIfExpired when it is not a boolean', async () => {
      const server = await expiringServer();
      await expect(
        collect(
          configMaps(server).listAll('', {
            fullListIfExpired: 'yes' as unknown as boolean,
          }),
        ),
      ).rejects.toThrow(new TypeError('Client.listAll: fullListIfExpired must be true or false'));
      expect(server.requests).toHaveLength(0);
    });
  });

  it('sends resourceVersion only with the first page of listAll, as the server refuses it with continue', async () => {
    const server = await serve((request, response) => {
      const url = new URL(request.url, 'http://x');
      const page = Number(url.searchParams.get('continue') ?? '0');
      if (page > 0 && url.searchParams.has('resourceVersion')) {
        json(
          response,
          400,
          status(
            400,
            'BadRequest',
            'specifying resource version is not allowed when using continue',
          ),
        );
        return;
      }
      json(response, 200, {
        metadata: page < 1 ? { continue: '1', resourceVersion: '7' } : { resourceVersion: '7' },
        items: [{ metadata: { name: `item-${page}` } }],
      });
    });
    const names = (
      await collect(
        configMaps(server).listAll('d', {
          limit: 1,
          resourceVersion: '7',
          resourceVersionMatch: 'Exact',
          labelSelector: 'a=b',
        }),
      )
    ).map((o) => o.metadata?.name);
    expect(names).toEqual(['item-0', 'item-1']);
    const queries = server.requests.map((r) => new URL(r.url, 'http://x').searchParams);
    expect(queries.map((q) => [q.get('resourceVersion'), q.get('resourceVersionMatch')])).toEqual([
      ['7', 'Exact'],
      [null, null],
    ]);
    expect(queries.map((q) => q.get('labelSelector'))).toEqual(['a=b', 'a=b']);
  });

  it('sends writes with the right verbs, paths, queries and bodies', async () => {
    const server = await serve((request, response) => {
      if (request.method === 'DELETE') json(response, 200, { kind: 'Status', status: 'Success' });
      else json(response, request.method === 'POST' ? 201 : 200, { metadata: { name: 'a' } });
    });
    const cms = configMaps(server);
    await cms.create(
      undefined,
      { metadata: { name: 'a', namespace: 'd' }, data: { k: 'v' } },
      { fieldManager: 'me', dryRun: true },
    );
    await cms.update('d', { metadata: { name: 'a', resourceVersion: '3' } });
    await cms.updateStatus('d', { metadata: { name: 'a' } });
    await cms.delete('d', 'a', {
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u1' },
      gracePeriodSeconds: 0,
    });
    await cms.deleteCollection('d', { labelSelector: 'x=y' });
    const [create, update, updateStatus, del, delCollection] = server.requests;
    expect(create).toMatchObject({
      method: 'POST',
      url: '/api/v1/namespaces/d/configmaps?fieldManager=me&dryRun=All',
    });
    expect(JSON.parse(create?.body ?? '')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'd' },
      data: { k: 'v' },
    });
    expect(create?.headers['content-type']).toBe('application/json');
    expect(update).toMatchObject({ method: 'PUT', url: '/api/v1/namespaces/d/configmaps/a' });
    expect(updateStatus).toMatchObject({
      method: 'PUT',
      url: '/api/v1/namespaces/d/configmaps/a/status',
    });
    expect(del).toMatchObject({ method: 'DELETE', url: '/api/v1/namespaces/d/configmaps/a' });
    expect(JSON.parse(del?.body ?? '')).toEqual({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u1' },
      gracePeriodSeconds: 0,
    });
    expect(delCollection).toMatchObject({
      method: 'DELETE',
      url: '/api/v1/namespaces/d/configmaps?labelSelector=x%3Dy',
    });
  });

  it.for([
    { patchType: 'json', contentType: 'application/json-patch+json' },
    { patchType: 'merge', contentType: 'application/merge-patch+json' },
    { patchType: 'strategic-merge', contentType: 'application/strategic-merge-patch+json' },
    { patchType: 'apply', contentType: 'application/apply-patch+yaml' },
  ] as const)('sends a $patchType patch as $contentType', async ({ patchType, contentType }) => {
    const server = await serve((_request, response) =>
      json(response, 200, { metadata: { name: 'a' } }),
    );
    await configMaps(server).patch(
      'd',
      'a',
      patchType,
      { data: { k: 'v' } },
      { fieldManager: 'me', force: true },
      'status',
    );
    const [request] = server.requests;
    expect(request?.method).toBe('PATCH');
    expect(request?.headers['content-type']).toBe(contentType);
    expect(request?.url).toBe(
      `/api/v1/namespaces/d/configmaps/a/status?fieldManager=me${patchType === 'apply' ? '&force=true' : ''}`,
    );
  });

  it('rejects an apply patch without fieldManager, a namespaced call without namespace and a named call without name', async () => {
    const server = await serve((_request, response) => json(response, 200, {}));
    const cms = configMaps(server);
    await expect(cms.patch('d', 'a', 'apply', {})).rejects.toThrow(TypeError);
    await expect(cms.get(undefined, 'a')).rejects.toThrow(/namespace is required/);
    // An empty name would turn GET .../configmaps/ into a list answered as if it were one object.
    await expect(cms.get('d', '')).rejects.toThrow(/non-empty name/);
    await expect(cms.delete('d', '')).rejects.toThrow(/non-empty name/);
    await expect(cms.patch('d', '', 'merge', {})).rejects.toThrow(/non-empty name/);
    expect(server.requests).toHaveLength(0);
  });

  it('applies an object server-side under its own name', async () => {
    const server = await serve((_request, response) =>
      json(response, 200, { metadata: { name: 'a' } }),
    );
    await configMaps(server).apply(
      'd',
      { metadata: { name: 'a' }, data: { k: 'v' } },
      { fieldManager: 'ctl', force: true },
    );
    const [request] = server.requests;
    expect(request?.url).toBe('/api/v1/namespaces/d/configmaps/a?fieldManager=ctl&force=true');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a' },
      data: { k: 'v' },
    });
  });

  it('sends the User-Agent and impersonation of derived clients without changing the original', async () => {
    const server = await serve((_request, response) => json(response, 200, {}));
    const cms = configMaps(server);
    await cms.withUserAgent('my-controller/1.0').get('d', 'a');
    await cms.withImpersonation({ user: 'nobody', groups: ['g'] }).get('d', 'a');
    await cms.get('d', 'a');
    const [ua, imp, plain] = server.requests;
    expect(ua?.headers['user-agent']).toBe('my-controller/1.0');
    expect(imp?.headers['impersonate-user']).toBe('nobody');
    expect(imp?.headers['impersonate-group']).toBe('g');
    expect(plain?.headers['impersonate-user']).toBeUndefined();
    expect(plain?.headers['user-agent']).toMatch(/^lasso\//);
  });

  it('asks for PartialObjectMetadata on a list and a watch with asMetadata, JSON otherwise', async () => {
    const server = await serve((request, response) => {
      if (request.url?.includes('watch=true')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          `${JSON.stringify({ type: 'ADDED', object: { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name: 'a' } } })}\n`,
        );
        return;
      }
      json(response, 200, {
        apiVersion: 'meta.k8s.io/v1',
        kind: 'PartialObjectMetadataList',
        metadata: { resourceVersion: '5' },
        items: [
          { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name: 'a' } },
        ],
      });
    });
    const cms = configMaps(server);
    const list = await cms.list('d', { asMetadata: true });
    const events = await collect(cms.watch('d', { asMetadata: true }));
    await cms.list('d');
    const [metaList, metaWatch, plain] = server.requests;
    expect(metaList?.headers.accept).toBe(
      'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
    );
    expect(metaWatch?.headers.accept).toBe(
      'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
    );
    expect(plain?.headers.accept).toBe('application/json');
    // The server's kinds are kept: the items are not ConfigMaps.
    expect(list.kind).toBe('PartialObjectMetadataList');
    expect(list.items[0]?.kind).toBe('PartialObjectMetadata');
    expect(events[0]?.object.kind).toBe('PartialObjectMetadata');
  });

  it('throws the ApiError of a 404', async () => {
    const server = await serve((_request, response) =>
      json(
        response,
        404,
        status(404, 'NotFound', 'configmaps "a" not found', {
          details: { name: 'a', kind: 'configmaps' },
        }),
      ),
    );
    const error = await configMaps(server)
      .get('d', 'a')
      .catch((e: unknown) => e);
    expect(isNotFound(error)).toBe(true);
    expect((error as Error).message).toBe(
      'get configmaps "a" in namespace "d": configmaps "a" not found',
    );
  });
});

describe('Client.watch()', () => {
  const event = (type: string, name: string, rv: string) =>
    `${JSON.stringify({ type, object: { metadata: { name, resourceVersion: rv } } })}\n`;

  it('decodes events split across chunked writes and ends when the stream ends', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const text =
        event('ADDED', 'a', '1') + event('MODIFIED', 'ü-😀', '2') + event('BOOKMARK', '', '3');
      const bytes = Buffer.from(text);
      // Cut at odd offsets, including inside the 4-byte emoji.
      const cuts = [0, 7, 50, bytes.indexOf(0xf0) + 2, bytes.length - 3, bytes.length];
      for (let i = 0; i < cuts.length - 1; i++)
        response.write(bytes.subarray(cuts[i], cuts[i + 1]));
      response.end();
    });
    const events = await collect(
      configMaps(server).watch('d', {
        resourceVersion: '0',
        allowWatchBookmarks: true,
        timeoutSeconds: 30,
      }),
    );
    expect(
      events.map((e) => [e.type, e.object.metadata?.name, e.object.kind, e.object.apiVersion]),
    ).toEqual([
      ['ADDED', 'a', 'ConfigMap', 'v1'],
      ['MODIFIED', 'ü-😀', 'ConfigMap', 'v1'],
      ['BOOKMARK', '', 'ConfigMap', 'v1'],
    ]);
    expect(server.requests[0]?.url).toBe(
      '/api/v1/namespaces/d/configmaps?watch=true&resourceVersion=0&timeoutSeconds=30&allowWatchBookmarks=true',
    );
  });

  it('is lazy and throws the HTTP error answer from the first next()', async () => {
    const server = await serve((_request, response) =>
      json(response, 410, status(410, 'Expired', 'too old resource version: 1 (9)')),
    );
    const stream = configMaps(server).watch('d', { resourceVersion: '1' });
    expect(server.requests).toHaveLength(0);
    await expect(collect(stream)).rejects.toSatisfy(isGone);
  });

  it('throws an ERROR event as an ApiError after the events before it', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.end(
        `${event('ADDED', 'a', '1')}${JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', 'gone') })}\n`,
      );
    });
    const seen: WatchEvent<KubeObject>[] = [];
    const error = await (async () => {
      for await (const e of configMaps(server).watch('d')) seen.push(e);
    })().catch((e: unknown) => e);
    expect(seen).toHaveLength(1);
    expect(isGone(error)).toBe(true);
  });

  it('throws LASSO_WATCH_DECODE for a malformed line instead of skipping it', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.end(`${event('ADDED', 'a', '1')}{not json\n${event('ADDED', 'b', '2')}`);
    });
    await expect(collect(configMaps(server).watch('d'))).rejects.toSatisfy((e) =>
      isLassoError(e, 'LASSO_WATCH_DECODE'),
    );
  });

  it.for([
    {
      name: 'inside the JSON of an event',
      tail: Buffer.from('{"type":"MODIFIED","object":{"meta'),
    },
    {
      name: 'inside a multi-byte character',
      tail: Buffer.concat([
        Buffer.from('{"type":"MODIFIED","object":{"metadata":{"name":"'),
        Buffer.from('ü').subarray(0, 1),
      ]),
    },
  ])(
    'yields the whole events, then throws LASSO_WATCH_TRUNCATED when the body ends cleanly $name',
    async ({ tail }) => {
      const server = await serve((_request, response) => {
        response.writeHead(200);
        response.end(Buffer.concat([Buffer.from(event('ADDED', 'a', '1')), tail]));
      });
      const events: WatchEvent<KubeObject>[] = [];
      let thrown: unknown;
      try {
        for await (const e of configMaps(server).watch('d')) events.push(e);
      } catch (error) {
        thrown = error;
      }
      expect(events.map((e) => [e.type, e.object.metadata?.name])).toEqual([['ADDED', 'a']]);
      expect(isLassoError(thrown, 'LASSO_WATCH_TRUNCATED')).toBe(true);
      expect((thrown as Error).message).toMatch(
        /^watch configmaps in namespace "d": the stream ended inside an event \(\d+ bytes after the last newline, not a whole event\)$/,
      );
    },
  );

  it('decodes a last event whose newline never came', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.end(`${event('ADDED', 'a', '1')}${event('ADDED', 'b', '2').trimEnd()}`);
    });
    const events = await collect(configMaps(server).watch('d'));
    expect(events.map((e) => e.object.metadata?.name)).toEqual(['a', 'b']);
  });

  it('destroys the HTTP body when the consumer breaks out of the loop', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.write(event('ADDED', 'a', '1'));
    });
    for await (const _ of configMaps(server).watch('d')) break;
    await server.closed[0];
  });

  it('destroys the HTTP body when the loop body throws', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.write(event('ADDED', 'a', '1'));
    });
    const failure = new Error('handler failed');
    const error = await (async () => {
      for await (const _ of configMaps(server).watch('d')) throw failure;
    })().catch((e: unknown) => e);
    expect(error).toBe(failure);
    await server.closed[0];
  });

  it('destroys the HTTP body and rejects with the reason when the signal aborts', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.write(event('ADDED', 'a', '1'));
    });
    const controller = new AbortController();
    const reason = new Error('stop');
    const error = await (async () => {
      for await (const _ of configMaps(server).watch('d', {
        signal: controller.signal,
      }))
        controller.abort(reason);
    })().catch((e: unknown) => e);
    expect(error).toBe(reason);
    await server.closed[0];
  });

  it('throws a TimeoutError when no bytes arrive for inactivityTimeoutMs', async () => {
    const clock = new FakeClock();
    let write: ((text: string) => void) | undefined;
    const server = await serve((_request, response) => {
      response.writeHead(200);
      write = (text) => response.write(text);
      response.write(event('ADDED', 'a', '1'));
    });
    const iterator = configMaps(server, { clock })
      .watch('d', { inactivityTimeoutMs: 1000 })
      [Symbol.asyncIterator]();
    expect((await iterator.next()).value?.object.metadata?.name).toBe('a');
    await clock.advance(600);
    write?.(event('MODIFIED', 'a', '2'));
    expect((await iterator.next()).value?.type).toBe('MODIFIED');
    const pending = iterator.next();
    pending.catch(() => {});
    await clock.advance(999);
    let settled = false;
    pending.then(
      () => (settled = true),
      () => (settled = true),
    );
    await clock.advance(0);
    expect(settled).toBe(false);
    await clock.advance(1);
    await expect(pending).rejects.toBeInstanceOf(TimeoutError);
    await server.closed[0];
    expect(clock.pendingTimers()).toBe(0);
  });

  it('runs no inactivity deadline when inactivityTimeoutMs is 0, even with timeoutSeconds', async () => {
    const clock = new FakeClock();
    const server = await serve((_request, response) => {
      response.writeHead(200);
      response.write(event('ADDED', 'a', '1'));
    });
    const iterator = configMaps(server, { clock })
      .watch('d', { timeoutSeconds: 1, inactivityTimeoutMs: 0 })
      [Symbol.asyncIterator]();
    expect((await iterator.next()).value?.type).toBe('ADDED');
    expect(clock.pendingTimers()).toBe(0);
    await iterator.return?.();
  });

  it('never applies the per-request timeout to a watch (a quiet watch is not a slow request)', async () => {
    const clock = new FakeClock();
    let write: ((text: string) => void) | undefined;
    const server = await serve((request, response) => {
      if (!request.url.includes('watch=true')) return; // a get that never answers
      response.writeHead(200);
      write = (text) => response.write(text);
      response.write(event('ADDED', 'a', '1'));
    });
    const cms = client(server, { config: { clock, timeoutMs: 1000 }, defaultTimeoutMs: 1000 });
    const iterator = cms.watch('d')[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.type).toBe('ADDED');
    // The timeout is armed for ordinary requests: a get on the same client times out.
    const get = cms.get('d', 'a');
    get.catch(() => {});
    await clock.untilPending();
    await clock.advance(10_000);
    await expect(get).rejects.toBeInstanceOf(TimeoutError);
    write?.(event('MODIFIED', 'a', '2'));
    expect((await iterator.next()).value?.type).toBe('MODIFIED');
    await iterator.return?.();
  });

  it('does not count the time the consumer holds an event as inactivity', async () => {
    const clock = new FakeClock();
    let write: ((text: string) => void) | undefined;
    const server = await serve((_request, response) => {
      response.writeHead(200);
      write = (text) => response.write(text);
      response.write(event('ADDED', 'a', '1'));
    });
    const iterator = configMaps(server, { clock })
      .watch('d', { inactivityTimeoutMs: 1000 })
      [Symbol.asyncIterator]();
    expect((await iterator.next()).value?.object.metadata?.name).toBe('a');
    // A slow handler: 5 s pass before the consumer asks for the next event.
    await clock.advance(5000);
    write?.(event('MODIFIED', 'a', '2'));
    expect((await iterator.next()).value?.type).toBe('MODIFIED');
    await iterator.return?.();
    await server.closed[0];
    expect(clock.pendingTimers()).toBe(0);
  });

  it('throws LASSO_CONNECTION_FAILED with undici error as cause when the connection is cut', async () => {
    const server = await serve((_request, response, raw) => {
      response.writeHead(200);
      response.write(event('ADDED', 'a', '1'), () => raw.socket.destroy());
    });
    const error = await collect(configMaps(server).watch('d')).catch((e: unknown) => e);
    expect(isLassoError(error, 'LASSO_CONNECTION_FAILED')).toBe(true);
    expect((error as Error).cause).toBeInstanceOf(Error);
  });
});
