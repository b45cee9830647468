// The promise a started informer or consumer rejects on its first error (its `failed`), with the function that
// rejects it: W2-W5's contenders and W4's consumers.

/** A promise rejected by the first `fail(error)`; later calls do nothing. */
export interface FailurePromise {
  readonly promise: Promise<never>;
  fail(error: unknown): void;
}

/** A {@link FailurePromise}; it is never an unhandled rejection when nobody waits for it. */
export function failurePromise(): FailurePromise {
  let fail: (error: unknown) => void = () => undefined;
  const promise = new Promise<never>((_, reject) => {
    fail = reject;
  });
  // Observed by the benchmark through `failed`; never an unhandled rejection when nobody waits.
  promise.catch(() => undefined);
  return { promise, fail };
}
