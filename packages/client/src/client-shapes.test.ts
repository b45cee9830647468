import { isLassoError } from '@lasso/core';
import { describe, expect, it } from 'vitest';
import { failure, useClients } from '../test/helpers/clients.ts';
import type { Client } from './client.ts';

const { serve, client } = useClients();

/** A client of a server answering every request 200 with `body` (raw text). */
async function answering(body: string): Promise<Client> {
  const server = await serve((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
  });
  return client(server, {
    gvr: { group: 'apps', version: 'v1', resource: 'deployments' },
    kind: 'Deployment',
    namespaced: true,
  });
}

const object = { metadata: { name: 'web', namespace: 'prod' } };

describe('Client shape checks', () => {
  it.for([
    { body: 'null', got: 'null' },
    { body: '[]', got: 'an array' },
    { body: '[{"metadata":{"name":"web"}}]', got: 'an array' },
    { body: '"web"', got: 'a string' },
    { body: '7', got: 'a number' },
    { body: '', got: 'an empty body' },
  ])('refuses $body where an object is promised, naming the request', async ({ body, got }) => {
    const c = await answering(body);
    const cases: Array<[string, Promise<unknown>]> = [
      ['get deployments.apps "web" in namespace "prod"', c.get('prod', 'web')],
      ['create deployments.apps in namespace "prod"', c.create('prod', object)],
      ['update deployments.apps "web" in namespace "prod"', c.update('prod', object)],
      ['update deployments.apps/status "web" in namespace "prod"', c.updateStatus('prod', object)],
      ['patch deployments.apps "web" in namespace "prod"', c.patch('prod', 'web', 'merge', {})],
      [
        'patch deployments.apps/scale "web" in namespace "prod"',
        c.patch('prod', 'web', 'merge', {}, {}, 'scale'),
      ],
    ];
    for (const [request, promise] of cases) {
      const error = await failure(promise);
      expect(isLassoError(error, 'LASSO_RESPONSE_INVALID')).toBe(true);
      expect(error.message).toBe(`${request}: the server answered ${got}, not an object`);
    }
  });

  it.for([
    { body: 'null', message: 'null, not a list object' },
    { body: '[]', message: 'an array, not a list object' },
    { body: '{"items":{}}', message: 'a list whose items is an object, not an array' },
    { body: '{"items":"x"}', message: 'a list whose items is a string, not an array' },
    {
      body: '{"items":[{"metadata":{"name":"a"}},null]}',
      message: 'a list whose items[1] is null, not an object',
    },
    { body: '{"items":[[]]}', message: 'a list whose items[0] is an array, not an object' },
    { body: '{"items":[3]}', message: 'a list whose items[0] is a number, not an object' },
  ])('refuses the list $body, naming the request and what it got', async ({ body, message }) => {
    const c = await answering(body);
    const error = await failure(c.list('prod', { limit: 5 }));
    expect(isLassoError(error, 'LASSO_RESPONSE_INVALID')).toBe(true);
    expect(error.message).toBe(
      `list deployments.apps in namespace "prod": the server answered ${message}`,
    );
    const all = await failure(
      (async () => {
        for await (const _ of c.listAll(undefined)) {
          /* drain */
        }
      })(),
    );
    expect(all.message).toBe(`list deployments.apps: the server answered ${message}`);
  });

  it('accepts a list without items or metadata (the server leaves empty ones out)', async () => {
    const c = await answering('{"kind":"DeploymentList"}');
    await expect(c.list('prod')).resolves.toEqual({
      apiVersion: 'apps/v1',
      kind: 'DeploymentList',
      metadata: {},
      items: [],
    });
    const nulls = await answering('{"metadata":null,"items":null}');
    await expect(nulls.list('prod')).resolves.toMatchObject({ metadata: {}, items: [] });
  });

  it('lets delete answer any JSON (a Status or the object)', async () => {
    const c = await answering('{"kind":"Status","status":"Success"}');
    await expect(c.delete('prod', 'web')).resolves.toBeUndefined();
  });
});
