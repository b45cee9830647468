// What the built-in server answers to a shardSelector it cannot apply, held to what kube-apiserver 1.36 answers
// with its ShardedListAndWatch gate on. Read at k8s.io/apiserver and k8s.io/apimachinery v0.36.0 to v0.36.3
// (tags kubernetes-1.36.0 to kubernetes-1.36.3; these files are the same in all four):
// - endpoints/handlers/get.go listOpts decodes the parameter as a plain string (apimachinery
//   meta/internalversion zz_generated.conversion.go copies it) and ValidateListOptions never reads it;
// - registry/generic/registry/store.go ListPredicate (list, deletecollection) and Watch (watch, streaming
//   list) parse it with pkg/sharding Parse when it is not "" and return fmt.Errorf("invalid shard selector: %w"),
//   a plain error, before storage (watch cache or etcd3) reads resourceVersion or continue;
// - endpoints/handlers/responsewriters/status.go ErrorToAPIStatus answers a plain error with 500 and reason ""
//   (StatusReasonUnknown), the error's text as message.
// So: 500, no reason, never a 400. The 400 of apimachinery 5fe3cd27 (parsing in the v1 to internal conversion)
// was removed by 175ed01c before v0.36.0-beta.0 and is in no release.
import { formatShardBound } from '@lasso/core/sharding';
import { call, configMap, watch } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, createApiServer } from '../server.ts';

const path = '/api/v1/namespaces/default/configmaps';
const low = '0x0000000000000000';
const half = '0x8000000000000000';
const valid = `shardRange(object.metadata.uid, '${low}', '${half}')`;

// [what, selector, message after "invalid shard selector: "]: each the pkg/sharding parser.go check that refuses it.
const refusals: Array<[string, string, string]> = [
  [
    'another field path',
    `shardRange(object.metadata.name, '${low}', '${half}')`,
    'unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace',
  ],
  [
    'a fieldSelector-style path',
    `shardRange(metadata.uid, '${low}', '${half}')`,
    'unsupported field path "metadata.uid"; supported: object.metadata.uid, object.metadata.namespace',
  ],
  [
    'a bound with too few digits',
    `shardRange(object.metadata.uid, '0x0', '${half}')`,
    'hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)',
  ],
  [
    'a bound with too many digits',
    `shardRange(object.metadata.uid, '${low}', '0x100000000000000000')`,
    'hexEnd: hex value too long (18 chars, max 17): "100000000000000000"',
  ],
  [
    'a 17-digit bound other than 2^64',
    `shardRange(object.metadata.uid, '${low}', '0x20000000000000000')`,
    `hexEnd: 17-digit hex value must be '0x10000000000000000' (2^64), got "0x20000000000000000"`,
  ],
  [
    'a bad hex digit',
    `shardRange(object.metadata.uid, '0x000000000000000g', '${half}')`,
    'hexStart: invalid hex character "g" in "0x000000000000000g"',
  ],
  [
    'an upper-case hex digit',
    `shardRange(object.metadata.uid, '${low}', '0x8000000000000ABC')`,
    'hexEnd: invalid hex character "A" in "0x8000000000000ABC"',
  ],
  [
    'a bound without 0x',
    `shardRange(object.metadata.uid, '0000000000000000', '${half}')`,
    `hexStart must have '0x' prefix, got "0000000000000000"`,
  ],
  [
    'start equal to end',
    `shardRange(object.metadata.uid, '${half}', '${half}')`,
    `shard range start ${half} must be less than end ${half}`,
  ],
  [
    'start above end',
    `shardRange(object.metadata.uid, '${half}', '${low}')`,
    `shard range start ${half} must be less than end ${low}`,
  ],
  [
    'a number for a bound',
    `shardRange(object.metadata.uid, 0, '${half}')`,
    'hexStart must be a string literal, got int64',
  ],
  [
    'another function',
    `hashRange(object.metadata.uid, '${low}', '${half}')`,
    'unsupported function "hashRange"; only shardRange() and || are allowed',
  ],
  [
    '&& instead of ||',
    `${valid} && ${valid}`,
    'unsupported function "_&&_"; only shardRange() and || are allowed',
  ],
  [
    'two arguments',
    `shardRange(object.metadata.uid, '${low}')`,
    'shardRange() requires exactly 3 arguments, got 2',
  ],
  [
    'no call at all',
    'object.metadata.uid',
    'unexpected expression kind 7; expected shardRange() call or || operator',
  ],
  [
    'two keys',
    `${valid} || shardRange(object.metadata.namespace, '${half}', '0x10000000000000000')`,
    'all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"',
  ],
  [
    'only blanks (Parse trims them; the store skips only "")',
    '   ',
    'empty shard selector is not allowed; omit the parameter for unfiltered lists',
  ],
];

/** `count` adjacent one-wide ranges ORed: 75 code points each, 4 more per `||`. */
function ored(count: number): string {
  return Array.from(
    { length: count },
    (_, index) =>
      `shardRange(object.metadata.uid, '${formatShardBound(BigInt(index))}', '${formatShardBound(BigInt(index + 1))}')`,
  ).join(' || ');
}

const servers: ApiServer[] = [];
let on: ApiServer;
let off: ApiServer;

beforeAll(async () => {
  on = createApiServer({ insecureHttp: true });
  off = createApiServer({ insecureHttp: true, shardedListAndWatch: false });
  for (const server of [on, off]) {
    servers.push(server);
    await server.start(new AbortController().signal);
    for (const name of ['a', 'b', 'c', 'd']) {
      const reply = await call(server, 'POST', path, { body: configMap(name) });
      expect(reply.status).toBe(201);
    }
  }
});

afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function shard(selector: string): string {
  return `shardSelector=${encodeURIComponent(selector)}`;
}

function expectRefusal(reply: { status: number; body: any }, message: string): void {
  expect(reply.status).toBe(500);
  expect(reply.body).toEqual({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `invalid shard selector: ${message}`,
    code: 500,
  });
}

describe('a shardSelector the server cannot apply (kube-apiserver 1.36, gate on)', () => {
  it.each(refusals)(
    'fails %s with 500 and no reason on list, watch, streaming list and deletecollection',
    async (_what, selector, message) => {
      const query = shard(selector);
      expectRefusal(await call(on, 'GET', `${path}?${query}`), message);
      expectRefusal(await call(on, 'GET', `${path}?watch=1&${query}`), message);
      expectRefusal(
        await call(
          on,
          'GET',
          `${path}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&${query}`,
        ),
        message,
      );
      expectRefusal(await call(on, 'DELETE', `${path}?${query}`), message);
      // Nothing was deleted.
      expect((await call(on, 'GET', path)).body.items).toHaveLength(4);
    },
  );

  it('ignores an empty parameter (the store parses only a non-empty one): everything, no shardInfo', async () => {
    const reply = await call(on, 'GET', `${path}?shardSelector=`);
    expect(reply.status).toBe(200);
    expect(reply.body.items).toHaveLength(4);
    expect(reply.body.metadata.shardInfo).toBeUndefined();
  });

  it('takes as many ranges as fit in 100,000 code points (cel-go v0.26.0 parser limit) and refuses one more', async () => {
    // 1,265 ranges: 99,931 code points, a request line of about 120 KB (kube serves headers up to 1 MiB).
    const most = ored(1_265);
    const accepted = await call(on, 'GET', `${path}?${shard(most)}`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.metadata.shardInfo).toEqual({ selector: most });
    const refused = await call(on, 'GET', `${path}?watch=1&${shard(ored(1_266))}`);
    expectRefusal(
      refused,
      'CEL parse error: expression code point size exceeds limit: size: 100010, limit 100000',
    );
  });

  it('answers what the request path checks earlier before the shard selector', async () => {
    const bad = shard(`shardRange(object.metadata.name, '${low}', '${half}')`);
    // Decoding the parameters (get.go listOpts: DecodeParameters, then field label conversion): 400.
    expect((await call(on, 'GET', `${path}?labelSelector=a%20b&${bad}`)).status).toBe(400);
    expect((await call(on, 'GET', `${path}?fieldSelector=spec.x%3Dy&${bad}`)).status).toBe(400);
    expect((await call(on, 'GET', `${path}?limit=ten&${bad}`)).status).toBe(400);
    expect((await call(on, 'GET', `${path}?watch=1&timeoutSeconds=ten&${bad}`)).status).toBe(400);
    // ValidateListOptions: 422.
    expect((await call(on, 'GET', `${path}?resourceVersionMatch=Exact&${bad}`)).status).toBe(422);
    // What storage reads (resourceVersion, continue) comes after the store's parse: the shard's 500 wins.
    const message =
      'unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace';
    expectRefusal(await call(on, 'GET', `${path}?watch=1&resourceVersion=abc&${bad}`), message);
    expectRefusal(await call(on, 'GET', `${path}?continue=garbage&${bad}`), message);
  });
});

describe('a shardSelector with the gate off (shardedListAndWatch: false)', () => {
  it.each(refusals)('ignores %s: everything, no shardInfo', async (_what, selector) => {
    const reply = await call(off, 'GET', `${path}?${shard(selector)}`);
    expect(reply.status).toBe(200);
    expect(reply.body.items).toHaveLength(4);
    expect(reply.body.metadata.shardInfo).toBeUndefined();
  });

  it('starts a watch whatever the selector', async () => {
    const stream = await watch(off, `${path}?watch=1&${shard(ored(1_266))}`);
    try {
      expect(stream.status).toBe(200);
    } finally {
      stream.close();
    }
  });
});
