// Ports the behaviours of controller-runtime pkg/controller/controllerutil/controllerutil_test.go (Finalizers)
// and of wrangler's OnRemove handlers (own tests, not copies).

import { noopLogger } from '@lasso/core';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { describe, expect, it } from 'vitest';
import {
  addFinalizer,
  containsFinalizer,
  type FinalizerClient,
  finalizerHandler,
  removeFinalizer,
} from './finalizer.ts';
import type { ReconcileContext } from './reconcile-context.ts';

/** The third argument a controller passes to a handler. */
const context: ReconcileContext = {
  signal: new AbortController().signal,
  key: 'default/settings',
  logger: noopLogger,
};

const finalizer = 'example.com/cleanup';

function configMap(finalizers?: string[], deleting = false): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'settings',
      namespace: 'default',
      uid: 'uid-1',
      resourceVersion: '1',
      ...(finalizers === undefined ? {} : { finalizers }),
      ...(deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}),
    },
  };
}

/** An in-memory update: bumps the resourceVersion and records what was written. */
function fakeClient(options: { fail?: unknown } = {}) {
  const writes: Array<{ namespace: string | undefined; object: ConfigMap }> = [];
  const client: FinalizerClient<ConfigMap> = {
    async update(namespace, object) {
      if (options.fail !== undefined) throw options.fail;
      writes.push({ namespace, object });
      const version = Number(object.metadata?.resourceVersion ?? '0') + 1;
      return { ...object, metadata: { ...object.metadata, resourceVersion: String(version) } };
    },
  };
  return { client, writes };
}

describe('containsFinalizer', () => {
  it('tells whether the object lists the finalizer', () => {
    expect(containsFinalizer(configMap([finalizer]), finalizer)).toBe(true);
    expect(containsFinalizer(configMap(['other.io/x']), finalizer)).toBe(false);
    expect(containsFinalizer({}, finalizer)).toBe(false);
  });
});

describe('addFinalizer', () => {
  it('appends the finalizer to a copy', () => {
    const input = configMap(['other.io/x']);
    const result = addFinalizer(input, finalizer);
    expect(result.metadata?.finalizers).toEqual(['other.io/x', finalizer]);
    expect(input.metadata?.finalizers).toEqual(['other.io/x']);
  });

  it('returns the object itself when the finalizer is there already', () => {
    const input = configMap([finalizer]);
    expect(addFinalizer(input, finalizer)).toBe(input);
  });

  it('throws a TypeError for an empty finalizer', () => {
    expect(() => addFinalizer(configMap(), '')).toThrow(/finalizer/);
  });
});

describe('removeFinalizer', () => {
  it('removes every occurrence from a copy', () => {
    const input = configMap([finalizer, 'other.io/x', finalizer]);
    const result = removeFinalizer(input, finalizer);
    expect(result.metadata?.finalizers).toEqual(['other.io/x']);
    expect(input.metadata?.finalizers).toHaveLength(3);
  });

  it('returns the object itself when the finalizer is absent', () => {
    const input = configMap(['other.io/x']);
    expect(removeFinalizer(input, finalizer)).toBe(input);
  });
});

describe('finalizerHandler', () => {
  const noRemove = () => undefined;

  it("passes the reconcile's signal to every write and the context to the callbacks", async () => {
    const signals: Array<AbortSignal | undefined> = [];
    const client: FinalizerClient<ConfigMap> = {
      update: async (_namespace, object, options) => {
        signals.push(options?.signal);
        return object;
      },
    };
    const seen: ReconcileContext[] = [];
    const handler = finalizerHandler(client, finalizer, {
      onRemove: (_key, _object, given) => void seen.push(given),
      onChange: (_key, _object, given) => void seen.push(given),
    });
    await handler('default/settings', configMap(), context);
    await handler('default/settings', configMap([finalizer], true), context);
    expect(signals).toEqual([context.signal, context.signal]);
    expect(seen).toEqual([context, context]);
  });

  it('adds the finalizer to a live object and returns the updated object', async () => {
    const { client, writes } = fakeClient();
    const handler = finalizerHandler(client, finalizer, { onRemove: noRemove });
    const result = await handler('default/settings', configMap(), context);
    expect(writes).toHaveLength(1);
    expect(writes[0]?.namespace).toBe('default');
    expect(writes[0]?.object.metadata?.finalizers).toEqual([finalizer]);
    expect(result).toMatchObject({ metadata: { resourceVersion: '2', finalizers: [finalizer] } });
  });

  it('passes the updated object to onChange and returns what onChange returns', async () => {
    const { client } = fakeClient();
    const seen: Array<string | undefined> = [];
    const handler = finalizerHandler(client, finalizer, {
      onRemove: noRemove,
      onChange: (_key, object) => {
        seen.push(object.metadata?.resourceVersion);
        return { ...object, data: { changed: 'yes' } };
      },
    });
    const result = (await handler('default/settings', configMap(), context)) as ConfigMap;
    expect(seen).toEqual(['2']);
    expect(result.data).toEqual({ changed: 'yes' });
  });

  it('writes nothing and returns nothing for a live object that has the finalizer', async () => {
    const { client, writes } = fakeClient();
    let changes = 0;
    const handler = finalizerHandler(client, finalizer, {
      onRemove: noRemove,
      onChange: () => {
        changes++;
      },
    });
    expect(await handler('default/settings', configMap([finalizer]), context)).toBeUndefined();
    expect(writes).toEqual([]);
    expect(changes).toBe(1);
  });

  it('runs onRemove, then removes the finalizer of an object being deleted', async () => {
    const { client, writes } = fakeClient();
    const order: string[] = [];
    const handler = finalizerHandler(client, finalizer, {
      onRemove: (key) => {
        order.push(`remove ${key}`);
      },
      onChange: () => {
        order.push('change');
      },
    });
    const result = await handler(
      'default/settings',
      configMap(['other.io/x', finalizer], true),
      context,
    );
    expect(order).toEqual(['remove default/settings']);
    expect(writes.map((write) => write.object.metadata?.finalizers)).toEqual([['other.io/x']]);
    expect(result).toMatchObject({
      metadata: { finalizers: ['other.io/x'], resourceVersion: '2' },
    });
  });

  it('removes the finalizer from the object onRemove returns', async () => {
    const { client, writes } = fakeClient();
    const handler = finalizerHandler(client, finalizer, {
      onRemove: (_key, object) => ({
        ...object,
        metadata: { ...object.metadata, resourceVersion: '7' },
      }),
    });
    await handler('default/settings', configMap([finalizer], true), context);
    expect(writes[0]?.object.metadata).toMatchObject({ resourceVersion: '7', finalizers: [] });
  });

  it('keeps the finalizer when onRemove fails, and propagates the error', async () => {
    const { client, writes } = fakeClient();
    const failure = new Error('external cleanup failed');
    const handler = finalizerHandler(client, finalizer, {
      onRemove: async () => {
        throw failure;
      },
    });
    await expect(handler('default/settings', configMap([finalizer], true), context)).rejects.toBe(
      failure,
    );
    expect(writes).toEqual([]);
  });

  it('propagates a failed update (a conflict) so the controller retries', async () => {
    const conflict = Object.assign(new Error('conflict'), { reason: 'Conflict' });
    const { client } = fakeClient({ fail: conflict });
    let removals = 0;
    const handler = finalizerHandler(client, finalizer, {
      onRemove: () => {
        removals++;
      },
    });
    await expect(handler('default/settings', configMap([finalizer], true), context)).rejects.toBe(
      conflict,
    );
    expect(removals).toBe(1);
  });

  it('does nothing for an object being deleted without the finalizer, or already gone', async () => {
    const { client, writes } = fakeClient();
    let calls = 0;
    const handler = finalizerHandler(client, finalizer, {
      onRemove: () => {
        calls++;
      },
      onChange: () => {
        calls++;
      },
    });
    expect(
      await handler('default/settings', configMap(['other.io/x'], true), context),
    ).toBeUndefined();
    expect(await handler('default/settings', undefined, context)).toBeUndefined();
    expect(writes).toEqual([]);
    expect(calls).toBe(0);
  });

  it.for([
    { name: 'an empty name', value: '' },
    { name: 'a name without a domain', value: 'cleanup' },
    { name: 'an upper-case domain', value: 'Example.com/cleanup' },
    { name: 'an empty name part', value: 'example.com/' },
    { name: 'a name part over 63 characters', value: `example.com/${'a'.repeat(64)}` },
    { name: 'a name part ending in a dash', value: 'example.com/cleanup-' },
  ])('throws a TypeError for $name', ({ value }) => {
    const { client } = fakeClient();
    expect(() => finalizerHandler(client, value, { onRemove: noRemove })).toThrow(TypeError);
    expect(() => finalizerHandler(client, value, { onRemove: noRemove })).toThrow(/finalizer/);
  });

  it('accepts a domain-qualified name', () => {
    const { client } = fakeClient();
    expect(() =>
      finalizerHandler(client, 'apps.example.com/Clean_up.v1', { onRemove: noRemove }),
    ).not.toThrow();
  });

  it('throws a TypeError naming a missing onRemove or client', () => {
    const { client } = fakeClient();
    expect(() => finalizerHandler(client, finalizer, {} as never)).toThrow(/onRemove/);
    expect(() => finalizerHandler({} as never, finalizer, { onRemove: noRemove })).toThrow(
      /client/,
    );
  });
});
