// Every request listens to its caller's signal while it runs (the rate limiter's wait, the deadline's combined
// signal, undici itself) and stops listening when it ends. A caller that runs more than ten requests at once on one
// signal (a discovery pass over every group version, one informer per kind on one stop signal, a reconciler's
// parallel writes) would make Node warn of an AbortSignal listener leak that is not one. As undici's fetch does for
// the signal of a Request, the limit of a signal still at Node's default is raised; a limit its owner set is kept.
import { defaultMaxListeners, getMaxListeners, setMaxListeners } from 'node:events';

/** undici's figure: high enough for any concurrency a process runs, low enough to still flag a real leak. */
export const requestSignalMaxListeners = 1_500;

/** Raise `signal`'s listener limit to {@link requestSignalMaxListeners} when it is still Node's default. */
export function allowConcurrentRequests(signal: AbortSignal | undefined): void {
  if (signal === undefined) return;
  try {
    if (getMaxListeners(signal) === defaultMaxListeners) {
      setMaxListeners(requestSignalMaxListeners, signal);
    }
  } catch {
    // Not an EventTarget Node knows (a signal from another realm or a look-alike): its listeners are counted by
    // its own rules, and the request goes on with it as before; nothing here is worth failing a request for.
  }
}
