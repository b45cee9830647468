// applyObject's request: the apply patch, its field manager and force, and the metadata it leaves out.
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { applyObject } from './apply.ts';

const key: ConfigMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'default', name: 'settings' },
};

describe('applyObject', () => {
  function recordingClient() {
    const patches: unknown[][] = [];
    return {
      patches,
      client: {
        patch: async (...args: unknown[]) => {
          patches.push(args);
          return args[3] as ConfigMap;
        },
      },
    };
  }

  it('sends an apply patch with the field manager, force by default, without server-set metadata', async () => {
    const { client, patches } = recordingClient();
    const signal = new AbortController().signal;
    await applyObject(
      client,
      {
        ...key,
        metadata: { ...key.metadata, resourceVersion: '7', uid: 'u', managedFields: [{}] },
        data: { color: 'blue' },
      },
      { fieldManager: 'settings-controller', signal },
    );
    expect(patches).toEqual([
      [
        'default',
        'settings',
        'apply',
        { ...key, data: { color: 'blue' } },
        { fieldManager: 'settings-controller', force: true, dryRun: undefined, signal },
      ],
    ]);
  });

  it('applies to the status subresource and honours force: false', async () => {
    const { client, patches } = recordingClient();
    await applyObject(client, key, { fieldManager: 'm', subresource: 'status', force: false });
    expect(patches[0]?.[4]).toMatchObject({ force: false });
    expect(patches[0]?.[5]).toBe('status');
  });

  it('refuses a missing field manager, apiVersion, kind or name', async () => {
    const { client } = recordingClient();
    await expect(applyObject(client, key, { fieldManager: '' })).rejects.toThrow(/fieldManager/);
    await expect(
      applyObject(client, { metadata: { name: 'x' } }, { fieldManager: 'm' }),
    ).rejects.toThrow(/apiVersion and kind/);
    await expect(
      applyObject(client, { apiVersion: 'v1', kind: 'ConfigMap' }, { fieldManager: 'm' }),
    ).rejects.toThrow(/metadata.name/);
  });

  it('adds the owner as controller reference to the applied body', async () => {
    const { client, patches } = recordingClient();
    const owner = {
      apiVersion: 'example.com/v1',
      kind: 'App',
      metadata: { namespace: 'default', name: 'web', uid: 'uid-web' },
    };
    await applyObject(client, { ...key, data: { a: 'b' } }, { fieldManager: 'm', owner });
    expect(patches[0]?.[3]).toEqual({
      ...key,
      metadata: {
        ...key.metadata,
        ownerReferences: [
          {
            apiVersion: 'example.com/v1',
            kind: 'App',
            name: 'web',
            uid: 'uid-web',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      data: { a: 'b' },
    });
    await expect(
      applyObject(client, key, {
        fieldManager: 'm',
        owner: { ...owner, metadata: { name: 'web' } },
      }),
    ).rejects.toThrow('applyObject: options.owner.metadata.uid must be a non-empty string');
  });
});
