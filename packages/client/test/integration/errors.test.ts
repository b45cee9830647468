// What API errors say against startEnvironment(): the verb, resource, namespace and name asked for.
import { type Environment, startEnvironment } from '@lasso/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, isNotFound, RestTransport } from '../../src/index.ts';
import { restConfigFromCredentials } from '../../src/testing/index.ts';

let env: Environment;
let transport: RestTransport;

beforeAll(async () => {
  env = await startEnvironment();
  transport = new RestTransport(restConfigFromCredentials(env.credentials));
});

afterAll(async () => {
  await transport?.close();
  await env?.stop();
});

describe('ApiError (integration)', () => {
  it('names the verb, resource, namespace and name of a missing object', async () => {
    const configMaps = new Client({
      gvr: { group: '', version: 'v1', resource: 'configmaps' },
      kind: 'ConfigMap',
      namespaced: true,
      rest: transport,
    });
    const error = await configMaps.get('default', 'a').catch((e: unknown) => e);
    expect(isNotFound(error)).toBe(true);
    expect((error as Error).message).toBe(
      'get configmaps "a" in namespace "default": configmaps "a" not found',
    );
    expect(error).toMatchObject({
      status: 404,
      reason: 'NotFound',
      request: { verb: 'get', resource: 'configmaps', namespace: 'default', name: 'a' },
    });
  });

  it('names the resource the server does not serve', async () => {
    const widgets = new Client({
      gvr: { group: 'example.com', version: 'v1', resource: 'widgets' },
      kind: 'Widget',
      namespaced: true,
      rest: transport,
    });
    const error = await widgets.list('default').catch((e: unknown) => e);
    expect(isNotFound(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^list widgets\.example\.com in namespace "default": /,
    );
  });
});
