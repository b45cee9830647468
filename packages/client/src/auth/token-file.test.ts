import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isLassoError } from '@lasso/core';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenFileSource } from './token-file.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lasso-tokenfile-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('TokenFileSource', () => {
  it('re-reads the file once 60 s have passed, not before', async () => {
    const file = join(dir, 'rotating');
    await writeFile(file, 'one\n');
    const clock = new FakeClock();
    const source = new TokenFileSource(file, { clock });
    await expect(source.token()).resolves.toBe('one');
    await writeFile(file, 'two\n');
    await clock.advance(59_999);
    await expect(source.token()).resolves.toBe('one');
    await clock.advance(1);
    await expect(source.token()).resolves.toBe('two');
  });

  it('re-reads at once after invalidate()', async () => {
    const file = join(dir, 'invalidated');
    await writeFile(file, 'one');
    const source = new TokenFileSource(file, { clock: new FakeClock() });
    await source.token();
    await writeFile(file, 'two');
    source.invalidate();
    await expect(source.token()).resolves.toBe('two');
  });

  it('keeps the token read before when a periodic re-read fails, and tries again on the next call', async () => {
    const file = join(dir, 'being-rewritten');
    await writeFile(file, 'one\n');
    const clock = new FakeClock();
    const logger = createTestLogger();
    const source = new TokenFileSource(file, { clock, logger });
    await expect(source.token()).resolves.toBe('one');
    await writeFile(file, ''); // truncated by a writer that has not written the new token yet
    await clock.advance(60_000);
    await expect(source.token()).resolves.toBe('one');
    expect(logger.entries).toMatchObject([
      { level: 'warn', attributes: { path: file, error: `token file ${file} is empty` } },
    ]);
    await writeFile(file, 'two\n');
    await expect(source.token()).resolves.toBe('two');
    // After a 401 the refused token is not kept: the failure surfaces.
    await rm(file);
    source.invalidate();
    await expect(source.token()).rejects.toThrow(`cannot read token file ${file}`);
  });

  it('names the file when it cannot be read or is empty', async () => {
    const missing = new TokenFileSource(join(dir, 'missing'));
    await expect(missing.token()).rejects.toSatisfy((e) => isLassoError(e, 'LASSO_CONFIG_INVALID'));
    await expect(missing.token()).rejects.toThrow(join(dir, 'missing'));
    const empty = join(dir, 'empty');
    await writeFile(empty, '  \n');
    await expect(new TokenFileSource(empty).token()).rejects.toThrow(
      `token file ${empty} is empty`,
    );
  });
});
