// The YAML parser is loaded by the first kubeconfig read, not by importing the package (about 0.9 MiB of heap a
// process configured in-cluster never needs).
import { describe, expect, it, vi } from 'vitest';

const yamlLoads = vi.hoisted(() => ({ count: 0 }));
vi.mock('yaml', async (importOriginal) => {
  yamlLoads.count++;
  return importOriginal();
});

describe('kubeconfig YAML parser', () => {
  it('is not loaded by importing @lasso/client, and is by the first kubeconfig read', async () => {
    const client = await import('../index.ts');
    expect(yamlLoads.count).toBe(0);
    const rest = await client.loadKubeConfigFromString(
      [
        'clusters: [{ name: c, cluster: { server: "https://127.0.0.1:6443" } }]',
        'users: [{ name: u, user: { token: abc } }]',
        'contexts: [{ name: x, context: { cluster: c, user: u } }]',
        'current-context: x',
      ].join('\n'),
    );
    expect(rest.server).toBe('https://127.0.0.1:6443');
    expect(yamlLoads.count).toBe(1);
  });
});
