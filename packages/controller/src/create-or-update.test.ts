// createOrUpdate on an in-memory store with kube's optimistic concurrency (404, AlreadyExists, Conflict), with a
// FakeClock for the conflict retries.
import { ApiError } from '@lasso/client';
import { FakeClock } from '@lasso/core/testing';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import { type CreateOrUpdateClient, createOrUpdate } from './create-or-update.ts';

interface Call {
  verb: 'get' | 'create' | 'update';
  signal: AbortSignal | undefined;
  fieldManager?: string | undefined;
}

/** One namespace of ConfigMaps with resourceVersions; `before` runs before each call (to race it). */
function fakeConfigMaps() {
  const stored = new Map<string, ConfigMap>();
  const calls: Call[] = [];
  let version = 0;
  const hooks: { before: (verb: Call['verb']) => void } = { before: () => {} };
  const put = (object: ConfigMap): ConfigMap => {
    const saved = structuredClone({
      ...object,
      metadata: { ...object.metadata, resourceVersion: String(++version) },
    });
    stored.set(object.metadata?.name ?? '', saved);
    return structuredClone(saved);
  };
  const client: CreateOrUpdateClient<ConfigMap> = {
    get: async (_namespace, name, options = {}) => {
      calls.push({ verb: 'get', signal: options.signal });
      hooks.before('get');
      const found = stored.get(name);
      if (found === undefined) throw new ApiError({ status: 404, reason: 'NotFound' });
      return structuredClone(found);
    },
    create: async (_namespace, object, options = {}) => {
      calls.push({ verb: 'create', signal: options.signal, fieldManager: options.fieldManager });
      hooks.before('create');
      if (stored.has(object.metadata?.name ?? '')) {
        throw new ApiError({ status: 409, reason: 'AlreadyExists' });
      }
      return put(object);
    },
    update: async (_namespace, object, options = {}) => {
      calls.push({ verb: 'update', signal: options.signal, fieldManager: options.fieldManager });
      hooks.before('update');
      const found = stored.get(object.metadata?.name ?? '');
      if (found === undefined) throw new ApiError({ status: 404, reason: 'NotFound' });
      if (found.metadata?.resourceVersion !== object.metadata?.resourceVersion) {
        throw new ApiError({ status: 409, reason: 'Conflict' });
      }
      return put(object);
    },
  };
  return { client, stored, calls, hooks, put };
}

const key: ConfigMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'default', name: 'settings' },
};
const blue = (configMap: ConfigMap): void => {
  configMap.data = { color: 'blue' };
};

describe('createOrUpdate', () => {
  it('creates the object when it does not exist, passing the signal to every call', async () => {
    const { client, calls, stored } = fakeConfigMaps();
    const signal = new AbortController().signal;
    const result = await createOrUpdate(client, key, blue, {
      signal,
      fieldManager: 'settings-controller',
    });
    expect(result.operation).toBe('created');
    expect(result.object.data).toEqual({ color: 'blue' });
    expect(stored.get('settings')?.data).toEqual({ color: 'blue' });
    expect(calls.map((call) => call.verb)).toEqual(['get', 'create']);
    expect(calls.every((call) => call.signal === signal)).toBe(true);
    expect(calls[1]?.fieldManager).toBe('settings-controller');
    // The caller's object is not changed.
    expect(key).not.toHaveProperty('data');
  });

  it('updates when mutate changed the current object, and writes nothing when it did not', async () => {
    const { client, calls, put } = fakeConfigMaps();
    put({ ...key, data: { color: 'red' } });
    expect((await createOrUpdate(client, key, blue)).operation).toBe('updated');
    expect((await createOrUpdate(client, key, blue)).operation).toBe('unchanged');
    expect(calls.map((call) => call.verb)).toEqual(['get', 'update', 'get']);
  });

  it('reads from the lister instead of the server, without changing the cached object', async () => {
    const { client, calls, put } = fakeConfigMaps();
    const cached = put({ ...key, data: { color: 'red' } });
    const lister = {
      get: (_namespace: string | undefined, name: string) =>
        name === 'settings' ? cached : undefined,
    };
    const result = await createOrUpdate(client, key, blue, { lister });
    expect(result.operation).toBe('updated');
    expect(cached.data).toEqual({ color: 'red' });
    expect(calls.map((call) => call.verb)).toEqual(['update']);
    // A function is a lister too; an up-to-date cache needs no call at all.
    const unchanged = await createOrUpdate(client, key, blue, { lister: () => result.object });
    expect(unchanged.operation).toBe('unchanged');
    expect(calls).toHaveLength(1);
  });

  it('updates when a cache miss meets AlreadyExists (the cache was behind)', async () => {
    const { client, calls, put } = fakeConfigMaps();
    put({ ...key, data: { color: 'red' } });
    const result = await createOrUpdate(client, key, blue, { lister: () => undefined });
    expect(result.operation).toBe('updated');
    expect(calls.map((call) => call.verb)).toEqual(['create', 'get', 'update']);
  });

  it('reads the server again and retries after a Conflict', async () => {
    const { client, calls, hooks, put, stored } = fakeConfigMaps();
    const cached = put({ ...key, data: { color: 'red' } });
    // Another writer changes it between our read (the cache) and our update.
    let raced = false;
    hooks.before = (verb) => {
      if (verb === 'update' && !raced) {
        raced = true;
        put({ ...key, data: { color: 'red', size: 'L' } });
      }
    };
    const clock = new FakeClock();
    const done = createOrUpdate(
      client,
      key,
      (cm) => {
        cm.data = { ...cm.data, color: 'blue' };
      },
      {
        lister: () => cached,
        clock,
      },
    );
    await clock.runAll();
    const result = await done;
    expect(result.operation).toBe('updated');
    expect(stored.get('settings')?.data).toEqual({ color: 'blue', size: 'L' });
    expect(calls.map((call) => call.verb)).toEqual(['update', 'get', 'update']);
  });

  it('throws the Conflict after backoff.steps attempts', async () => {
    const { client, hooks, put } = fakeConfigMaps();
    put(key);
    hooks.before = (verb) => {
      if (verb === 'update') put({ ...key, data: { n: String(Math.random()) } });
    };
    const clock = new FakeClock();
    const done = createOrUpdate(client, key, blue, {
      clock,
      backoff: { steps: 2, durationMs: 10, factor: 1, jitter: 0 },
    });
    const outcome = expect(done).rejects.toMatchObject({ reason: 'Conflict' });
    await clock.runAll();
    await outcome;
  });

  it('rethrows other errors and refuses a mutate that renames', async () => {
    const { client, put } = fakeConfigMaps();
    const failing = {
      ...client,
      get: async () => Promise.reject(new ApiError({ status: 403, reason: 'Forbidden' })),
    };
    await expect(createOrUpdate(failing, key, blue)).rejects.toMatchObject({ reason: 'Forbidden' });
    put(key);
    await expect(
      createOrUpdate(client, key, (cm) => {
        cm.metadata = { ...cm.metadata, name: 'other' };
      }),
    ).rejects.toThrow(/must not change the name or namespace/);
    await expect(createOrUpdate(client, { metadata: {} }, blue)).rejects.toThrow(TypeError);
    await expect(createOrUpdate(client, key, 1 as never)).rejects.toThrow(/mutate/);
  });

  describe('with an owner', () => {
    const source: ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'default', name: 'source', uid: 'uid-source' },
    };
    const reference = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'source',
      uid: 'uid-source',
      controller: true,
      blockOwnerDeletion: true,
    };

    it('sets the controller reference on the created object, then leaves it unchanged', async () => {
      const { client, stored, calls } = fakeConfigMaps();
      const created = await createOrUpdate(client, key, blue, { owner: source });
      expect(created.operation).toBe('created');
      expect(stored.get('settings')?.metadata?.ownerReferences).toEqual([reference]);
      const again = await createOrUpdate(client, key, blue, { owner: source });
      expect(again.operation).toBe('unchanged');
      expect(calls.map((call) => call.verb)).toEqual(['get', 'create', 'get']);
    });

    it('adds it to an existing object, keeping other owners, and never to the cached copy', async () => {
      const { client, stored, put } = fakeConfigMaps();
      const other = { apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'uid-s' };
      const cached = put({
        ...key,
        metadata: { ...key.metadata, ownerReferences: [other] },
        data: { color: 'blue' },
      });
      const result = await createOrUpdate(client, key, blue, {
        owner: source,
        lister: () => cached,
      });
      expect(result.operation).toBe('updated');
      expect(stored.get('settings')?.metadata?.ownerReferences).toEqual([other, reference]);
      expect(cached.metadata?.ownerReferences).toEqual([other]);
    });

    it('fails on an object another owner controls, and on a bad owner before any request', async () => {
      const { client, put, calls } = fakeConfigMaps();
      put({
        ...key,
        metadata: {
          ...key.metadata,
          ownerReferences: [{ ...reference, name: 'someone-else', uid: 'uid-else' }],
        },
      });
      await expect(createOrUpdate(client, key, blue, { owner: source })).rejects.toMatchObject({
        code: 'LASSO_ALREADY_OWNED',
      });
      calls.length = 0;
      const noUid = { ...source, metadata: { namespace: 'default', name: 'source' } };
      await expect(createOrUpdate(client, key, blue, { owner: noUid })).rejects.toThrow(
        'createOrUpdate: options.owner.metadata.uid must be a non-empty string',
      );
      const elsewhere = { ...source, metadata: { ...source.metadata, namespace: 'other' } };
      await expect(createOrUpdate(client, key, blue, { owner: elsewhere })).rejects.toThrow(
        RangeError,
      );
      expect(calls).toEqual([]);
    });
  });
});
