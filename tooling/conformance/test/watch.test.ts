// Conformance: watch from a resourceVersion, from "0", with selectors, bookmarks, timeoutSeconds and 410.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, configMap, unique, watch } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let env: Environment;
let ns: string;
let cms: string;

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  cms = `/api/v1/namespaces/${ns}/configmaps`;
});

afterAll(async () => {
  await env?.stop();
});

describe('watch', () => {
  it('streams chunked newline-delimited JSON events after the given resourceVersion, in order', async () => {
    const label = unique('after');
    const first = await call(env, 'POST', cms, { body: configMap('rv-a', {}, { w: label }) });
    const second = await call(env, 'POST', cms, { body: configMap('rv-b', {}, { w: label }) });
    const stream = await watch(
      env,
      `${cms}?watch=1&labelSelector=w%3D${label}&resourceVersion=${first.body.metadata.resourceVersion}`,
    );
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['transfer-encoding']).toBe('chunked');
      expect(stream.headers['content-type']).toMatch(/^application\/json/);
      const added = await stream.next();
      expect(added.type).toBe('ADDED');
      expect(added.object.metadata.name).toBe('rv-b');
      expect(added.object.metadata.resourceVersion).toBe(second.body.metadata.resourceVersion);
      expect(added.object).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
      const updated = await call(env, 'PUT', `${cms}/rv-a`, {
        body: { ...first.body, data: { x: '1' } },
      });
      const modified = await stream.next();
      expect(modified.type).toBe('MODIFIED');
      expect(modified.object.metadata.resourceVersion).toBe(updated.body.metadata.resourceVersion);
      await call(env, 'DELETE', `${cms}/rv-b`);
      const deleted = await stream.next();
      expect(deleted.type).toBe('DELETED');
      expect(deleted.object.metadata.name).toBe('rv-b');
      expect(Number(deleted.object.metadata.resourceVersion)).toBeGreaterThan(
        Number(modified.object.metadata.resourceVersion),
      );
    } finally {
      stream.close();
    }
  });

  it('answers a named GET with ?watch=1 with the object itself, not a stream', async () => {
    const name = unique('named-get');
    await call(env, 'POST', cms, { body: configMap(name, { k: 'v' }) });
    const reply = await call(env, 'GET', `${cms}/${name}?watch=1`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });
  });

  it.for(['0', ''])(
    'sends synthetic ADDED events for the current state from resourceVersion "%s"',
    async (rv) => {
      const label = unique('initial');
      await call(env, 'POST', cms, { body: configMap(`${label}-1`, {}, { w: label }) });
      await call(env, 'POST', cms, { body: configMap(`${label}-2`, {}, { w: label }) });
      const stream = await watch(
        env,
        `${cms}?watch=true&labelSelector=w%3D${label}&resourceVersion=${rv}`,
      );
      try {
        const events = [await stream.next(), await stream.next()];
        expect(events.map((event) => event.type)).toEqual(['ADDED', 'ADDED']);
        expect(events.map((event) => event.object.metadata.name).sort()).toEqual([
          `${label}-1`,
          `${label}-2`,
        ]);
        await call(env, 'POST', cms, { body: configMap(`${label}-3`, {}, { w: label }) });
        const live = await stream.next();
        expect(live).toMatchObject({ type: 'ADDED', object: { metadata: { name: `${label}-3` } } });
      } finally {
        stream.close();
      }
    },
  );

  it('turns selector transitions into ADDED and DELETED events', async () => {
    const label = unique('transition');
    const created = await call(env, 'POST', cms, {
      body: configMap(`${label}-cm`, {}, { w: 'no' }),
    });
    const stream = await watch(
      env,
      `${cms}?watch=1&labelSelector=w%3D${label}&resourceVersion=${created.body.metadata.resourceVersion}`,
    );
    try {
      const matching = structuredClone(created.body);
      matching.metadata.labels = { w: label };
      const afterMatch = await call(env, 'PUT', `${cms}/${label}-cm`, { body: matching });
      expect((await stream.next()).type).toBe('ADDED');
      const changed = structuredClone(afterMatch.body);
      changed.data = { k: 'v' };
      const afterChange = await call(env, 'PUT', `${cms}/${label}-cm`, { body: changed });
      expect((await stream.next()).type).toBe('MODIFIED');
      const leaving = structuredClone(afterChange.body);
      leaving.metadata.labels = { w: 'no' };
      await call(env, 'PUT', `${cms}/${label}-cm`, { body: leaving });
      const gone = await stream.next();
      expect(gone.type).toBe('DELETED');
      expect(gone.object.metadata.name).toBe(`${label}-cm`);
    } finally {
      stream.close();
    }
  });

  it('filters by field selector on metadata.name', async () => {
    const name = unique('named');
    const stream = await watch(env, `${cms}?watch=1&fieldSelector=metadata.name%3D${name}`);
    try {
      await call(env, 'POST', cms, { body: configMap(`${name}-other`) });
      await call(env, 'POST', cms, { body: configMap(name) });
      const event = await stream.next();
      expect(event).toMatchObject({ type: 'ADDED', object: { metadata: { name } } });
    } finally {
      stream.close();
    }
  });

  it('reports deletion with finalizers as MODIFIED, then DELETED once the finalizers are gone', async () => {
    const name = unique('final');
    const body = configMap(name);
    body.metadata.finalizers = ['example.com/hold'];
    const created = await call(env, 'POST', cms, { body });
    const stream = await watch(
      env,
      `${cms}?watch=1&fieldSelector=metadata.name%3D${name}&resourceVersion=${created.body.metadata.resourceVersion}`,
    );
    try {
      await call(env, 'DELETE', `${cms}/${name}`);
      const marked = await stream.next();
      expect(marked.type).toBe('MODIFIED');
      expect(marked.object.metadata.deletionTimestamp).toEqual(expect.any(String));
      const released = structuredClone(marked.object);
      released.metadata.finalizers = [];
      await call(env, 'PUT', `${cms}/${name}`, { body: released });
      const deleted = await stream.next();
      expect(deleted.type).toBe('DELETED');
      expect(Number(deleted.object.metadata.resourceVersion)).toBeGreaterThan(
        Number(marked.object.metadata.resourceVersion),
      );
    } finally {
      stream.close();
    }
  });

  it('ends the response cleanly after timeoutSeconds', async () => {
    const stream = await watch(env, `${cms}?watch=1&timeoutSeconds=1&resourceVersion=0`);
    let deadline: ReturnType<typeof setTimeout> | undefined;
    const clean = await Promise.race([
      stream.ended,
      new Promise<string>((resolve) => {
        deadline = setTimeout(() => resolve('still open'), 8_000);
      }),
    ]).finally(() => clearTimeout(deadline));
    expect(clean).toBe(true);
  });

  it('watches every namespace on the cluster-wide path', async () => {
    const label = unique('wide');
    const stream = await watch(env, `/api/v1/configmaps?watch=1&labelSelector=w%3D${label}`);
    try {
      await call(env, 'POST', cms, { body: configMap(label, {}, { w: label }) });
      const event = await stream.next();
      expect(event).toMatchObject({
        type: 'ADDED',
        object: { metadata: { name: label, namespace: ns } },
      });
    } finally {
      stream.close();
    }
  });
});

describe('watch (built-in server faults)', () => {
  it('sends BOOKMARK events only to watches that allow them', async ({ skip }) => {
    if (env.server === undefined) skip('needs the built-in server');
    const label = unique('bookmark');
    const plain = await watch(env, `${cms}?watch=1&labelSelector=w%3D${label}`);
    const marked = await watch(
      env,
      `${cms}?watch=1&allowWatchBookmarks=true&labelSelector=w%3D${label}`,
    );
    try {
      env.server!.faults.sendBookmarks();
      const bookmark = await marked.next();
      expect(bookmark.type).toBe('BOOKMARK');
      expect(bookmark.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
      expect(bookmark.object.metadata.resourceVersion).toBe(env.server!.currentResourceVersion());
      await call(env, 'POST', cms, { body: configMap(label, {}, { w: label }) });
      expect((await plain.next()).type).toBe('ADDED');
      expect(plain.events.map((event) => event.type)).toEqual(['ADDED']);
    } finally {
      plain.close();
      marked.close();
    }
  });

  it('sends periodic bookmarks at the configured interval', async ({ skip }) => {
    if (env.server === undefined) skip('bookmarkIntervalMs applies to the built-in server only');
    const fast = await startEnvironment({ bookmarkIntervalMs: 20 });
    try {
      const stream = await watch(
        fast,
        '/api/v1/namespaces?watch=1&allowWatchBookmarks=1&resourceVersion=0',
      );
      const events = await stream.until((event) => event.type === 'BOOKMARK');
      expect(events.at(-1)!.object.metadata.resourceVersion).toMatch(/^\d+$/);
      stream.close();
    } finally {
      await fast.stop();
    }
  });

  it('answers a watch from an expired resourceVersion with one ERROR event carrying 410 Expired', async ({
    skip,
  }) => {
    if (env.server === undefined) skip('needs the built-in server');
    const created = await call(env, 'POST', cms, { body: configMap(unique('old')) });
    const old = created.body.metadata.resourceVersion;
    await call(env, 'POST', cms, { body: configMap(unique('newer')) });
    env.server!.faults.expireHistory();
    const stream = await watch(env, `${cms}?watch=1&resourceVersion=${old}`);
    expect(stream.status).toBe(200);
    const error = await stream.next();
    expect(error.type).toBe('ERROR');
    expect(error.object).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: 410,
      reason: 'Expired',
    });
    expect(error.object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
    expect(await stream.ended).toBe(true);
  });

  it('ends every open watch cleanly on closeWatches()', async ({ skip }) => {
    if (env.server === undefined) skip('needs the built-in server');
    const stream = await watch(env, `${cms}?watch=1`);
    env.server!.faults.closeWatches();
    expect(await stream.ended).toBe(true);
  });
});
