// The list body decoded as it arrives: every split of the body into chunks gives the list JSON.parse gives, each
// item handed over as soon as its last byte is in; errors never quote the body.
import { LassoError } from '@lasso/core';
import { describe, expect, it } from 'vitest';
import { ListBodyDecoder, readListBody } from './list-body.ts';

const invalid = (what: string) => new LassoError('LASSO_RESPONSE_INVALID', what);

function decode(chunks: Buffer[], onItem: (item: unknown) => unknown = (item) => item) {
  const decoder = new ListBodyDecoder(onItem, invalid);
  for (const chunk of chunks) decoder.push(chunk);
  return decoder.end();
}

const list = {
  kind: 'ConfigMapList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '42', continue: 'x"]}{[' },
  items: [
    {
      metadata: {
        name: 'a',
        annotations: { tricky: 'quote " bracket ] brace } back \\ slash \\' },
      },
      data: { 'k[': 'v{', unicode: 'é ✓ 😀', nested: '[{"items":[1]}]' },
    },
    {
      metadata: { name: 'b', labels: {} },
      data: { list: '[]' },
      spec: { arr: [[], [{}], { a: [1, 2] }] },
    },
    { metadata: { name: 'c' } },
  ],
  trailing: [1, 2, { items: [] }],
};

describe('ListBodyDecoder', () => {
  it('gives what JSON.parse gives for every split of the body into two and three chunks', () => {
    const body = Buffer.from(JSON.stringify(list, null, 1));
    for (let cut = 0; cut <= body.length; cut++) {
      expect(decode([body.subarray(0, cut), body.subarray(cut)])).toEqual(list);
    }
    for (let cut = 1; cut < body.length; cut += 7) {
      const second = Math.min(body.length, cut + 13);
      expect(
        decode([body.subarray(0, cut), body.subarray(cut, second), body.subarray(second)]),
      ).toEqual(list);
    }
  });

  it('decodes a body one byte at a time', () => {
    const body = Buffer.from(JSON.stringify(list));
    const chunks = Array.from({ length: body.length }, (_, i) => body.subarray(i, i + 1));
    expect(decode(chunks)).toEqual(list);
  });

  it('hands each item to onItem as soon as it is complete and keeps what onItem returns', () => {
    const body = Buffer.from(JSON.stringify(list));
    const seen: string[] = [];
    const decoder = new ListBodyDecoder((item) => {
      const name = (item as { metadata: { name: string } }).metadata.name;
      seen.push(name);
      return { name };
    }, invalid);
    const endOfFirst = body.indexOf('"name":"b"');
    decoder.push(body.subarray(0, endOfFirst));
    expect(seen).toEqual(['a']);
    decoder.push(body.subarray(endOfFirst));
    expect(seen).toEqual(['a', 'b', 'c']);
    expect((decoder.end() as { items: unknown }).items).toEqual([
      { name: 'a' },
      { name: 'b' },
      { name: 'c' },
    ]);
  });

  it('decodes empty, null and absent items as JSON.parse does', () => {
    for (const value of [
      { kind: 'List', items: [] },
      { kind: 'List', items: null },
      { kind: 'List', metadata: {} },
      { kind: 'Status', status: 'Success' },
    ]) {
      expect(decode([Buffer.from(JSON.stringify(value))])).toEqual(value);
    }
  });

  it('refuses a cut-short body, a body that is not JSON and items that are not objects, without quoting it', () => {
    const secret = 'c2VjcmV0';
    const body = JSON.stringify({ kind: 'SecretList', items: [{ data: { token: secret } }] });
    const attempts: Array<[string, RegExp]> = [
      [body.slice(0, body.length - 3), /cut short/],
      [`${body.slice(0, -1)},"x": ${secret}}`, /not JSON/],
      [`{"items":[{"data":{"token":"${secret}"}}, "${secret}"]}`, /not all objects/],
      [`{"items":[{"data":{"token":"${secret}"}}, 12]}`, /not all objects/],
      [`{"items":[{"data":{"token":"${secret}"}} x]}`, /not all objects/],
      [`{"items":[{"data":{"token":${secret}}}]}`, /item that is not JSON/],
    ];
    for (const [text, message] of attempts) {
      let thrown: unknown;
      try {
        decode([Buffer.from(text)]);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(LassoError);
      expect((thrown as Error).message).toMatch(message);
      expect((thrown as Error).message).not.toContain(secret);
    }
  });
});

describe('readListBody', () => {
  const request = { method: 'GET', path: '/api/v1/configmaps' };
  const source = (chunks: Buffer[]) => {
    let destroyed = false;
    return {
      destroyed: () => destroyed,
      body: {
        async *[Symbol.asyncIterator]() {
          yield* chunks;
        },
        destroy: () => {
          destroyed = true;
        },
      },
    };
  };

  it('reads the list, counting each chunk', async () => {
    const body = Buffer.from(JSON.stringify(list));
    const sizes: number[] = [];
    const { body: source1 } = source([body.subarray(0, 10), body.subarray(10)]);
    const decoded = await readListBody(
      source1,
      1 << 20,
      request,
      200,
      (x) => x,
      (n) => sizes.push(n),
    );
    expect(decoded).toEqual(list);
    expect(sizes).toEqual([10, body.length - 10]);
  });

  it('destroys the body past maxResponseBytes and when onItem throws', async () => {
    const body = Buffer.from(JSON.stringify(list));
    const big = source([body]);
    await expect(readListBody(big.body, 10, request, 200, (x) => x)).rejects.toMatchObject({
      code: 'LASSO_RESPONSE_TOO_LARGE',
    });
    expect(big.destroyed()).toBe(true);
    const failing = source([body]);
    const boom = new Error('transform failed');
    await expect(
      readListBody(failing.body, 1 << 20, request, 200, () => {
        throw boom;
      }),
    ).rejects.toMatchObject({ name: 'ItemTransformFailure', cause: boom });
    expect(failing.destroyed()).toBe(true);
  });

  it('returns undefined for an empty body', async () => {
    expect(await readListBody(source([]).body, 10, request, 200, (x) => x)).toBeUndefined();
  });
});
