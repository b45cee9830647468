import { readFileSync } from 'node:fs';
// Secrets never leak: every error (cause chain included) and log entry of config loading is scanned for the
// tokens, passwords and keys the inputs hold.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { createTestLogger } from '@lasso/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecCredentialProvider } from '../auth/exec.ts';
import { TokenFileSource } from '../auth/token-file.ts';
import { loadDefaultConfig } from './default-config.ts';
import { loadInClusterConfig } from './in-cluster.ts';
import { loadKubeConfig } from './kubeconfig.ts';
import { createRestConfig, redactRestConfig } from './rest-config.ts';

const SECRETS = [
  's3cr3t-token-value',
  'hunter2-password',
  'secretkeymaterial',
  'prod-admin',
  'proxy-pass-word',
  'sa-token-secret',
  'exec-env-secret',
  'plugin-printed-token',
  // The body of the fixtures' real client key (client-cert.yaml holds it as data and as a file).
  readFileSync(join(import.meta.dirname, '__fixtures__', 'pki', 'client.key'), 'utf8').split(
    '\n',
  )[1] ?? '',
];

const fixtures = join(import.meta.dirname, '__fixtures__');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lasso-secrets-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Everything a user could see of `value`: message, stack, and util.inspect of the cause chain. */
function visible(value: unknown): string {
  if (value instanceof Error) {
    return `${value.message}\n${value.stack ?? ''}\n${inspect(value, { depth: Number.POSITIVE_INFINITY })}`;
  }
  return `${inspect(value, { depth: Number.POSITIVE_INFINITY })}\n${JSON.stringify(value) ?? ''}`;
}

async function failure(run: () => Promise<unknown> | unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

async function kubeconfigFile(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

const USER = (user: string): string => `apiVersion: v1
clusters:
- name: c
  cluster: { server: 'https://k8s.example.com' }
contexts:
- name: x
  context: { cluster: c, user: u }
current-context: x
users:
- name: u
  user:
${user}
`;

describe('config loading', () => {
  it('never puts a token, password or key in an error, a cause, a log entry or an inspected config', async () => {
    const seen: unknown[] = [];
    const logger = createTestLogger();

    // Unparsable YAML on the very line holding the secret: parsers quote the source line.
    for (const [name, user] of [
      ['unterminated-token.yaml', '    token: "s3cr3t-token-value'],
      ['nested-token.yaml', '    token: s3cr3t-token-value: x: y'],
      ['flow-password.yaml', '    username: admin\n    password: [hunter2-password'],
    ] as const) {
      const path = await kubeconfigFile(name, USER(user));
      seen.push(await failure(() => loadKubeConfig({ path })));
    }
    // Every rejected shape of the fixture holding a token and a password.
    for (const context of ['nope', 'missing-user', 'missing-cluster', 'legacy']) {
      seen.push(
        await failure(() => loadKubeConfig({ path: join(fixtures, 'tokens.yaml'), context })),
      );
    }
    // A key that is not PEM, a bad field next to a token, a proxy URL with a password.
    seen.push(
      await failure(async () =>
        loadKubeConfig({
          path: await kubeconfigFile(
            'bad-key.yaml',
            USER(
              `    client-certificate-data: ${Buffer.from('-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----').toString('base64')}\n    client-key-data: ${Buffer.from('secretkeymaterial').toString('base64')}`,
            ),
          ),
        }),
      ),
      await failure(async () =>
        loadKubeConfig({
          path: await kubeconfigFile(
            'bad-groups.yaml',
            USER('    token: s3cr3t-token-value\n    as: jane\n    as-groups: devs'),
          ),
        }),
      ),
      await failure(() =>
        createRestConfig({ server: 'https://x', proxyUrl: 'http://u:proxy-pass-word@[::1' }),
      ),
    );
    // In-cluster and the token files it reads.
    const sa = join(dir, 'sa');
    await mkdir(sa);
    await writeFile(join(sa, 'token'), 'sa-token-secret');
    await writeFile(join(sa, 'ca.crt'), 'sa-token-secret is not a certificate');
    seen.push(
      await failure(() =>
        loadInClusterConfig({
          env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
          tokenPath: join(sa, 'token'),
          caPath: join(sa, 'ca.crt'),
        }),
      ),
    );
    await writeFile(join(sa, 'empty'), '\n');
    seen.push(await failure(() => new TokenFileSource(join(sa, 'empty')).token()));
    // Exec plugins: a failing one and one printing garbage that holds a token.
    const exec = {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: process.execPath,
      env: [{ name: 'SECRET', value: 'exec-env-secret' }],
      source: 'test: users[u].user.exec',
    };
    seen.push(
      await failure(() =>
        new ExecCredentialProvider({ ...exec, args: ['-e', 'process.exit(4)'] }).credential(),
      ),
      await failure(() =>
        new ExecCredentialProvider({
          ...exec,
          args: ['-e', 'process.stdout.write("{\\"token\\": plugin-printed-token")'],
        }).credential(),
      ),
    );
    // Successful loads: the config itself and the info log saying where it came from.
    const home = join(dir, 'home');
    await mkdir(join(home, '.kube'), { recursive: true });
    for (const fixture of ['tokens.yaml', 'client-cert.yaml', 'eks.yaml']) {
      const config = await loadDefaultConfig({
        env: { KUBECONFIG: join(fixtures, fixture) },
        logger,
      });
      seen.push(config);
    }
    seen.push(
      await loadKubeConfig({ path: join(fixtures, 'tokens.yaml'), context: 'basic', logger }),
    );
    seen.push(
      createRestConfig({ server: 'https://x', proxyUrl: 'http://u:proxy-pass-word@p:3128' }),
    );

    expect(seen.length).toBeGreaterThan(15);
    expect(logger.entries.length).toBeGreaterThan(0);
    const texts = [...seen.map(visible), ...logger.entries.map((entry) => visible(entry))];
    for (const text of texts) {
      for (const secret of SECRETS)
        expect(text, `a printed value holds ${secret}`).not.toContain(secret);
    }
  });
});

describe('a server URL with userinfo', () => {
  const server = 'https://admin:url-pass-word@127.0.0.1:1';
  const secrets = ['url-pass-word', 'admin:', 'admin@'];

  it('never appears in inspect or JSON of a config, a transport or a client, nor in their errors', async () => {
    const { RestTransport } = await import('../transport.ts');
    const { Client } = await import('../client.ts');
    const seen: unknown[] = [];
    const config = createRestConfig({ server, timeoutMs: 0 });
    seen.push(config, redactRestConfig(config));
    // A plain object lacks the config's hooks; the transport redacts it itself.
    const transport = new RestTransport({ server });
    const client = new Client({
      gvr: { group: '', version: 'v1', resource: 'configmaps' },
      kind: 'ConfigMap',
      namespaced: true,
      rest: transport,
    });
    seen.push(transport, client);
    // Nothing listens on port 1: a connection failure.
    seen.push(await failure(() => client.get('default', 'a')));
    await transport.close();
    // Not a URL at all (a bad port): the text is not quoted.
    for (const bad of [
      'https://admin:url-pass-word@k8s.example:notaport',
      // Without scheme: `admin:` must not be quoted as one.
      'admin:url-pass-word@k8s.example:notaport',
    ]) {
      seen.push(await failure(() => createRestConfig({ server: bad })));
      seen.push(
        await failure(async () =>
          loadKubeConfig({
            path: await kubeconfigFile(
              'userinfo.yaml',
              `clusters:\n- name: c\n  cluster: { server: '${bad}' }\ncontexts:\n- name: x\n  context: { cluster: c }\ncurrent-context: x\n`,
            ),
          }),
        ),
      );
    }
    const loaded = await loadKubeConfig({
      path: await kubeconfigFile(
        'userinfo-ok.yaml',
        `clusters:\n- name: c\n  cluster: { server: '${server}' }\ncontexts:\n- name: x\n  context: { cluster: c }\ncurrent-context: x\n`,
      ),
    });
    seen.push(loaded);
    const texts = seen.map(visible);
    // The host stays visible: only the userinfo goes.
    for (const index of [0, 1, 2, 3, 4, 9]) expect(texts[index]).toContain('127.0.0.1:1');
    for (const text of texts) {
      for (const secret of secrets) expect(text, text).not.toContain(secret);
    }
  });
});
