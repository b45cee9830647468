// The results writer every workload calls at its end: one file per UTC day, keyed by workload, never losing an
// earlier entry.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BenchResultsFile, recordResults } from './measure.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lasso-bench-results-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const read = async (path: string): Promise<BenchResultsFile> =>
  JSON.parse(await readFile(path, 'utf8')) as BenchResultsFile;

describe('recordResults', () => {
  it('creates the day file named by the UTC date, with where and when it was measured', async () => {
    const now = new Date('2026-11-26T23:59:59.000Z');
    const path = recordResults(
      'W3',
      { sizes: { events: 10 }, contenders: { lasso: { eventsPerSecond: 5 } } },
      { dir, now },
    );
    expect(path).toBe(join(dir, '2026-11-26.json'));
    const file = await read(path);
    const [record] = file.W3 ?? [];
    expect(record).toMatchObject({
      at: '2026-11-26T23:59:59.000Z',
      node: process.version,
      sizes: { events: 10 },
      contenders: { lasso: { eventsPerSecond: 5 } },
    });
    expect(record?.loadAverage).toHaveLength(3);
    expect(record?.machine.cpus).toBeGreaterThan(0);
    expect(typeof record?.commit).toBe('string');
  });

  it('merges into an existing day file: other workloads and earlier runs stay, the new run is last', async () => {
    const now = new Date('2026-11-26T06:00:00.000Z');
    const path = join(dir, '2026-11-26.json');
    const earlier = { at: 'earlier', contenders: { x: { y: 1 } } };
    await writeFile(path, JSON.stringify({ W1: [earlier], W5: [earlier] }));
    recordResults('W5', { contenders: { lasso: { bytesPerObject: 1400 } } }, { dir, now });
    recordResults('W2', { contenders: { lasso: { syncMs: 900 } } }, { dir, now });
    const file = await read(path);
    expect(Object.keys(file).sort()).toEqual(['W1', 'W2', 'W5']);
    expect(file.W1).toEqual([earlier]);
    expect(file.W5?.map((run) => run.at)).toEqual(['earlier', now.toISOString()]);
    expect(file.W5?.[1]?.contenders).toEqual({ lasso: { bytesPerObject: 1400 } });
    expect(file.W2).toHaveLength(1);
  });

  it('a new day starts a new file and leaves the previous day alone', async () => {
    recordResults('W1', { contenders: {} }, { dir, now: new Date('2026-11-26T10:00:00Z') });
    recordResults('W1', { contenders: {} }, { dir, now: new Date('2026-11-27T10:00:00Z') });
    expect((await read(join(dir, '2026-11-26.json'))).W1).toHaveLength(1);
    expect((await read(join(dir, '2026-11-27.json'))).W1).toHaveLength(1);
  });

  it('refuses to overwrite a day file that is not JSON', async () => {
    const path = join(dir, '2026-11-26.json');
    await writeFile(path, '{ half a file');
    expect(() =>
      recordResults('W1', { contenders: {} }, { dir, now: new Date('2026-11-26T10:00:00Z') }),
    ).toThrow(/not a results file/);
    expect(await readFile(path, 'utf8')).toBe('{ half a file');
  });
});
