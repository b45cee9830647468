// The batch view of a watch (Client.watchBatches): the events of each body chunk at once, in order, with the
// event view's errors and their order.
import type { ServerResponse } from 'node:http';
import { isLassoError } from '@lasso/core';
import { describe, expect, it } from 'vitest';
import { useClients } from '../test/helpers/clients.ts';
import { type Loopback, status } from '../test/helpers/loopback.ts';
import type { Client } from './client.ts';
import { isGone } from './errors.ts';
import type { KubeObject, WatchEvent } from './types.ts';

const { serve, client: configMaps } = useClients();

const event = (type: string, name: string, rv: string): string =>
  `${JSON.stringify({ type, object: { metadata: { name, resourceVersion: rv } } })}\n`;

type Batches = AsyncIterator<WatchEvent<KubeObject>[]>;

function batchesOf(client: Client): Batches {
  return client.watchBatches('d')[Symbol.asyncIterator]();
}

const names = (batch: WatchEvent<KubeObject>[]): Array<string | undefined> =>
  batch.map((e) => e.object.metadata?.name);

/** A loopback watch whose body the test writes; `response` resolves once the request arrived. */
async function manualWatch(): Promise<{ response: Promise<ServerResponse>; server: Loopback }> {
  let answer: (response: ServerResponse) => void = () => undefined;
  const response = new Promise<ServerResponse>((resolve) => {
    answer = resolve;
  });
  const server = await serve((_request, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
    answer(res);
  });
  return { response, server };
}

describe('watch batch view', () => {
  it('yields every event of one chunk in one batch, in order, with kind and apiVersion filled', async () => {
    const { response, server } = await manualWatch();
    const batches = batchesOf(configMaps(server));
    const first = batches.next();
    (await response).write(
      event('ADDED', 'a', '1') + event('MODIFIED', 'a', '2') + event('ADDED', 'b', '3'),
    );
    const { value } = await first;
    expect(names(value as WatchEvent<KubeObject>[])).toEqual(['a', 'a', 'b']);
    expect((value as WatchEvent<KubeObject>[]).map((e) => e.type)).toEqual([
      'ADDED',
      'MODIFIED',
      'ADDED',
    ]);
    expect((value as WatchEvent<KubeObject>[])[0]?.object.kind).toBe('ConfigMap');
    await batches.return?.();
  });

  it('puts an event cut by a chunk boundary in the batch of the chunk that completes it', async () => {
    const { response, server } = await manualWatch();
    const batches = batchesOf(configMaps(server));
    const first = batches.next(); // the request is made by the first next()
    const body = await response;
    const cut = event('MODIFIED', 'c', '3');
    body.write(event('ADDED', 'a', '1') + event('ADDED', 'b', '2') + cut.slice(0, 20));
    expect(names((await first).value as WatchEvent<KubeObject>[])).toEqual(['a', 'b']);
    body.write(cut.slice(20) + event('MODIFIED', 'a', '4'));
    expect(names((await batches.next()).value as WatchEvent<KubeObject>[])).toEqual(['c', 'a']);
    body.end();
    expect((await batches.next()).done).toBe(true);
  });

  it('yields the events before a malformed line, then throws LASSO_WATCH_DECODE', async () => {
    const { response, server } = await manualWatch();
    const batches = batchesOf(configMaps(server));
    const first = batches.next();
    (await response).write(
      `${event('ADDED', 'a', '1')}${event('ADDED', 'b', '2')}{not json\n${event('ADDED', 'c', '3')}`,
    );
    expect(names((await first).value as WatchEvent<KubeObject>[])).toEqual(['a', 'b']);
    const error = await batches.next().catch((e: unknown) => e);
    expect(isLassoError(error, 'LASSO_WATCH_DECODE')).toBe(true);
    await server.closed[0];
  });

  it('yields the events before an ERROR event, then throws its ApiError', async () => {
    const { response, server } = await manualWatch();
    const batches = batchesOf(configMaps(server));
    const first = batches.next();
    (await response).write(
      `${event('ADDED', 'a', '1')}${JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', 'gone') })}\n${event('ADDED', 'b', '2')}`,
    );
    expect(names((await first).value as WatchEvent<KubeObject>[])).toEqual(['a']);
    const error = await batches.next().catch((e: unknown) => e);
    expect(isGone(error)).toBe(true);
  });

  it('throws at once when the first line of a chunk is malformed (no empty batch)', async () => {
    const { response, server } = await manualWatch();
    const batches = batchesOf(configMaps(server));
    const first = batches.next().catch((e: unknown) => e);
    (await response).write(`{not json\n${event('ADDED', 'a', '1')}`);
    const error = await first;
    expect(isLassoError(error, 'LASSO_WATCH_DECODE')).toBe(true);
  });

  it('releases the request when the batch iterator returns', async () => {
    const { response, server } = await manualWatch();
    const batches = batchesOf(configMaps(server));
    const first = batches.next();
    (await response).write(event('ADDED', 'a', '1'));
    await first;
    await batches.return?.();
    await server.closed[0];
  });
});
