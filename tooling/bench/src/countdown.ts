// A counting handler that resolves a promise at its `target`-th call: how W2, W3 and W5 know that an informer
// has handed every object or event to its handler.

/** `tick` counts a call (give it to the informer as the handler itself, with no wrapper around it). */
export interface Countdown {
  /** Resolves at the `target`-th call of `tick`. */
  readonly done: Promise<void>;
  readonly tick: () => void;
}

/** A {@link Countdown} to `target` calls. */
export function countdown(target: number): Countdown {
  let count = 0;
  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });
  return {
    done,
    tick: () => {
      if (++count === target) resolveDone();
    },
  };
}
