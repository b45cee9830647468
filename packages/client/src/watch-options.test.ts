// The streaming-list options of a watch (KEP-3157): sent as query parameters, and bad combinations refused at once.
import { describe, expect, it } from 'vitest';
import { useClients } from '../test/helpers/clients.ts';
import type { WatchOptions } from './types.ts';

const { serve, client: configMaps } = useClients();

describe('Client.watch() streaming-list options', () => {
  it('sends sendInitialEvents and resourceVersionMatch as query parameters', async () => {
    const bookmark = {
      type: 'BOOKMARK',
      object: {
        metadata: { resourceVersion: '7', annotations: { 'k8s.io/initial-events-end': 'true' } },
      },
    };
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`${JSON.stringify(bookmark)}\n`);
    });
    const events = [];
    for await (const event of configMaps(server.url).watch('ns', {
      resourceVersion: '',
      resourceVersionMatch: 'NotOlderThan',
      sendInitialEvents: true,
      allowWatchBookmarks: true,
    })) {
      events.push(event);
    }
    expect(events).toHaveLength(1);
    const query = new URL(server.requests[0]?.url ?? '', 'http://x').searchParams;
    expect(query.get('watch')).toBe('true');
    expect(query.get('sendInitialEvents')).toBe('true');
    expect(query.get('resourceVersionMatch')).toBe('NotOlderThan');
    expect(query.get('allowWatchBookmarks')).toBe('true');
  });

  it.for([
    [{ sendInitialEvents: true }, /sendInitialEvents requires resourceVersionMatch/],
    [{ sendInitialEvents: false }, /sendInitialEvents requires resourceVersionMatch/],
    [
      { resourceVersionMatch: 'NotOlderThan' },
      /resourceVersionMatch is only allowed.*sendInitialEvents/,
    ],
    [
      { sendInitialEvents: true, resourceVersionMatch: 'Exact' },
      /resourceVersionMatch must be 'NotOlderThan'/,
    ],
    [
      { sendInitialEvents: 'yes', resourceVersionMatch: 'NotOlderThan' },
      /sendInitialEvents must be/,
    ],
  ] as Array<[Record<string, unknown>, RegExp]>)(
    'throws a TypeError naming the options for %j, before any request',
    ([options, message]) => {
      const client = configMaps('http://127.0.0.1:1');
      expect(() => client.watch('ns', options as WatchOptions)).toThrow(TypeError);
      expect(() => client.watch('ns', options as WatchOptions)).toThrow(message);
    },
  );

  it('sends neither option for a plain watch', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end();
    });
    for await (const _ of configMaps(server.url).watch('ns', { resourceVersion: '5' })) {
      // no events
    }
    const query = new URL(server.requests[0]?.url ?? '', 'http://x').searchParams;
    expect(query.has('sendInitialEvents')).toBe(false);
    expect(query.has('resourceVersionMatch')).toBe(false);
  });
});
