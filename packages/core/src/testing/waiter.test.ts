import { describe, expect, it } from 'vitest';
import { Waiter } from './waiter.ts';

describe('Waiter', () => {
  it('resolves at once when the condition holds, and after the notify() that makes it hold', async () => {
    const waiter = new Waiter();
    await waiter.until(() => true, 'already true', 1_000);
    let ready = false;
    const waiting = waiter.until(() => ready, 'ready', 5_000);
    waiter.notify();
    ready = true;
    waiter.notify();
    await expect(waiting).resolves.toBeUndefined();
  });

  it('value() resolves with the first defined value', async () => {
    const waiter = new Waiter();
    let found: string | undefined;
    const waiting = waiter.value(() => found, 'a value', 5_000);
    found = 'x';
    waiter.notify();
    await expect(waiting).resolves.toBe('x');
  });

  it('rejects naming what it waited for after the deadline, and with what the condition threw', async () => {
    const waiter = new Waiter();
    await expect(waiter.until(() => false, 'never', 1)).rejects.toThrow(
      'timed out after 1 ms waiting for never',
    );
    let calls = 0;
    const failing = waiter.until(
      () => {
        if (++calls > 1) throw new Error('broken condition');
        return false;
      },
      'x',
      5_000,
    );
    waiter.notify();
    await expect(failing).rejects.toThrow('broken condition');
  });

  it('forgets a settled wait: a later notify() does not re-check it', async () => {
    const waiter = new Waiter();
    let checks = 0;
    let ready = false;
    const waiting = waiter.until(() => {
      checks++;
      return ready;
    }, 'ready');
    ready = true;
    waiter.notify();
    await waiting;
    const settled = checks;
    waiter.notify();
    expect(checks).toBe(settled);
  });
});
