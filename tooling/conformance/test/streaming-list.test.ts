// Conformance: streaming lists (KEP-3157, the WatchList feature): `watch=1&sendInitialEvents=true&
// resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true` streams the current state as ADDED events,
// then a BOOKMARK annotated `k8s.io/initial-events-end: "true"`, then changes. Gated as kube-apiserver
// gates it: the WatchList feature gate is alpha (off) in 1.27-1.31, beta on in 1.32, off again in 1.33
// ("the json and proto streaming encoders appear to work better"), on from 1.34 (kubernetes#128053,
// #132704); a server with the gate off refuses sendInitialEvents with 422. Before 1.27 ListOptions has
// no sendInitialEvents: kube-apiserver ignores it and refuses resourceVersionMatch on any watch (1.20.2
// measured). The built-in server answers as the newest release, with the gate on.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, configMap, unique, watch } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverVersion } from './gates.ts';

let env: Environment;
let ns: string;
let cms: string;

const streaming =
  'watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true';

/** Whether kube-apiserver 1.`minor` serves streaming lists by default (its WatchList gate's default). */
function watchListOn(minor: number): boolean {
  return minor === 32 || minor >= 34;
}

beforeAll(async () => {
  env = await startEnvironment();
  ns = unique('stream');
  cms = `/api/v1/namespaces/${ns}/configmaps`;
  await call(env, 'POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
  });
  for (const name of ['a', 'b']) {
    expect((await call(env, 'POST', cms, { body: configMap(name) })).status).toBe(201);
  }
});

afterAll(async () => {
  if (env !== undefined && ns !== undefined) await call(env, 'DELETE', `/api/v1/namespaces/${ns}`);
  await env?.stop();
});

describe('streaming lists', () => {
  it('streams ADDED for the state, a BOOKMARK marked initial-events-end, then changes (WatchList on: 1.32, 1.34+)', async () => {
    const { minor } = await serverVersion(env);
    if (!watchListOn(minor)) {
      const reply = await call(env, 'GET', `${cms}?${streaming}`);
      expect(reply.status).toBe(422);
      expect(reply.body).toMatchObject({ reason: 'Invalid', details: { kind: 'ListOptions' } });
      expect(reply.body.message).toContain(
        minor >= 27
          ? 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'
          : 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch',
      );
      return;
    }
    const before = await call(env, 'GET', cms);
    const stream = await watch(env, `${cms}?${streaming}`);
    try {
      expect(stream.status).toBe(200);
      const initial = await stream.until((event) => event.type === 'BOOKMARK', 10_000);
      const bookmark = initial.pop()!;
      expect(initial.map((event) => event.type)).toEqual(['ADDED', 'ADDED']);
      expect(initial.map((event) => event.object.metadata.name).sort()).toEqual(['a', 'b']);
      expect(initial[0]!.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
      expect(bookmark.object).toMatchObject({
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } },
      });
      expect(BigInt(bookmark.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(
        BigInt(before.body.metadata.resourceVersion),
      );
      await call(env, 'POST', cms, { body: configMap('c') });
      const live = await stream.until((event) => event.type !== 'BOOKMARK', 10_000);
      expect(live.at(-1)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'c' } } });
    } finally {
      stream.close();
      await call(env, 'DELETE', `${cms}/c`);
    }
  });

  it('refuses sendInitialEvents without resourceVersionMatch=NotOlderThan with 422 (1.27+; ignored before)', async () => {
    const { minor } = await serverVersion(env);
    for (const match of ['', '&resourceVersionMatch=Exact']) {
      const path = `${cms}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&timeoutSeconds=1${match}`;
      const reply = await call(env, 'GET', path);
      if (minor >= 27) {
        expect(reply.status).toBe(422);
        expect(reply.body.message).toContain(
          'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        );
        if (match !== '') {
          expect(reply.body.message).toContain(
            'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"',
          );
        }
      } else if (match === '') {
        // An unknown parameter: a plain watch from now that ends after timeoutSeconds.
        expect(reply.status).toBe(200);
      } else {
        expect(reply.status).toBe(422);
        expect(reply.body.message).toContain('resourceVersionMatch is forbidden for watch');
      }
    }
  });

  it('refuses sendInitialEvents on a list with 422 (1.27+; ignored before)', async () => {
    const reply = await call(env, 'GET', `${cms}?sendInitialEvents=true`);
    if ((await serverVersion(env)).minor >= 27) {
      expect(reply.status).toBe(422);
      expect(reply.body.message).toBe(
        'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
      );
    } else {
      expect(reply.status).toBe(200);
      expect(reply.body.kind).toBe('ConfigMapList');
    }
  });

  it('streams the state without the end bookmark when bookmarks are not allowed (WatchList on)', async () => {
    const { minor } = await serverVersion(env);
    if (!watchListOn(minor)) return;
    const stream = await watch(
      env,
      `${cms}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`,
    );
    try {
      expect(await stream.ended).toBe(true);
      expect(stream.events.map((event) => event.type)).toEqual(['ADDED', 'ADDED']);
    } finally {
      stream.close();
    }
  });

  it('starts from now with sendInitialEvents=false at resourceVersion 0 (WatchList on)', async () => {
    const { minor } = await serverVersion(env);
    const path = `${cms}?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion=0`;
    if (!watchListOn(minor)) {
      expect((await call(env, 'GET', `${path}&timeoutSeconds=1`)).status).toBe(422);
      return;
    }
    const stream = await watch(env, path);
    try {
      await call(env, 'POST', cms, { body: configMap('d') });
      const first = await stream.next(10_000);
      expect(first).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'd' } } });
    } finally {
      stream.close();
      await call(env, 'DELETE', `${cms}/d`);
    }
  });
});
