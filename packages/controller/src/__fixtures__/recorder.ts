// A recording handler for unit tests: every call is kept, and a test awaits a condition on the calls (checked
// after each call settles) with a bounded deadline instead of polling.
import type { KubeObject } from '@lasso/client';

export interface Call {
  readonly key: string;
  readonly object: KubeObject | undefined;
}

export interface Recorder {
  readonly calls: Call[];
  /** Keys of the calls, in order. */
  keys(): string[];
  /** The handler: records the call, then runs `behaviour` (which may throw). */
  handler(key: string, object: KubeObject | undefined): Promise<void>;
  /** Resolves once `predicate(calls)` holds after a call settled; rejects after `deadlineMs` of real time. */
  until(predicate: (calls: Call[]) => boolean, deadlineMs?: number): Promise<void>;
}

export function createRecorder(
  behaviour: (call: Call, index: number) => unknown = () => undefined,
): Recorder {
  const calls: Call[] = [];
  let watchers: Array<() => void> = [];
  const notify = (): void => {
    const current = watchers;
    watchers = [];
    for (const watcher of current) watcher();
  };
  return {
    calls,
    keys: () => calls.map((call) => call.key),
    async handler(key, object) {
      const call = { key, object };
      calls.push(call);
      try {
        await behaviour(call, calls.length - 1);
      } finally {
        // After the outcome is known to the controller's await, not before.
        queueMicrotask(notify);
      }
    },
    until(predicate, deadlineMs = 2_000) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(
            new Error(`condition not reached; calls: ${JSON.stringify(calls.map((c) => c.key))}`),
          );
        }, deadlineMs);
        const check = (): void => {
          if (predicate(calls)) {
            clearTimeout(timer);
            resolve();
          } else {
            watchers.push(check);
          }
        };
        check();
      });
    },
  };
}
