// Conformance: server-side sharded list and watch (KEP-5866). kube-apiserver 1.36 with its
// ShardedListAndWatch gate on sends only the objects whose uid (or namespace) hashes into the
// `shardSelector` ranges, on list (paged too), watch and streaming list, echoes the applied selector in
// `metadata.shardInfo.selector`, and fails a selector it cannot parse with 500 "invalid shard selector: …"
// (the registry store returns a plain error, not a Status: k8s.io/apiserver v0.36.0-v0.36.3
// registry/generic/registry/store.go ListPredicate and Watch; packages/apiserver/README.md has the path and
// apiserver's selection/shard-selector.test.ts every case). A server without the gate (any release
// before 1.36, or the gate off) ignores the parameter: everything, no shardInfo. The built-in server
// serves it unless started with `shardedListAndWatch: false`; kube-apiserver 1.20.2 takes the
// "not applied" branch of every test here (checked).
import {
  createShardMatcher,
  formatShardSelector,
  parseShardSelector,
  type ShardRange,
} from '@lasso/core/sharding';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, configMap, unique, type WatchStream, watch } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverVersion } from './gates.ts';

const half = 1n << 63n;
const lower = formatShardSelector({
  key: 'object.metadata.uid',
  ranges: [{ start: 0n, end: half }],
});
// Two ranges ORed: the upper half cut in two, so the server must read `||`.
const upperRanges: ShardRange[] = [
  { start: half, end: 3n << 62n },
  { start: 3n << 62n, end: 1n << 64n },
];
const upper = formatShardSelector({ key: 'object.metadata.uid', ranges: upperRanges });
const halves = [lower, upper];

interface Case {
  name: string;
  option: boolean | undefined;
  env?: Environment;
  ns?: string;
}

const cases: Case[] = [
  { name: 'default server', option: undefined },
  { name: 'built-in server started with shardedListAndWatch: false', option: false },
];

beforeAll(async () => {
  for (const entry of cases) {
    // The option is the built-in server's; a real kube-apiserver is started once.
    if (entry.option === false && cases[0]!.env?.mode !== 'builtin') continue;
    const env = await startEnvironment(
      entry.option === undefined ? {} : { shardedListAndWatch: entry.option },
    );
    entry.env = env;
    entry.ns = unique('shard');
    await call(env, 'POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: entry.ns } },
    });
    for (let index = 0; index < 12; index++) {
      const reply = await call(env, 'POST', `/api/v1/namespaces/${entry.ns}/configmaps`, {
        body: configMap(`cm-${index}`),
      });
      expect(reply.status).toBe(201);
    }
  }
});

afterAll(async () => {
  for (const { env, ns } of cases) {
    if (env !== undefined && ns !== undefined)
      await call(env, 'DELETE', `/api/v1/namespaces/${ns}`);
    await env?.stop();
  }
});

/**
 * Whether this server should apply shardSelector: the built-in one unless turned off; a real
 * kube-apiserver before 1.36 never (undefined: a newer real server, whose gate decides).
 */
async function expectApplied(entry: Case): Promise<boolean | undefined> {
  const env = entry.env!;
  if (env.mode === 'builtin') return entry.option !== false;
  const { minor } = await serverVersion(env);
  return minor < 36 ? false : undefined;
}

function query(selector: string, extra = ''): string {
  return `shardSelector=${encodeURIComponent(selector)}${extra}`;
}

function inShard(selector: string): (object: any) => boolean {
  const contains = createShardMatcher(parseShardSelector(selector));
  return (object) => contains(String(object.metadata.uid));
}

async function listAll(entry: Case): Promise<any> {
  const reply = await call(entry.env!, 'GET', `/api/v1/namespaces/${entry.ns}/configmaps`);
  expect(reply.status).toBe(200);
  return reply.body;
}

function names(items: any[]): string[] {
  return items.map((item) => item.metadata.name as string).sort();
}

for (const entry of cases) {
  describe(`sharded list and watch: ${entry.name}`, () => {
    it('lists only the shard’s objects and echoes shardInfo, or everything without it', async (context) => {
      if (entry.env === undefined) context.skip();
      const expected = await expectApplied(entry);
      const all = (await listAll(entry)).items as any[];
      const seen: string[] = [];
      for (const selector of halves) {
        const reply = await call(
          entry.env!,
          'GET',
          `/api/v1/namespaces/${entry.ns}/configmaps?${query(selector)}`,
        );
        expect(reply.status).toBe(200);
        const applied = reply.body.metadata.shardInfo !== undefined;
        if (expected !== undefined) expect(applied).toBe(expected);
        if (applied) {
          expect(reply.body.metadata.shardInfo).toEqual({ selector });
          expect(names(reply.body.items)).toEqual(names(all.filter(inShard(selector))));
        } else {
          expect(names(reply.body.items)).toEqual(names(all));
        }
        seen.push(...names(reply.body.items));
      }
      // Applied: the halves partition the collection; ignored: each half is all of it.
      expect(new Set(seen).size).toBe(all.length);
    });

    it('filters a metadata-only list too, but without shardInfo (kube 1.36 copies only rv, continue, count)', async (context) => {
      if (entry.env === undefined) context.skip();
      const expected = await expectApplied(entry);
      const all = (await listAll(entry)).items as any[];
      const headers = {
        Accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
      };
      let total = 0;
      const replies: Array<Awaited<ReturnType<typeof call>>> = [];
      for (const selector of halves) {
        const reply = await call(
          entry.env!,
          'GET',
          `/api/v1/namespaces/${entry.ns}/configmaps?${query(selector)}`,
          { headers },
        );
        expect(reply.status).toBe(200);
        expect(reply.body.kind).toBe('PartialObjectMetadataList');
        expect(reply.body.metadata.shardInfo).toBeUndefined();
        total += reply.body.items.length;
        replies.push(reply);
      }
      // Applied, the halves add up to the collection; ignored, each half is all of it.
      const applied = total === all.length;
      if (expected !== undefined) expect(applied).toBe(expected);
      halves.forEach((selector, index) => {
        const want = applied ? all.filter(inShard(selector)) : all;
        expect(names(replies[index]!.body.items)).toEqual(names(want));
      });
    });

    it('pages a sharded list with limit and continue, each page carrying shardInfo', async (context) => {
      if (entry.env === undefined) context.skip();
      const expected = await expectApplied(entry);
      const all = (await listAll(entry)).items as any[];
      for (const selector of halves) {
        const collected: any[] = [];
        let token = '';
        let pages = 0;
        let applied: boolean | undefined;
        do {
          const extra = `&limit=2${token === '' ? '' : `&continue=${encodeURIComponent(token)}`}`;
          const reply = await call(
            entry.env!,
            'GET',
            `/api/v1/namespaces/${entry.ns}/configmaps?${query(selector, extra)}`,
          );
          expect(reply.status).toBe(200);
          const pageApplied = reply.body.metadata.shardInfo !== undefined;
          applied ??= pageApplied;
          expect(pageApplied).toBe(applied);
          if (applied && reply.body.metadata.continue !== undefined) {
            // A filtered list cannot count what is left (kube's etcd3 store: only for an empty predicate).
            expect(reply.body.metadata.remainingItemCount).toBeUndefined();
          }
          expect(reply.body.items.length).toBeLessThanOrEqual(2);
          collected.push(...reply.body.items);
          token = reply.body.metadata.continue ?? '';
          pages++;
        } while (token !== '' && pages < 20);
        if (expected !== undefined) expect(applied).toBe(expected);
        const want = applied ? all.filter(inShard(selector)) : all;
        expect(names(collected)).toEqual(names(want));
      }
    });

    it('watches only the shard’s events, or every event when not applied', async (context) => {
      if (entry.env === undefined) context.skip();
      const expected = await expectApplied(entry);
      const env = entry.env!;
      const path = `/api/v1/namespaces/${entry.ns}/configmaps`;
      const rv = (await listAll(entry)).metadata.resourceVersion as string;
      const streams: WatchStream[] = [];
      try {
        for (const selector of halves) {
          const stream = await watch(
            env,
            `${path}?watch=1&resourceVersion=${rv}&${query(selector)}`,
          );
          expect(stream.status).toBe(200);
          streams.push(stream);
        }
        // Enough new objects that each half owns at least one (a uid lands in either with odds 1/2).
        const created: any[] = [];
        while (
          created.length < 40 &&
          (created.length < 6 || halves.some((selector) => !created.some(inShard(selector))))
        ) {
          const reply = await call(env, 'POST', path, { body: configMap(unique('w')) });
          expect(reply.status).toBe(201);
          created.push(reply.body);
        }
        // Then one change per half, after every create: when a watch has seen its half's change, it has
        // seen every create before it (a watch delivers in commit order), filtered or not.
        const markers = halves.map((selector) => created.filter(inShard(selector)).at(-1)!);
        for (const marker of markers) {
          const reply = await call(env, 'PATCH', `${path}/${marker.metadata.name}`, {
            body: { metadata: { labels: { marker: 'true' } } },
            contentType: 'application/merge-patch+json',
          });
          expect(reply.status).toBe(200);
        }
        const createdNames = new Set(created.map((object) => object.metadata.name as string));
        const added = (stream: WatchStream): string[] =>
          stream.events
            .filter(
              (event) => event.type === 'ADDED' && createdNames.has(event.object.metadata.name),
            )
            .map((event) => event.object.metadata.name as string)
            .sort();
        for (const [index, stream] of streams.entries()) {
          const name = markers[index]!.metadata.name;
          await stream.until(
            (event) => event.type === 'MODIFIED' && event.object.metadata.name === name,
            10_000,
          );
        }
        const applied = added(streams[0]!).length < created.length;
        if (expected !== undefined) expect(applied).toBe(expected);
        halves.forEach((selector, index) => {
          const want = applied ? created.filter(inShard(selector)) : created;
          expect(added(streams[index]!)).toEqual(names(want));
        });
      } finally {
        for (const stream of streams) stream.close();
      }
    });

    it('streams a sharded list: the shard’s objects, then the initial-events-end bookmark (WatchList servers)', async (context) => {
      if (entry.env === undefined) context.skip();
      const env = entry.env!;
      const { minor } = await serverVersion(env);
      // Streaming lists need the WatchList gate (on by default from 1.34; see streaming-list.test.ts).
      if (env.mode !== 'builtin' && minor < 34) context.skip();
      const expected = await expectApplied(entry);
      const all = (await listAll(entry)).items as any[];
      const selector = upper;
      const stream = await watch(
        env,
        `/api/v1/namespaces/${entry.ns}/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&${query(selector)}`,
      );
      try {
        expect(stream.status).toBe(200);
        const events = await stream.until(
          (event) =>
            event.type === 'BOOKMARK' &&
            event.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true',
        );
        const added = events.filter((event) => event.type === 'ADDED').map((event) => event.object);
        const applied = added.length < all.length;
        if (expected !== undefined) expect(applied).toBe(expected);
        expect(names(added)).toEqual(names(applied ? all.filter(inShard(selector)) : all));
      } finally {
        stream.close();
      }
    });

    it('fails a selector it cannot apply with 500 "invalid shard selector", or ignores it', async (context) => {
      if (entry.env === undefined) context.skip();
      const expected = await expectApplied(entry);
      const env = entry.env!;
      const path = `/api/v1/namespaces/${entry.ns}/configmaps`;
      const refusals: Array<[string, string]> = [
        [
          "shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')",
          'invalid shard selector: unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace',
        ],
        [
          "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",
          'invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)',
        ],
        [
          "shardRange(object.metadata.uid, '0x8000000000000000', '0x0000000000000000')",
          'invalid shard selector: shard range start 0x8000000000000000 must be less than end 0x0000000000000000',
        ],
        [
          "shardRange(object.metadata.uid, '0x000000000000000g', '0x8000000000000000')",
          'invalid shard selector: hexStart: invalid hex character "g" in "0x000000000000000g"',
        ],
        [
          "hashRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
          'invalid shard selector: unsupported function "hashRange"; only shardRange() and || are allowed',
        ],
        // Blanks: the store skips only "", and Parse trims before it refuses an empty selector.
        [
          ' ',
          'invalid shard selector: empty shard selector is not allowed; omit the parameter for unfiltered lists',
        ],
      ];
      for (const [selector, message] of refusals) {
        // timeoutSeconds ends a watch the server accepted, so the reply can be read whole.
        for (const suffix of ['', '&watch=1&timeoutSeconds=1']) {
          const reply = await call(env, 'GET', `${path}?${query(selector, suffix)}`);
          if (suffix !== '' && reply.status === 200) {
            // A watch the server accepted: it ignores the parameter. Nothing more to read.
            expect(expected).not.toBe(true);
            continue;
          }
          const applied = reply.status !== 200;
          if (expected !== undefined) expect(applied).toBe(expected);
          if (applied) {
            expect(reply.status).toBe(500);
            expect(reply.body).toMatchObject({
              kind: 'Status',
              status: 'Failure',
              code: 500,
              message,
            });
            expect(reply.body.reason).toBeUndefined();
          } else {
            expect(reply.body.metadata.shardInfo).toBeUndefined();
          }
        }
      }
    });
  });
}
