import { describe, expect, it } from 'vitest';
import { failure, StatusError } from '../apimachinery/status.ts';
import type { KubeObject } from '../storage/store.ts';
import { ConvertedEvents, maxWatchConversionBatch } from './watch-conversion.ts';

/** A converter the test answers by hand, one batch at a time. */
function manualConverter() {
  const calls: { objects: KubeObject[]; answer(result: KubeObject[] | StatusError): void }[] = [];
  let arrived: () => void = () => {};
  return {
    calls,
    convert: (objects: KubeObject[]) =>
      new Promise<KubeObject[] | StatusError>((resolve) => {
        calls.push({ objects, answer: resolve });
        arrived();
      }),
    /** Resolves once `count` batches have been asked for. */
    async until(count: number): Promise<void> {
      while (calls.length < count) await new Promise<void>((resolve) => (arrived = resolve));
    },
  };
}

const object = (name: string): KubeObject => ({
  apiVersion: 'g/v1',
  kind: 'Thing',
  metadata: { name },
});
const toV2 = (objects: KubeObject[]): KubeObject[] =>
  objects.map((item) => ({ ...item, apiVersion: 'g/v2' }));

describe('ConvertedEvents', () => {
  it('converts a burst in one batch and keeps bookmarks behind the events queued before them', async () => {
    const converter = manualConverter();
    const sent: any[] = [];
    let ended = false;
    const events = new ConvertedEvents({
      convert: converter.convert,
      send: (event) => sent.push(event),
      end: () => {
        ended = true;
      },
      finish: (item) => item,
    });
    events.push('ADDED', object('a'));
    events.push('ADDED', object('b'));
    events.pass({ type: 'BOOKMARK' });
    events.push('MODIFIED', object('a'));
    await converter.until(1);
    expect(converter.calls[0]?.objects.map((item) => item.metadata)).toEqual([
      { name: 'a' },
      { name: 'b' },
    ]);
    expect(sent).toEqual([]);
    converter.calls[0]?.answer(toV2(converter.calls[0].objects));
    await converter.until(2);
    expect(sent.map((event) => [event.type, event.object?.apiVersion])).toEqual([
      ['ADDED', 'g/v2'],
      ['ADDED', 'g/v2'],
      ['BOOKMARK', undefined],
    ]);
    converter.calls[1]?.answer(toV2(converter.calls[1].objects));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(sent.at(-1)).toMatchObject({ type: 'MODIFIED', object: { apiVersion: 'g/v2' } });
    expect(ended).toBe(false);
  });

  it(`sends at most ${maxWatchConversionBatch} objects in one review`, async () => {
    const converter = manualConverter();
    const events = new ConvertedEvents({
      convert: converter.convert,
      send: () => {},
      end: () => {},
      finish: (item) => item,
    });
    for (let index = 0; index <= maxWatchConversionBatch; index++) {
      events.push('ADDED', object(`o${index}`));
    }
    await converter.until(1);
    expect(converter.calls[0]?.objects).toHaveLength(maxWatchConversionBatch);
    converter.calls[0]?.answer(toV2(converter.calls[0].objects));
    await converter.until(2);
    expect(converter.calls[1]?.objects).toHaveLength(1);
    events.stop();
  });

  it('ends the watch without an event when a conversion fails, and sends nothing after', async () => {
    const converter = manualConverter();
    const sent: unknown[] = [];
    let ended = 0;
    const events = new ConvertedEvents({
      convert: converter.convert,
      send: (event) => sent.push(event),
      end: () => {
        ended++;
      },
      finish: (item) => item,
    });
    events.push('ADDED', object('a'));
    await converter.until(1);
    events.pass({ type: 'BOOKMARK' });
    converter.calls[0]?.answer(new StatusError(failure(500, '', 'conversion refused')));
    await new Promise<void>((resolve) => setImmediate(resolve));
    events.push('ADDED', object('b'));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(sent).toEqual([]);
    expect(ended).toBe(1);
    expect(converter.calls).toHaveLength(1);
  });
});
