import type { ServerResponse } from 'node:http';
import { isLassoError } from '@lasso/core';
import { FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { type TestClientOptions, type TestConfig, useClients } from '../test/helpers/clients.ts';
import type { Loopback } from '../test/helpers/loopback.ts';
import type { Client } from './client.ts';
import { createRestConfig } from './config/rest-config.ts';
import { RequestTimeoutError, TIMEOUT_POLICY } from './timeout-policy.ts';
import { RestTransport } from './transport.ts';

/**
 * A FakeClock that also tells when the code under test read the time: the transport reads it as
 * response bytes arrive (its progress deadline), so a test writes a chunk, waits for the read, then
 * moves time on.
 */
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

/** A loopback server handing each request's response to the test, which writes it when it likes. */
interface Trickle {
  loopback: Loopback;
  /** The response of the next request the server received. */
  nextResponse(): Promise<ServerResponse>;
}

const { serve, client } = useClients();

async function startTrickle(): Promise<Trickle> {
  const arrived: ServerResponse[] = [];
  let wake: (() => void) | undefined;
  const loopback = await serve((_request, response) => {
    arrived.push(response);
    wake?.();
  });
  return {
    loopback,
    async nextResponse() {
      while (arrived.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return arrived.shift() as ServerResponse;
    },
  };
}

/** Lets `result` fail unobserved; resolves with the server's response to its request (nothing written yet). */
function sent(trickle: Trickle, result: Promise<unknown>): Promise<ServerResponse> {
  result.catch(noop);
  return trickle.nextResponse();
}

/** A ConfigMap client with a new ReadClock (and `config`) on a new trickle server. */
async function trickleClient(
  config: TestConfig = {},
  options: TestClientOptions = {},
): Promise<{ clock: ReadClock; trickle: Trickle; server: Loopback; client: Client }> {
  const clock = new ReadClock();
  const trickle = await startTrickle();
  const server = trickle.loopback;
  return {
    clock,
    trickle,
    server,
    client: client(server, { config: { clock, ...config }, ...options }),
  };
}

const LIST_HEAD =
  '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[';
/**
 * One ConfigMap of about 12 KiB: a list trickling one every 5 s brings 60 KiB per 30 s window, above the
 * throughput floor (MIN_RESPONSE_BYTES_PER_SECOND, 30 KiB per 30 s), so only the deadlines here apply.
 */
const item = (i: number, first = i === 0): string =>
  `${first ? '' : ','}{"metadata":{"name":"cm-${i}","namespace":"d"},"data":{"k":"${'x'.repeat(12 * 1024)}"}}`;

/**
 * Write `text` and wait until the client has read the clock since (it received bytes), or until
 * `request` settled (a deadline cut it: the test then fails on its outcome, not on a hang).
 */
async function feed(
  clock: ReadClock,
  response: ServerResponse,
  text: string,
  request: Promise<unknown>,
): Promise<void> {
  const before = clock.reads;
  response.write(text);
  await Promise.race([clock.untilReads(before + 1), request.then(noop, noop)]);
}

const noop = (): void => {};

/** Whether `promise` settled yet (after the pending turns ran). */
function settledFlag(promise: Promise<unknown>): { readonly settled: boolean } {
  const flag = { settled: false };
  promise.then(
    () => (flag.settled = true),
    () => (flag.settled = true),
  );
  return flag;
}

async function timeoutOf(promise: Promise<unknown>): Promise<RequestTimeoutError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RequestTimeoutError);
  expect(isLassoError(error, 'LASSO_TIMEOUT')).toBe(true);
  return error as RequestTimeoutError;
}

const LIST_PATH = 'list configmaps in namespace "d" (GET /api/v1/namespaces/d/configmaps)';

/**
 * Starts a trickle server, sends `call` through a ConfigMap client on it (with a new ReadClock), and returns the
 * pending result with the server's response to that request (nothing written yet).
 */
async function trickled<T>(
  call: (client: Client) => Promise<T>,
): Promise<{ clock: ReadClock; result: Promise<T>; response: ServerResponse; loopback: Loopback }> {
  const { clock, trickle, server, client } = await trickleClient();
  const result = call(client);
  result.catch(noop);
  const response = await trickle.nextResponse();
  return { clock, result, response, loopback: server };
}

/**
 * Answers 200 with the list head, then `count` items (`item(from)` on) one every 5 s, each read by the client
 * before time moves.
 */
async function trickleList(
  clock: ReadClock,
  response: ServerResponse,
  result: Promise<unknown>,
  count: number,
  from = 0,
): Promise<void> {
  response.writeHead(200, { 'content-type': 'application/json' });
  await feed(clock, response, LIST_HEAD, result);
  for (let i = from; i < from + count; i++) {
    await clock.advance(5000);
    await feed(clock, response, item(i, i === from), result);
  }
}

/**
 * Moves the clock `before` ms and checks that `result` still pends, then `after` ms more: returns the
 * RequestTimeoutError `result` then failed with.
 */
async function cutAfter(
  clock: ReadClock,
  result: Promise<unknown>,
  before: number,
  after = 1,
): Promise<RequestTimeoutError> {
  const flag = settledFlag(result);
  await clock.advance(before);
  await clock.advance(0);
  expect(flag.settled).toBe(false);
  await clock.advance(after);
  return timeoutOf(result);
}

/** Checks that the client closed the connection of every request `server` saw and left no timer. */
async function closedClean(server: Loopback, clock: ReadClock): Promise<void> {
  await Promise.all(server.closed);
  expect(clock.pendingTimers()).toBe(0);
}

describe('the request-timeout policy', () => {
  it('is one table: short calls a total deadline, lists progress, watches inactivity', () => {
    expect(
      Object.fromEntries(
        Object.entries(TIMEOUT_POLICY).map(([kind, rule]) => [
          kind,
          [rule.deadline, rule.option, rule.defaultMs],
        ]),
      ),
    ).toEqual({
      short: ['request', 'timeoutMs', 30_000],
      list: ['progress', 'progressTimeoutMs', 30_000],
      watch: ['inactivity', 'inactivityTimeoutMs', undefined],
    });
  });

  it('never cuts a list whose body keeps arriving above the throughput floor, past 30 s and past 2 minutes', async () => {
    const { clock, result, response } = await trickled((client) => client.list('d'));
    // 40 objects, one every 5 s: 200 s in all, far past the 30 s of a short call.
    await trickleList(clock, response, result, 40);
    await clock.advance(5000);
    response.end(']}');
    const list = await result;
    expect(list.items).toHaveLength(40);
    expect(list.items[39]?.metadata?.name).toBe('cm-39');
    expect(clock.monotonic()).toBeGreaterThanOrEqual(205_000);
    expect(clock.pendingTimers()).toBe(0);
  });

  it.for([
    { name: 'a metadata list', kind: 'asMetadata' },
    { name: 'the second page of listAll', kind: 'listAll' },
  ] as const)(
    'never cuts $name whose body keeps arriving above the floor past 2 minutes',
    async ({ kind }) => {
      const { clock, trickle, client } = await trickleClient();
      const result: Promise<unknown[]> =
        kind === 'asMetadata'
          ? client.list('d', { asMetadata: true }).then((list) => list.items)
          : (async () => {
              const items: unknown[] = [];
              for await (const object of client.listAll('d', { limit: 1 })) items.push(object);
              return items;
            })();
      result.catch(noop);
      let response = await trickle.nextResponse();
      if (kind === 'listAll') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"c1"},"items":[${item(0)}]}`,
        );
        response = await trickle.nextResponse();
      }
      await trickleList(clock, response, result, 30, 1);
      response.end(']}');
      expect(await result).toHaveLength(kind === 'listAll' ? 31 : 30);
      expect(clock.monotonic()).toBeGreaterThan(120_000);
      expect(clock.pendingTimers()).toBe(0);
    },
  );

  it('fails a list that stalls for 30 s with LASSO_TIMEOUT naming the list and the progress deadline', async () => {
    const { clock, result, response, loopback } = await trickled((client) => client.list('d'));
    await trickleList(clock, response, result, 3);
    // The last bytes came at 15 s; the deadline counts from them, not from the start.
    const error = await cutAfter(clock, result, 29_999, 15_001);
    expect(error.deadline).toBe('progress');
    expect(error.option).toBe('progressTimeoutMs');
    expect(error.timeoutMs).toBe(30_000);
    expect(error.request).toMatchObject({ verb: 'list', resource: 'configmaps', namespace: 'd' });
    expect(error.message).toBe(
      `${LIST_PATH}: no response bytes for 30000 ms (progress deadline, progressTimeoutMs)`,
    );
    // The connection was closed, no timer is left.
    await closedClean(loopback, clock);
  });

  it('counts the wait for the headers of a list as no progress', async () => {
    const { clock, result, loopback } = await trickled((client) => client.list('d'));
    const error = await cutAfter(clock, result, 29_999);
    expect(error.deadline).toBe('progress');
    expect(error.message).toBe(
      `${LIST_PATH}: no response bytes for 30000 ms (progress deadline, progressTimeoutMs)`,
    );
    // Built once, when the deadline passed: not a copy wrapping the signal's reason as its cause.
    expect(error.cause).toBeUndefined();
    await closedClean(loopback, clock);
  });

  it('still cuts a short call at its total deadline, however its body trickles', async () => {
    const { clock, result, response, loopback } = await trickled((client) => client.get('d', 'a'));
    response.writeHead(200, { 'content-type': 'application/json' });
    // No progress deadline here, so nothing reads the clock per chunk: bytes go out every 5 s.
    response.write('{"kind":"ConfigMap"');
    for (let i = 0; i < 5; i++) {
      await clock.advance(5000);
      response.write(' ');
    }
    const error = await cutAfter(clock, result, 4999);
    expect(error.deadline).toBe('request');
    expect(error.option).toBe('timeoutMs');
    expect(error.message).toBe(
      'get configmaps "a" in namespace "d" (GET /api/v1/namespaces/d/configmaps/a): no whole answer within 30000 ms (request deadline, timeoutMs)',
    );
    await closedClean(loopback, clock);
  });

  it('sets a total deadline on a list when the call asks for one, progressing or not', async () => {
    const { clock, result, response, loopback } = await trickled((client) =>
      client.list('d', { timeoutMs: 60_000 }),
    );
    await trickleList(clock, response, result, 11);
    const error = await cutAfter(clock, result, 4999);
    expect(error.deadline).toBe('request');
    expect(error.timeoutMs).toBe(60_000);
    expect(error.message).toBe(
      `${LIST_PATH}: no whole answer within 60000 ms (request deadline, timeoutMs)`,
    );
    await closedClean(loopback, clock);
  });

  it('takes progressTimeoutMs per call and from the config', async () => {
    const { clock, trickle, server, client } = await trickleClient({ progressTimeoutMs: 10_000 });
    // Per call.
    const perCall = client.list('d', { progressTimeoutMs: 5000 });
    await sent(trickle, perCall);
    expect((await cutAfter(clock, perCall, 4999)).timeoutMs).toBe(5000);
    // The config's.
    const configured = client.list('d');
    await sent(trickle, configured);
    const error = await cutAfter(clock, configured, 9999);
    expect([error.deadline, error.timeoutMs]).toEqual(['progress', 10_000]);
    await closedClean(server, clock);
  });

  it('takes timeoutMs per call on a short call', async () => {
    const { clock, trickle, server, client } = await trickleClient();
    const result = client.get('d', 'a', { timeoutMs: 2000 });
    await sent(trickle, result);
    const error = await cutAfter(clock, result, 1999);
    expect([error.deadline, error.timeoutMs]).toEqual(['request', 2000]);
    await closedClean(server, clock);
  });

  it("never gives a list the client's defaultTimeoutMs (it is for short calls)", async () => {
    const { clock, trickle, client } = await trickleClient({}, { defaultTimeoutMs: 1000 });
    const list = client.list('d');
    const response = await sent(trickle, list);
    await trickleList(clock, response, list, 3);
    response.end(']}');
    expect((await list).items).toHaveLength(3);
    const get = client.get('d', 'a');
    await sent(trickle, get);
    await clock.advance(1000);
    const error = await timeoutOf(get);
    expect([error.deadline, error.timeoutMs]).toEqual(['request', 1000]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('runs no timer for a list when progressTimeoutMs is 0, and none for a get with timeoutMs 0', async () => {
    const { clock, trickle, server, client } = await trickleClient({ progressTimeoutMs: 0 });
    const controller = new AbortController();
    const list = client.list('d', { signal: controller.signal });
    list.catch(noop);
    const get = client.get('d', 'a', { timeoutMs: 0, signal: controller.signal });
    get.catch(noop);
    await trickle.nextResponse();
    await trickle.nextResponse();
    expect(clock.pendingTimers()).toBe(0);
    await clock.advance(3_600_000);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(list).rejects.toBe(reason);
    await expect(get).rejects.toBe(reason);
    await Promise.all(server.closed);
  });

  it('names the watch and its inactivity deadline when a watch goes silent', async () => {
    const { clock, trickle, server, client } = await trickleClient();
    const iterator = client.watch('d', { inactivityTimeoutMs: 1000 })[Symbol.asyncIterator]();
    const pending = iterator.next();
    const response = await sent(trickle, pending);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.flushHeaders();
    const error = await cutAfter(clock, pending, 999);
    expect(error.deadline).toBe('inactivity');
    expect(error.message).toBe(
      'watch configmaps in namespace "d" (GET /api/v1/namespaces/d/configmaps): no bytes for 1000 ms (inactivity deadline, inactivityTimeoutMs)',
    );
    await closedClean(server, clock);
  });

  it.for([
    { name: 'config progressTimeoutMs', option: 'progressTimeoutMs', value: -1 },
    { name: 'config timeoutMs', option: 'timeoutMs', value: Number.NaN },
  ])('refuses a bad $name with a RangeError naming it', ({ option, value }) => {
    expect(() => createRestConfig({ server: 'https://x', [option]: value })).toThrow(
      new RegExp(`${option} must be`),
    );
    expect(() => new RestTransport({ server: 'https://x', [option]: value })).toThrow(RangeError);
    expect(() => new RestTransport({ server: 'https://x', [option]: value })).toThrow(
      new RegExp(`config\\.${option} must be`),
    );
  });

  it('refuses a bad per-call timeout with a RangeError naming it, before sending', async () => {
    const trickle = await startTrickle();
    const server = trickle.loopback;
    const configMaps = client(server);
    await expect(configMaps.list('d', { progressTimeoutMs: -5 })).rejects.toThrow(RangeError);
    await expect(
      configMaps.list('d', { progressTimeoutMs: Number.POSITIVE_INFINITY }),
    ).rejects.toThrow(
      new RangeError(
        'RestTransport: GET /api/v1/namespaces/d/configmaps: progressTimeoutMs must be a finite number of ms >= 0 (0: none), got Infinity',
      ),
    );
    await expect(configMaps.get('d', 'a', { timeoutMs: -1 })).rejects.toThrow(
      new RangeError(
        'RestTransport: GET /api/v1/namespaces/d/configmaps/a: timeoutMs must be a finite number of ms >= 0 (0: none), got -1',
      ),
    );
    expect(server.requests).toHaveLength(0);
  });
});
