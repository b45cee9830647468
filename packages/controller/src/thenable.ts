// One test for "would `await` treat this handler result as a thenable?", shared by the controller and the shared
// handler, which both call a handler's plain return value without a promise turn.

/**
 * @internal True for a value `await` would treat as a thenable, and for one whose `then` cannot be read (a revoked
 * proxy, a throwing getter): awaiting it then rejects with that error, as it did when every result was awaited.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  try {
    return typeof (value as { then?: unknown }).then === 'function';
  } catch {
    return true;
  }
}
