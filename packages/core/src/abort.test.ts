import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { abortReason, anySignal, isAbortError, raceSignal, sleep, timeoutSignal } from './abort.ts';
import { isLassoError, LassoError, TimeoutError } from './errors.ts';
import { FakeClock } from './testing/fake-clock.ts';

describe('sleep()', () => {
  it('resolves once the clock passes the delay', async () => {
    const clock = new FakeClock();
    let done = false;
    const wait = sleep(clock, 100).then(() => {
      done = true;
    });
    await clock.advance(99);
    expect(done).toBe(false);
    await clock.advance(1);
    await wait;
    expect(done).toBe(true);
  });

  it('rejects with the signal reason and releases its timer when aborted', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const reason = new Error('stop');
    const wait = sleep(clock, 100, { signal: controller.signal });
    controller.abort(reason);
    await expect(wait).rejects.toBe(reason);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('asks the clock to keep the process alive while it waits', async () => {
    const clock = new FakeClock();
    const wait = sleep(clock, 10);
    expect(clock.pendingTimers({ keepAlive: true })).toBe(1);
    await clock.advance(10);
    await wait;
  });

  it('rejects at once for an already aborted signal', async () => {
    const wait = sleep(new FakeClock(), 1, { signal: AbortSignal.abort() });
    await expect(wait).rejects.toSatisfy((error) => isAbortError(error));
  });
});

describe('abortReason()', () => {
  it('returns an Error reason as is and wraps any other reason', () => {
    const error = new Error('stop');
    expect(abortReason(AbortSignal.abort(error))).toBe(error);
    expect(abortReason(AbortSignal.abort('stop'))).toMatchObject({
      code: 'LASSO_ABORTED',
      cause: 'stop',
    });
  });

  it('wraps a reason that throws when inspected (a revoked Proxy)', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const reason = abortReason(AbortSignal.abort(proxy));
    expect(reason).toMatchObject({ code: 'LASSO_ABORTED' });
    expect(reason.cause).toBe(proxy);
  });
});

describe('raceSignal()', () => {
  it('settles with the promise when the signal stays quiet', async () => {
    await expect(raceSignal(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
  });

  it('rejects with the reason when the signal aborts first', async () => {
    const controller = new AbortController();
    const race = raceSignal(new Promise(() => {}), controller.signal);
    controller.abort(new Error('bye'));
    await expect(race).rejects.toThrow('bye');
  });
});

describe('timeoutSignal()', () => {
  it('aborts with a TimeoutError on the injected clock', async () => {
    const clock = new FakeClock();
    const { signal } = timeoutSignal(clock, 50);
    await clock.advance(50);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(TimeoutError);
    expect(isLassoError(signal.reason, 'LASSO_TIMEOUT')).toBe(true);
  });

  it('never aborts once cleared', async () => {
    const clock = new FakeClock();
    const { signal, clear } = timeoutSignal(clock, 50);
    clear();
    await clock.advance(100);
    expect(signal.aborted).toBe(false);
  });
});

describe('anySignal()', () => {
  it('aborts when any source aborts and removes its listeners', () => {
    const a = new AbortController();
    const b = new AbortController();
    const { signal } = anySignal([a.signal, undefined, b.signal]);
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(1);
    b.abort('why');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('why');
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
  });

  it('removes its listeners from long-lived parents on dispose', () => {
    const parent = new AbortController();
    for (let i = 0; i < 3; i++) anySignal([parent.signal]).dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });

  it('is aborted at once when a source already is', () => {
    const { signal } = anySignal([new AbortController().signal, AbortSignal.abort('early')]);
    expect(signal.reason).toBe('early');
  });
});

describe('isLassoError()', () => {
  it('recognises a branded error from another copy of the class', () => {
    const foreign = Object.assign(new Error('x'), {
      code: 'LASSO_CONFIG_INVALID',
      [Symbol.for('lasso.error')]: true,
    });
    expect(isLassoError(foreign)).toBe(true);
    expect(isLassoError(foreign, 'LASSO_CONFIG_INVALID')).toBe(true);
    expect(isLassoError(foreign, 'LASSO_TIMEOUT')).toBe(false);
    expect(isLassoError(new Error('plain'))).toBe(false);
  });

  it('recognises an error built by a second instance of the module', async () => {
    // A query string makes vitest load errors.ts again: the same situation as two installed copies.
    const specifier = './errors.ts?second-copy';
    const copy = (await import(specifier)) as typeof import('./errors.ts');
    expect(copy.LassoError).not.toBe(LassoError);
    const foreign = new copy.TimeoutError('late', 5);
    expect(foreign).not.toBeInstanceOf(LassoError);
    expect(isLassoError(foreign, 'LASSO_TIMEOUT')).toBe(true);
    expect(copy.isLassoError(new LassoError('LASSO_ABORTED', 'x'), 'LASSO_ABORTED')).toBe(true);
  });

  it('names subclasses after themselves and keeps the cause', () => {
    const cause = new Error('root');
    const error = new LassoError('LASSO_CONFIG_INVALID', 'bad', { cause });
    expect(error.name).toBe('LassoError');
    expect(error.cause).toBe(cause);
    expect(new TimeoutError('t', 5).name).toBe('TimeoutError');
  });
});
