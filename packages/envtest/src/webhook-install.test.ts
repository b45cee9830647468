import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWebhookConfigurations } from './webhook-install.ts';

describe('loadWebhookConfigurations', () => {
  it('reads objects and multi-document YAML files of the two configuration kinds', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'lasso-webhooks-'));
    try {
      const file = join(directory, 'manifests.yaml');
      await writeFile(
        file,
        'kind: MutatingWebhookConfiguration\nmetadata: {name: m}\n---\nkind: ValidatingWebhookConfiguration\nmetadata: {name: v}\n',
      );
      const loaded = await loadWebhookConfigurations([
        file,
        { kind: 'ValidatingWebhookConfiguration', metadata: { name: 'o' } },
      ]);
      expect(loaded.map((object) => (object.metadata as { name: string }).name)).toEqual([
        'm',
        'v',
        'o',
      ]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('refuses another kind with a TypeError naming it', async () => {
    await expect(
      loadWebhookConfigurations([{ kind: 'ConfigMap', metadata: { name: 'x' } }]),
    ).rejects.toThrow(/got kind "ConfigMap"/);
    await expect(loadWebhookConfigurations([42 as never])).rejects.toThrow(TypeError);
  });
});
