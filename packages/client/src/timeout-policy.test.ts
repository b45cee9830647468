import type { ServerResponse } from 'node:http';
import { isLassoError } from '@lasso/core';
import { afterEach, describe, expect, it } from 'vitest';
import { EventClock } from '../test/helpers/clock.ts';
import { type Loopback, startLoopback } from '../test/helpers/loopback.ts';
import { Client } from './client.ts';
import { createRestConfig, type RestConfig } from './config/rest-config.ts';
import { RequestTimeoutError, TIMEOUT_POLICY } from './timeout-policy.ts';
import { RestTransport } from './transport.ts';

/**
 * An EventClock that also tells when the code under test read the time: the transport reads it as
 * response bytes arrive (its progress deadline), so a test writes a chunk, waits for the read, then
 * moves time on.
 */
class ReadClock extends EventClock {
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

async function startTrickle(): Promise<Trickle> {
  const arrived: ServerResponse[] = [];
  let wake: (() => void) | undefined;
  const loopback = await startLoopback((_request, response) => {
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

let server: Loopback | undefined;
const transports: RestTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  await server?.close();
  server = undefined;
});

function configMaps(
  loopback: Loopback,
  config: Omit<RestConfig, 'server'>,
  defaultTimeoutMs?: number,
): Client {
  const transport = new RestTransport(createRestConfig({ server: loopback.url, ...config }));
  transports.push(transport);
  return new Client({
    gvr: { group: '', version: 'v1', resource: 'configmaps' },
    kind: 'ConfigMap',
    namespaced: true,
    rest: transport,
    ...(defaultTimeoutMs !== undefined ? { defaultTimeoutMs } : {}),
  });
}

const LIST_HEAD =
  '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[';
const item = (i: number): string =>
  `${i === 0 ? '' : ','}{"metadata":{"name":"cm-${i}","namespace":"d"},"data":{"k":"${'x'.repeat(64)}"}}`;

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
 * Starts a trickle server, sends `call` through a ConfigMap client on it, and returns the pending result with the
 * server's response to that request (nothing written yet).
 */
async function trickled<T>(
  clock: ReadClock,
  call: (client: Client) => Promise<T>,
): Promise<{ result: Promise<T>; response: ServerResponse; loopback: Loopback }> {
  const trickle = await startTrickle();
  server = trickle.loopback;
  const result = call(configMaps(trickle.loopback, { clock }));
  result.catch(noop);
  const response = await trickle.nextResponse();
  return { result, response, loopback: trickle.loopback };
}

/** Answers 200 with the list head, then `count` items one every 5 s, each read by the client before time moves. */
async function trickleList(
  clock: ReadClock,
  response: ServerResponse,
  result: Promise<unknown>,
  count: number,
): Promise<void> {
  response.writeHead(200, { 'content-type': 'application/json' });
  await feed(clock, response, LIST_HEAD, result);
  for (let i = 0; i < count; i++) {
    await clock.advance(5000);
    await feed(clock, response, item(i), result);
  }
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

  it('never cuts a list whose body keeps arriving, past 30 s and past 2 minutes', async () => {
    const clock = new ReadClock();
    const { result, response } = await trickled(clock, (client) => client.list('d'));
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
  ] as const)('never cuts $name whose body keeps arriving past 2 minutes', async ({ kind }) => {
    const clock = new ReadClock();
    const trickle = await startTrickle();
    server = trickle.loopback;
    const client = configMaps(server, { clock });
    const result: Promise<unknown[]> =
      kind === 'asMetadata'
        ? client.list('d', { asMetadata: true }).then((list) => list.items)
        : (async () => {
            const items: unknown[] = [];
            for await (const object of client.listAll('d', { limit: 1 })) items.push(object);
            return items;
          })();
    result.catch(() => {});
    let response = await trickle.nextResponse();
    if (kind === 'listAll') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"c1"},"items":[${item(0)}]}`,
      );
      response = await trickle.nextResponse();
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    await feed(clock, response, LIST_HEAD, result);
    for (let i = 1; i <= 30; i++) {
      await clock.advance(5000);
      await feed(clock, response, item(i).slice(i === 1 ? 1 : 0), result);
    }
    response.end(']}');
    expect(await result).toHaveLength(kind === 'listAll' ? 31 : 30);
    expect(clock.monotonic()).toBeGreaterThan(120_000);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('fails a list that stalls for 30 s with LASSO_TIMEOUT naming the list and the progress deadline', async () => {
    const clock = new ReadClock();
    const { result, response, loopback } = await trickled(clock, (client) => client.list('d'));
    await trickleList(clock, response, result, 3);
    // The last bytes came at 15 s; the deadline counts from them, not from the start.
    const flag = settledFlag(result);
    await clock.advance(29_999);
    expect(flag.settled).toBe(false);
    await clock.advance(15_001);
    const error = await timeoutOf(result);
    expect(error.deadline).toBe('progress');
    expect(error.option).toBe('progressTimeoutMs');
    expect(error.timeoutMs).toBe(30_000);
    expect(error.request).toMatchObject({ verb: 'list', resource: 'configmaps', namespace: 'd' });
    expect(error.message).toBe(
      `${LIST_PATH}: no response bytes for 30000 ms (progress deadline, progressTimeoutMs)`,
    );
    // The connection was closed, no timer is left.
    await loopback.closed[0];
    expect(clock.pendingTimers()).toBe(0);
  });

  it('counts the wait for the headers of a list as no progress', async () => {
    const clock = new ReadClock();
    const { result, loopback } = await trickled(clock, (client) => client.list('d'));
    const flag = settledFlag(result);
    await clock.advance(29_999);
    expect(flag.settled).toBe(false);
    await clock.advance(1);
    const error = await timeoutOf(result);
    expect(error.deadline).toBe('progress');
    expect(error.message).toBe(
      `${LIST_PATH}: no response bytes for 30000 ms (progress deadline, progressTimeoutMs)`,
    );
    await loopback.closed[0];
    expect(clock.pendingTimers()).toBe(0);
  });

  it('still cuts a short call at its total deadline, however its body trickles', async () => {
    const clock = new ReadClock();
    const { result, response, loopback } = await trickled(clock, (client) => client.get('d', 'a'));
    response.writeHead(200, { 'content-type': 'application/json' });
    // No progress deadline here, so nothing reads the clock per chunk: bytes go out every 5 s.
    response.write('{"kind":"ConfigMap"');
    for (let i = 0; i < 5; i++) {
      await clock.advance(5000);
      response.write(' ');
    }
    const flag = settledFlag(result);
    await clock.advance(4999);
    expect(flag.settled).toBe(false);
    await clock.advance(1);
    const error = await timeoutOf(result);
    expect(error.deadline).toBe('request');
    expect(error.option).toBe('timeoutMs');
    expect(error.message).toBe(
      'get configmaps "a" in namespace "d" (GET /api/v1/namespaces/d/configmaps/a): no whole answer within 30000 ms (request deadline, timeoutMs)',
    );
    await loopback.closed[0];
    expect(clock.pendingTimers()).toBe(0);
  });

  it('sets a total deadline on a list when the call asks for one, progressing or not', async () => {
    const clock = new ReadClock();
    const { result, response, loopback } = await trickled(clock, (client) =>
      client.list('d', { timeoutMs: 60_000 }),
    );
    await trickleList(clock, response, result, 11);
    const flag = settledFlag(result);
    await clock.advance(4999);
    expect(flag.settled).toBe(false);
    await clock.advance(1);
    const error = await timeoutOf(result);
    expect(error.deadline).toBe('request');
    expect(error.timeoutMs).toBe(60_000);
    expect(error.message).toBe(
      `${LIST_PATH}: no whole answer within 60000 ms (request deadline, timeoutMs)`,
    );
    await loopback.closed[0];
    expect(clock.pendingTimers()).toBe(0);
  });

  it('takes progressTimeoutMs per call and from the config', async () => {
    const clock = new ReadClock();
    const trickle = await startTrickle();
    server = trickle.loopback;
    const client = configMaps(server, { clock, progressTimeoutMs: 10_000 });
    // Per call.
    const perCall = client.list('d', { progressTimeoutMs: 5000 });
    perCall.catch(() => {});
    await trickle.nextResponse();
    await clock.advance(4999);
    const flag = settledFlag(perCall);
    await clock.advance(0);
    expect(flag.settled).toBe(false);
    await clock.advance(1);
    expect((await timeoutOf(perCall)).timeoutMs).toBe(5000);
    // The config's.
    const configured = client.list('d');
    configured.catch(() => {});
    await trickle.nextResponse();
    await clock.advance(9999);
    const second = settledFlag(configured);
    await clock.advance(0);
    expect(second.settled).toBe(false);
    await clock.advance(1);
    const error = await timeoutOf(configured);
    expect([error.deadline, error.timeoutMs]).toEqual(['progress', 10_000]);
    await Promise.all(server.closed);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('takes timeoutMs per call on a short call', async () => {
    const clock = new ReadClock();
    const trickle = await startTrickle();
    server = trickle.loopback;
    const result = configMaps(server, { clock }).get('d', 'a', { timeoutMs: 2000 });
    result.catch(() => {});
    await trickle.nextResponse();
    await clock.advance(1999);
    const flag = settledFlag(result);
    await clock.advance(0);
    expect(flag.settled).toBe(false);
    await clock.advance(1);
    const error = await timeoutOf(result);
    expect([error.deadline, error.timeoutMs]).toEqual(['request', 2000]);
    await server.closed[0];
    expect(clock.pendingTimers()).toBe(0);
  });

  it("never gives a list the client's defaultTimeoutMs (it is for short calls)", async () => {
    const clock = new ReadClock();
    const trickle = await startTrickle();
    server = trickle.loopback;
    const client = configMaps(server, { clock }, 1000);
    const list = client.list('d');
    list.catch(() => {});
    const response = await trickle.nextResponse();
    response.writeHead(200, { 'content-type': 'application/json' });
    await feed(clock, response, LIST_HEAD, list);
    for (let i = 0; i < 3; i++) {
      await clock.advance(5000);
      await feed(clock, response, item(i), list);
    }
    response.end(']}');
    expect((await list).items).toHaveLength(3);
    const get = client.get('d', 'a');
    get.catch(() => {});
    await trickle.nextResponse();
    await clock.advance(1000);
    const error = await timeoutOf(get);
    expect([error.deadline, error.timeoutMs]).toEqual(['request', 1000]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('runs no timer for a list when progressTimeoutMs is 0, and none for a get with timeoutMs 0', async () => {
    const clock = new ReadClock();
    const trickle = await startTrickle();
    server = trickle.loopback;
    const client = configMaps(server, { clock, progressTimeoutMs: 0 });
    const controller = new AbortController();
    const list = client.list('d', { signal: controller.signal });
    list.catch(() => {});
    const get = client.get('d', 'a', { timeoutMs: 0, signal: controller.signal });
    get.catch(() => {});
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
    const clock = new ReadClock();
    const trickle = await startTrickle();
    server = trickle.loopback;
    const iterator = configMaps(server, { clock })
      .watch('d', { inactivityTimeoutMs: 1000 })
      [Symbol.asyncIterator]();
    const pending = iterator.next();
    pending.catch(() => {});
    const response = await trickle.nextResponse();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.flushHeaders();
    await clock.advance(999);
    const flag = settledFlag(pending);
    await clock.advance(0);
    expect(flag.settled).toBe(false);
    await clock.advance(1);
    const error = await timeoutOf(pending);
    expect(error.deadline).toBe('inactivity');
    expect(error.message).toBe(
      'watch configmaps in namespace "d" (GET /api/v1/namespaces/d/configmaps): no bytes for 1000 ms (inactivity deadline, inactivityTimeoutMs)',
    );
    await server.closed[0];
    expect(clock.pendingTimers()).toBe(0);
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
    server = trickle.loopback;
    const client = configMaps(server, {});
    await expect(client.list('d', { progressTimeoutMs: -5 })).rejects.toThrow(RangeError);
    await expect(client.list('d', { progressTimeoutMs: Number.POSITIVE_INFINITY })).rejects.toThrow(
      /progressTimeoutMs must be a finite number/,
    );
    await expect(client.get('d', 'a', { timeoutMs: -1 })).rejects.toThrow(
      /GET \/api\/v1\/namespaces\/d\/configmaps\/a: timeoutMs must be/,
    );
    expect(server.requests).toHaveLength(0);
  });
});
