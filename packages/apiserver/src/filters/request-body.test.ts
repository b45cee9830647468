import { describe, expect, it } from 'vitest';
import { StatusError } from '../apimachinery/status.ts';
import { fakeExchange, recordingNext } from './__fixtures__/exchange.ts';
import { maxRequestBodyBytes, withRequestBody } from './request-body.ts';

describe('withRequestBody', () => {
  it('reads the whole body into the exchange before going on', async () => {
    const next = recordingNext();
    const { exchange } = fakeExchange({ chunks: [Buffer.from('{"a":'), Buffer.from('1}')] });
    await withRequestBody()(next)(exchange);
    expect(exchange.body.toString()).toBe('{"a":1}');
    expect(next.calls).toEqual([exchange]);
  });

  it("refuses a declared Content-Length over the limit with kube's 413, before reading", async () => {
    const next = recordingNext();
    const { exchange } = fakeExchange({
      headers: { 'Content-Length': '11' },
      chunks: [Buffer.from('x')],
    });
    const error = await withRequestBody(10)(next)(exchange).catch((thrown: unknown) => thrown);
    expect((error as StatusError).status).toMatchObject({
      code: 413,
      reason: 'RequestEntityTooLarge',
    });
    expect(exchange.body.length).toBe(0);
    expect(next.calls).toEqual([]);
  });

  it('refuses a body that grows past the limit without declaring it', async () => {
    const next = recordingNext();
    const { exchange } = fakeExchange({ chunks: [Buffer.alloc(6), Buffer.alloc(5)] });
    await expect(withRequestBody(10)(next)(exchange)).rejects.toBeInstanceOf(StatusError);
    expect(next.calls).toEqual([]);
  });

  it("defaults to kube-apiserver's 3 MiB", () => {
    expect(maxRequestBodyBytes).toBe(3 * 1024 * 1024);
  });
});
