// One listener-unlimited signal per caller signal, for the many informers and controllers of a factory.
import { setMaxListeners } from 'node:events';

const followers = new WeakMap<AbortSignal, AbortSignal>();

/**
 * @internal A signal that aborts with `signal` (same reason) and accepts any number of listeners. Every
 * informer and controller of a factory listens on the signal of its start: passed down as is, fifty kinds
 * would trip Node's MaxListenersExceededWarning on the caller's signal. One follower per signal, so
 * repeated starts add one listener to it in all.
 */
export function followSignal(signal: AbortSignal): AbortSignal {
  const known = followers.get(signal);
  if (known !== undefined) return known;
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  followers.set(signal, controller.signal);
  return controller.signal;
}
