// loadInClusterConfig against startEnvironment(): the service env, the service-account CA, and a rotating
// token file re-read at most every 60 s on the injected clock and at once after a 401.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '@lasso/core/testing';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, isUnauthorized, loadInClusterConfig, RestTransport } from '../../src/index.ts';

let env: Environment;
let dir: string;

beforeAll(async () => {
  env = await startEnvironment();
  dir = await mkdtemp(join(tmpdir(), 'lasso-in-cluster-'));
});

afterAll(async () => {
  await env?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('loadInClusterConfig (integration)', () => {
  it('re-reads the token file after 60 s on the injected clock, and at once after a 401', async ({
    skip,
  }) => {
    const server = new URL(env.credentials.server);
    const token = env.credentials.token;
    if (
      server.protocol !== 'https:' ||
      token === undefined ||
      env.credentials.caPem === undefined
    ) {
      skip('the environment has no TLS or no bearer token');
    }
    const tokenPath = join(dir, 'token');
    const caPath = join(dir, 'ca.crt');
    await writeFile(tokenPath, `${token}\n`);
    await writeFile(caPath, env.credentials.caPem ?? '');
    const clock = new FakeClock();
    const rest = await loadInClusterConfig({
      env: { KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port },
      tokenPath,
      caPath,
      namespacePath: join(dir, 'no-namespace-file'),
      clock,
    });
    const transport = new RestTransport(rest);
    try {
      const namespaces = new Client({
        gvr: { group: '', version: 'v1', resource: 'namespaces' },
        kind: 'Namespace',
        namespaced: false,
        rest: transport,
      });
      await expect(namespaces.get(undefined, 'default')).resolves.toMatchObject({
        kind: 'Namespace',
      });
      // The kubelet rotates the token: within 60 s the cached token is still sent.
      await writeFile(tokenPath, 'revoked-token\n');
      await clock.advance(59_999);
      await expect(namespaces.get(undefined, 'default')).resolves.toMatchObject({
        kind: 'Namespace',
      });
      // After 60 s the file is read again (and its token refused).
      await clock.advance(1);
      await expect(namespaces.get(undefined, 'default')).rejects.toSatisfy(isUnauthorized);
      // The 401 made the next request read the file at once, without waiting another 60 s.
      await writeFile(tokenPath, `${token}\n`);
      await expect(namespaces.get(undefined, 'default')).resolves.toMatchObject({
        kind: 'Namespace',
      });
    } finally {
      await transport.close();
    }
  });
});
