// W3 compares clients on the bytes this server sends: they must be a list and watch events a client-go
// style informer accepts (paginated list, resourceVersions that follow the list's, kube's event shape).
import { afterEach, describe, expect, it } from 'vitest';
import { benchConfigMap, configMapName } from './fixtures.ts';
import { parseSizes } from './measure.ts';
import { type StreamServer, startStreamServer } from './stream-server.ts';

let server: StreamServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

interface ListBody {
  metadata: Record<string, unknown>;
  items: Array<{ kind?: string; metadata: { name: string; resourceVersion: string } }>;
}

async function readLines(url: string, count: number): Promise<string[]> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (text.split('\n').length <= count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  controller.abort();
  return text.split('\n').slice(0, count);
}

describe('startStreamServer', () => {
  it('serves a paginated list, then the events from its resourceVersion', async () => {
    server = await startStreamServer({ namespace: 'ns', objects: 3, events: 5 });
    const base = `${server.url}/api/v1/namespaces/ns/configmaps`;
    const first = (await (await fetch(`${base}?limit=2`)).json()) as ListBody;
    expect(first.metadata).toEqual({ resourceVersion: '3', continue: '2', remainingItemCount: 1 });
    expect(first.items.map((item) => item.metadata.name)).toEqual([
      configMapName(0),
      configMapName(1),
    ]);
    const second = (await (await fetch(`${base}?limit=2&continue=2`)).json()) as ListBody;
    expect(second.metadata).toEqual({ resourceVersion: '3' });
    expect(second.items[0]?.metadata.resourceVersion).toBe('3');
    expect(second.items[0]?.kind).toBeUndefined();

    const lines = await readLines(`${base}?watch=true&resourceVersion=3`, 5);
    const events = lines.map((line) => JSON.parse(line));
    expect(events.map((event) => event.type)).toEqual(Array(5).fill('MODIFIED'));
    expect(events.map((event) => event.object.metadata.resourceVersion)).toEqual([
      '4',
      '5',
      '6',
      '7',
      '8',
    ]);
    expect(events.map((event) => event.object.metadata.name)).toEqual(
      [0, 1, 2, 0, 1].map(configMapName),
    );
    expect(events[0].object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
  });

  it('refuses a streaming list (sendInitialEvents) with 422 Invalid, as a server without WatchList', async () => {
    server = await startStreamServer({ namespace: 'ns', objects: 1, events: 1 });
    const response = await fetch(
      `${server.url}/api/v1/namespaces/ns/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
    );
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
  });

  it('answers 404 with a Status for other paths', async () => {
    server = await startStreamServer({ namespace: 'ns', objects: 1, events: 1 });
    const response = await fetch(`${server.url}/api/v1/namespaces/other/configmaps`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });
});

describe('benchConfigMap', () => {
  it('has 1 KiB of data and three labels', () => {
    const object = benchConfigMap(12_345, 'ns');
    const bytes = Object.values(object.data).reduce((sum, value) => sum + value.length, 0);
    expect(bytes).toBe(1024);
    expect(Object.keys(object.metadata.labels)).toHaveLength(3);
    expect(object.data['key-1']).not.toBe(benchConfigMap(12_346, 'ns').data['key-1']);
  });

  it('sizes its data to dataBytes in eight values, or fewer when smaller', () => {
    const bytes = (dataBytes: number) =>
      Object.values(benchConfigMap(7, 'ns', dataBytes).data).map((value) => value.length);
    expect(bytes(16_384)).toEqual(Array(8).fill(2048));
    expect(bytes(1000)).toEqual([...Array(7).fill(125), 125]);
    expect(bytes(1001)).toEqual([...Array(7).fill(126), 119]);
    expect(bytes(3)).toEqual([1, 1, 1]);
  });
});

describe('parseSizes', () => {
  it('reads --name N and --name=N, and names a bad option', () => {
    expect(parseSizes(['--events', '2_000', '--rounds=3'], { events: 1, rounds: 5 })).toEqual({
      events: 2000,
      rounds: 3,
    });
    expect(() => parseSizes(['--bogus', '1'], { events: 1 })).toThrow(TypeError);
    expect(() => parseSizes(['--events', '0'], { events: 1 })).toThrow(/--events/);
    expect(parseSizes(['--data-bytes', '4096'], { 'data-bytes': 1024 })).toEqual({
      'data-bytes': 4096,
    });
  });
});
