// ErrIgnore and retryAfter recognised by their LassoError code: with two installed copies of @lasso/controller,
// an error of the other copy is not `instanceof` this copy's classes, and must still be recognised.
import type { KubeObject } from '@lasso/client';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import { revokedProxy } from './__fixtures__/hostile.ts';
import { createTestInformer } from './__fixtures__/test-informer.ts';
import { createController } from './controller.ts';
import {
  ErrIgnore,
  HandlerError,
  IgnoreError,
  isIgnoreError,
  RetryAfterError,
  retryAfter,
  retryAfterDelay,
  stackOf,
} from './errors.ts';

/** What an error of another copy looks like here: the core brand and the code, another class. */
function otherCopy(code: string, fields: Record<string, unknown> = {}): Error {
  const error = Object.assign(new Error(`from the other copy: ${code}`), { code, ...fields });
  Object.defineProperty(error, Symbol.for('lasso.error'), { value: true });
  return error;
}

describe('isIgnoreError', () => {
  it('recognises ErrIgnore, IgnoreError and errors caused by them', () => {
    expect(isIgnoreError(ErrIgnore)).toBe(true);
    expect(isIgnoreError(new IgnoreError('custom'))).toBe(true);
    expect(isIgnoreError(new Error('wrapped', { cause: ErrIgnore }))).toBe(true);
    expect(isIgnoreError(new Error('plain'))).toBe(false);
  });

  it('recognises an ignore error of another installed copy by its code', () => {
    const foreign = otherCopy('LASSO_HANDLER_IGNORED');
    expect(foreign).not.toBeInstanceOf(IgnoreError);
    expect(isIgnoreError(foreign)).toBe(true);
    expect(isIgnoreError(new Error('wrapped', { cause: foreign }))).toBe(true);
    // Inside another copy's HandlerError, found through its failures.
    const failures = [{ handler: 'h', error: foreign }];
    expect(isIgnoreError(otherCopy('LASSO_HANDLER_FAILED', { failures }))).toBe(true);
  });

  it('does not take the code without the brand', () => {
    const unbranded = Object.assign(new Error('look-alike'), { code: 'LASSO_HANDLER_IGNORED' });
    expect(isIgnoreError(unbranded)).toBe(false);
  });
});

describe('retryAfterDelay', () => {
  it('reads a RetryAfterError of this copy or another one', () => {
    expect(retryAfterDelay(retryAfter(250))).toBe(250);
    const foreign = otherCopy('LASSO_RETRY_AFTER', { delayMs: 750 });
    expect(foreign).not.toBeInstanceOf(RetryAfterError);
    expect(retryAfterDelay(foreign)).toBe(750);
  });

  it('takes the shortest delay of a HandlerError whose failures all ask for one, of either copy', () => {
    const failures = [
      { handler: 'a', error: retryAfter(500) },
      { handler: 'b', error: otherCopy('LASSO_RETRY_AFTER', { delayMs: 200 }) },
    ];
    expect(retryAfterDelay(new HandlerError('c', failures))).toBe(200);
    expect(retryAfterDelay(otherCopy('LASSO_HANDLER_FAILED', { failures }))).toBe(200);
    const mixed = [...failures, { handler: 'c', error: new Error('boom') }];
    expect(retryAfterDelay(new HandlerError('c', mixed))).toBeUndefined();
  });

  it('ignores a foreign retry error whose delay is not a usable number', () => {
    for (const delayMs of [-1, Number.NaN, Number.POSITIVE_INFINITY, '5', undefined]) {
      expect(retryAfterDelay(otherCopy('LASSO_RETRY_AFTER', { delayMs }))).toBeUndefined();
    }
  });

  it('never throws on hostile values', () => {
    const revoked = revokedProxy();
    for (const value of [
      revoked,
      otherCopy('LASSO_HANDLER_FAILED', { failures: revokedProxy([]) }),
      null,
    ]) {
      expect(retryAfterDelay(value)).toBeUndefined();
      expect(isIgnoreError(value)).toBe(false);
    }
    expect(stackOf(revoked)).toBeUndefined();
    expect(stackOf('text')).toBeUndefined();
  });
});

describe('a controller with errors of another copy', () => {
  it('treats a foreign ignore error as success and a foreign retry error as a fixed delay', async () => {
    const clock = new FakeClock();
    const logger = createTestLogger();
    const informer = createTestInformer();
    informer.sync();
    const calls: string[] = [];
    const controller = createController<KubeObject>(
      'v1, Kind=ConfigMap',
      informer,
      () => {},
      (key) => {
        calls.push(key);
        if (key === 'ns/ignored') throw otherCopy('LASSO_HANDLER_IGNORED');
        if (key === 'ns/later' && calls.length < 3) {
          throw otherCopy('LASSO_RETRY_AFTER', { delayMs: 1_000 });
        }
      },
      { clock, logger },
    );
    const stop = new AbortController();
    await controller.start(stop.signal, 1);
    controller.enqueueKey('ns/ignored');
    controller.enqueueKey('ns/later');
    await clock.advance(999);
    expect(calls).toEqual(['ns/ignored', 'ns/later']);
    await clock.advance(1);
    expect(calls).toEqual(['ns/ignored', 'ns/later', 'ns/later']);
    // Neither retried forever nor logged as an error.
    await clock.advance(300_000);
    expect(calls).toHaveLength(3);
    expect(logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
    stop.abort();
    await controller.close();
  });
});
