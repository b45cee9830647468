import { describe, expect, it } from 'vitest';
import { loadKubeConfigFromString } from './kubeconfig.ts';

const config = {
  apiVersion: 'v1',
  kind: 'Config',
  clusters: [
    { name: 'c', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority': 'ca.crt' } },
  ],
  users: [{ name: 'u', user: { token: 'secret-token-value' } }],
  contexts: [
    { name: 'x', context: { cluster: 'c', user: 'u', namespace: 'team' } },
    { name: 'y', context: { cluster: 'c' } },
  ],
  'current-context': 'x',
};

describe('loadKubeConfigFromString', () => {
  it('reads a kubeconfig held in memory (JSON, as client-node exports it) as loadKubeConfig reads a file', async () => {
    const rest = await loadKubeConfigFromString(
      JSON.stringify({
        ...config,
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }],
      }),
    );
    expect(rest.server).toBe('https://127.0.0.1:6443');
    expect(rest.namespace).toBe('team');
    expect(rest.auth).toMatchObject({ token: 'secret-token-value' });
    const other = await loadKubeConfigFromString(
      JSON.stringify({
        ...config,
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }],
      }),
      { context: 'y' },
    );
    expect(other.namespace).toBeUndefined();
  });

  it('names its source, never the text, in errors; refuses a non-string', async () => {
    const failure = loadKubeConfigFromString(`token: secret-token-value\n  bad: [`, {
      source: 'exported config',
    });
    await expect(failure).rejects.toThrow(/exported config: unparsable YAML/);
    await expect(failure).rejects.not.toThrow(/secret-token-value/);
    await expect(
      loadKubeConfigFromString(JSON.stringify({ ...config, 'current-context': 'missing' })),
    ).rejects.toThrow(/<kubeconfig text>: context "missing" not found/);
    await expect(loadKubeConfigFromString(42 as unknown as string)).rejects.toThrow(TypeError);
  });

  it('resolves relative file paths from `directory`', async () => {
    const failure = loadKubeConfigFromString(JSON.stringify(config), { directory: '/nowhere/dir' });
    await expect(failure).rejects.toThrow(/\/nowhere\/dir\/ca\.crt/);
  });
});
