// Waiter: awaits a condition of a test that changes on events (handler calls, log entries, requests), re-checked
// on each `notify()`; the one way an integration test waits, with a real-time deadline instead of a poll.

/**
 * Re-checks waiting conditions whenever the test says something happened (`notify()`, from an event handler, a
 * logger, a request hook). Each wait has a real-time deadline: integration tests wait for a real API server,
 * whose time a `FakeClock` does not govern. A condition that throws rejects its wait with that error.
 *
 * @example
 * ```ts
 * const waiter = new Waiter();
 * const seen = new Set<string>();
 * const onEvent = (key: string) => {
 *   seen.add(key);
 *   waiter.notify();
 * };
 * setTimeout(() => onEvent('default/a'), 10);
 * await waiter.until(() => seen.has('default/a'), 'default/a to be seen', 5_000);
 * ```
 */
export class Waiter {
  readonly #checks = new Set<() => void>();

  /** Re-check every pending wait now. */
  notify(): void {
    for (const check of [...this.#checks]) check();
  }

  /** Resolves once `predicate()` holds, now or after a `notify()`; rejects after `timeoutMs` (default 20 s). */
  async until(predicate: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    await this.value(() => (predicate() ? true : undefined), what, timeoutMs);
  }

  /**
   * Resolves with the first value `read()` gives that is not undefined, now or after a `notify()`; rejects after
   * `timeoutMs` (default 20 s) naming `what`.
   */
  value<T>(read: () => T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = (): void => {
        let found: T | undefined;
        try {
          found = read();
        } catch (error) {
          cleanup();
          reject(error);
          return;
        }
        if (found === undefined) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.#checks.delete(check);
      };
      this.#checks.add(check);
      check();
    });
  }
}
