// The minimum-throughput floor against a slowloris server: a loopback node:http server that drips a list body or a
// watch event a few bytes at a time, on a FakeClock that tells when the client read the time (it does as bytes
// arrive), so each drip is read before time moves.
import type { ServerResponse } from 'node:http';
import { isLassoError } from '@lasso/core';
import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { type TestConfig, useClients } from '../test/helpers/clients.ts';
import type { Loopback } from '../test/helpers/loopback.ts';
import type { Client } from './client.ts';
import { MIN_RESPONSE_BYTES_PER_SECOND, SlowResponseError } from './throughput-floor.ts';
import type { KubeObject, WatchEvent } from './types.ts';

/** A FakeClock counting reads of the time, so a test can wait until the client handled a chunk. */
class ReadClock extends FakeClock {
  reads = 0;
  #waiters: Array<{ count: number; wake: () => void }> = [];

  override monotonic(): number {
    this.reads++;
    const ready = this.#waiters.filter((waiter) => this.reads >= waiter.count);
    this.#waiters = this.#waiters.filter((waiter) => this.reads < waiter.count);
    for (const waiter of ready) waiter.wake();
    return super.monotonic();
  }

  /** Resolves once the time was read `count` times in all (bounded by the test timeout). */
  untilReads(count: number): Promise<void> {
    if (this.reads >= count) return Promise.resolve();
    return new Promise<void>((wake) => this.#waiters.push({ count, wake }));
  }
}

const { serve, client } = useClients();
const noop = (): void => {};

interface Slowloris {
  clock: ReadClock;
  server: Loopback;
  client: Client;
  /** The response of the next request the server received (nothing written yet). */
  nextResponse(): Promise<ServerResponse>;
}

async function slowloris(config: TestConfig = {}): Promise<Slowloris> {
  const clock = new ReadClock();
  const arrived: ServerResponse[] = [];
  let wake: (() => void) | undefined;
  const server = await serve((_request, response) => {
    arrived.push(response);
    wake?.();
  });
  return {
    clock,
    server,
    client: client(server, { config: { clock, ...config } }),
    async nextResponse() {
      while (arrived.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return arrived.shift() as ServerResponse;
    },
  };
}

/** Write `text`, then wait until the client read the clock (it received the bytes) or `request` settled. */
async function drip(
  clock: ReadClock,
  response: ServerResponse,
  text: string,
  request: Promise<unknown>,
): Promise<void> {
  const before = clock.reads;
  response.write(text);
  await Promise.race([clock.untilReads(before + 1), request.then(noop, noop)]);
}

function settledFlag(promise: Promise<unknown>): { readonly settled: boolean } {
  const flag = { settled: false };
  promise.then(
    () => (flag.settled = true),
    () => (flag.settled = true),
  );
  return flag;
}

/** Moves the clock `before` ms checking `result` still pends, then 1 ms more: the SlowResponseError it failed with. */
async function tooSlowAfter(
  clock: ReadClock,
  result: Promise<unknown>,
  before: number,
): Promise<SlowResponseError> {
  const flag = settledFlag(result);
  await clock.advance(before);
  await clock.advance(0);
  expect(flag.settled).toBe(false);
  await clock.advance(1);
  const error = await result.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SlowResponseError);
  expect(isLassoError(error, 'LASSO_RESPONSE_TOO_SLOW')).toBe(true);
  return error as SlowResponseError;
}

async function closedClean(server: Loopback, clock: ReadClock): Promise<void> {
  await Promise.all(server.closed);
  expect(clock.pendingTimers()).toBe(0);
}

const LIST_HEAD =
  '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[';
const LIST = 'list configmaps in namespace "d" (GET /api/v1/namespaces/d/configmaps)';
const WATCH = 'watch configmaps in namespace "d" (GET /api/v1/namespaces/d/configmaps)';
/** 60 bytes of JSON whitespace: what a slowloris list drips. */
const SPACES = ' '.repeat(60);

/** Answers 200 with the list head at the current time, then drips 60 bytes every `everyMs`, `count` times. */
async function dripList(
  clock: ReadClock,
  response: ServerResponse,
  result: Promise<unknown>,
  count: number,
  everyMs: number,
): Promise<void> {
  response.writeHead(200, { 'content-type': 'application/json' });
  await drip(clock, response, LIST_HEAD, result);
  for (let i = 0; i < count; i++) {
    await clock.advance(everyMs);
    await drip(clock, response, SPACES, result);
  }
}

describe('the throughput floor of a list', () => {
  it('is 1 KiB/s', () => {
    expect(MIN_RESPONSE_BYTES_PER_SECOND).toBe(1024);
  });

  it('fails a list dripping 60 bytes every 5 s after one 30 s window, naming the list, bytes and time', async () => {
    const { clock, server, client, nextResponse } = await slowloris();
    const result = client.list('d');
    result.catch(noop);
    const response = await nextResponse();
    // 60 bytes every 5 s: the 30 s progress deadline (no bytes for 30 s) never passes.
    await dripList(clock, response, result, 5, 5000);
    const error = await tooSlowAfter(clock, result, 4999);
    const bytes = LIST_HEAD.length + 5 * 60;
    expect(error.request).toMatchObject({ verb: 'list', resource: 'configmaps', namespace: 'd' });
    expect(error).toMatchObject({
      part: 'body',
      receivedBytes: bytes,
      elapsedMs: 30_000,
      windowBytes: bytes,
      windowMs: 30_000,
      minBytes: 30_720,
    });
    expect(error.message).toBe(
      `${LIST}: too little progress: the response body brought ${bytes} bytes in 30000 ms, under the floor of 30720 (1024 bytes/s over a window of progressTimeoutMs); ${bytes} bytes received in 30000 ms since the request was sent; the connection was closed`,
    );
    await closedClean(server, clock);
  });

  it("takes its window from progressTimeoutMs: the cache's 2 minutes", async () => {
    const { clock, server, client, nextResponse } = await slowloris();
    const result = client.list('d', { progressTimeoutMs: 120_000 });
    result.catch(noop);
    const response = await nextResponse();
    await dripList(clock, response, result, 11, 10_000);
    const error = await tooSlowAfter(clock, result, 9999);
    expect([error.windowMs, error.minBytes, error.elapsedMs]).toEqual([120_000, 122_880, 120_000]);
    await closedClean(server, clock);
  });

  it('judges each window on its own: enough in the first, too little in the second', async () => {
    const { clock, server, client, nextResponse } = await slowloris();
    const result = client.list('d');
    result.catch(noop);
    const response = await nextResponse();
    response.writeHead(200, { 'content-type': 'application/json' });
    await drip(clock, response, LIST_HEAD + ' '.repeat(31 * 1024), result);
    await clock.advance(25_000);
    await drip(clock, response, SPACES, result);
    await clock.advance(25_000);
    await drip(clock, response, SPACES, result);
    // The first window (to 30 s) had 31 KiB and 60 bytes; the second (to 60 s) 60 bytes.
    const error = await tooSlowAfter(clock, result, 9999);
    expect([error.windowBytes, error.elapsedMs]).toEqual([60, 60_000]);
    expect(error.receivedBytes).toBe(LIST_HEAD.length + 31 * 1024 + 120);
    await closedClean(server, clock);
  });

  it('lets a small body that drips but ends within its window through', async () => {
    const { clock, client, nextResponse } = await slowloris();
    const result = client.list('d');
    const response = await nextResponse();
    await dripList(clock, response, result, 5, 5000);
    response.end(']}');
    expect((await result).items).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('runs no floor when progressTimeoutMs is 0', async () => {
    const { clock, client, nextResponse } = await slowloris({ progressTimeoutMs: 0 });
    const result = client.list('d');
    const response = await nextResponse();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write(LIST_HEAD);
    // Without a deadline nothing reads the clock per chunk: the drips just go out, 60 bytes every 30 s.
    for (let i = 0; i < 20; i++) {
      await clock.advance(30_000);
      response.write(SPACES);
      expect(clock.pendingTimers()).toBe(0);
    }
    response.end(']}');
    expect((await result).items).toEqual([]);
  });
});

type Events = AsyncIterator<WatchEvent<KubeObject>>;

/** A watch on a new slowloris server (no inactivity deadline: the reflector's way) and its response, headers sent. */
async function slowWatch(): Promise<{
  clock: ReadClock;
  server: Loopback;
  events: Events;
  first: Promise<IteratorResult<WatchEvent<KubeObject>>>;
  response: ServerResponse;
}> {
  const { clock, server, client, nextResponse } = await slowloris();
  const events = client
    .watch('d', { inactivityTimeoutMs: 0, allowWatchBookmarks: true })
    [Symbol.asyncIterator]();
  const first = events.next();
  first.catch(noop);
  const response = await nextResponse();
  response.writeHead(200, { 'content-type': 'application/json' });
  response.flushHeaders();
  return { clock, server, events, first, response };
}

const line = (type: string, name: string, rv: string, pad = 0): string =>
  `${JSON.stringify({ type, object: { metadata: { name, resourceVersion: rv }, data: { k: 'x'.repeat(pad) } } })}\n`;

describe('the throughput floor of a watch', () => {
  it('never cuts an idle watch: whole bookmarks now and then, no timer between them', async () => {
    const { clock, events, first, response } = await slowWatch();
    let next = first;
    for (let i = 1; i <= 15; i++) {
      response.write(line('BOOKMARK', '', String(i)));
      expect((await next).value?.type).toBe('BOOKMARK');
      expect(clock.pendingTimers()).toBe(0);
      next = events.next();
      await clock.advance(60_000);
    }
    response.write(line('ADDED', 'a', '16'));
    expect((await next).value?.object.metadata?.name).toBe('a');
    await events.return?.();
  });

  it('fails an event dripping in 20 bytes every 5 s, 30 s after its first byte', async () => {
    const { clock, server, first, response } = await slowWatch();
    await clock.advance(100_000);
    const start = '{"type":"ADDED","object":{"metadata":{"name":"a"},"data":{"k":"';
    await drip(clock, response, start, first);
    for (let i = 0; i < 5; i++) {
      await clock.advance(5000);
      await drip(clock, response, 'x'.repeat(20), first);
    }
    const error = await tooSlowAfter(clock, first, 4999);
    const bytes = start.length + 100;
    expect(error.request).toMatchObject({ verb: 'watch', resource: 'configmaps', namespace: 'd' });
    expect(error).toMatchObject({ part: 'watch event', windowMs: 30_000, minBytes: 30_720 });
    // The window began with the event's first chunk, which counts.
    expect(error.windowBytes).toBe(bytes);
    expect([error.receivedBytes, error.elapsedMs]).toEqual([bytes, 130_000]);
    expect(error.message).toBe(
      `${WATCH}: too little progress: a watch event still incomplete brought ${bytes} bytes in 30000 ms, under the floor of 30720 (1024 bytes/s over a 30 s window); ${bytes} bytes received in 130000 ms since the request was sent; the connection was closed`,
    );
    await closedClean(server, clock);
  });

  it('lets a big event arriving above the floor through, however many windows it takes', async () => {
    const { clock, events, first, response } = await slowWatch();
    const whole = line('ADDED', 'big', '2', 100_000);
    // 8 KiB every 5 s: 48 KiB per 30 s window, about 65 s for the event.
    for (let from = 0; from < whole.length; from += 8192) {
      await drip(clock, response, whole.slice(from, from + 8192), first);
      if (from + 8192 < whole.length) await clock.advance(5000);
    }
    const { value } = await first;
    expect(value?.object.metadata?.name).toBe('big');
    expect(clock.monotonic()).toBeGreaterThanOrEqual(60_000);
    await events.return?.();
  });

  it('does not count the time the consumer holds events, with an event begun in the same chunk', async () => {
    const { clock, events, first, response } = await slowWatch();
    const next = line('ADDED', 'b', '3');
    await drip(clock, response, line('ADDED', 'a', '2') + next.slice(0, 10), first);
    expect((await first).value?.object.metadata?.name).toBe('a');
    // The consumer holds event a for 5 minutes: no bytes can be read meanwhile.
    await clock.advance(300_000);
    const second = events.next();
    await drip(clock, response, next.slice(10), second);
    expect((await second).value?.object.metadata?.name).toBe('b');
    await events.return?.();
    expect(clock.pendingTimers()).toBe(0);
  });
});
