// HandlerTransaction: handler registrations held back until the caller commits (or rolls back) a batch.
// Ports rancher/lasso pkg/controller/transaction.go (a value passed where lasso passes a context).

const transactionBrand: unique symbol = Symbol.for('lasso.controller.handler-transaction') as never;

/**
 * A batch of `registerHandler` calls: pass the transaction in place of the signal, and the registrations
 * take effect on {@link HandlerTransaction.commit}, in the order they were made, or never after
 * {@link HandlerTransaction.rollback}. The registered handlers live until the transaction's `signal` aborts.
 * Lets a caller set up several handlers and activate them only if the whole setup succeeded.
 */
export interface HandlerTransaction {
  /** Unregisters every handler registered under this transaction when it aborts. */
  readonly signal: AbortSignal;
  /** Apply every held registration, in order; later registrations under it apply at once. */
  commit(): void;
  /** Drop every held registration; later registrations under it are dropped too. */
  rollback(): void;
  /** @internal Run `registration` now (committed), later (open) or never (rolled back). */
  [transactionBrand](registration: () => void): void;
}

class HandlerTransactionImpl implements HandlerTransaction {
  readonly signal: AbortSignal;
  #state: 'open' | 'committed' | 'rolledBack' = 'open';
  #held: Array<() => void> = [];

  constructor(signal: AbortSignal) {
    this.signal = signal;
  }

  commit(): void {
    if (this.#state !== 'open') return;
    this.#state = 'committed';
    const held = this.#held;
    this.#held = [];
    // Each registration runs even when one before it throws (a predicate that is not one, say); the first error is
    // rethrown once all ran, so one bad handler does not silently drop the rest.
    let failure: { error: unknown } | undefined;
    for (const registration of held) {
      try {
        registration();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure !== undefined) throw failure.error;
  }

  rollback(): void {
    if (this.#state !== 'open') return;
    this.#state = 'rolledBack';
    this.#held = [];
  }

  [transactionBrand](registration: () => void): void {
    if (this.#state === 'committed') registration();
    else if (this.#state === 'open') this.#held.push(registration);
  }
}

/** Start a {@link HandlerTransaction} whose handlers live until `signal` aborts. */
export function createHandlerTransaction(signal: AbortSignal): HandlerTransaction {
  if (!(signal instanceof AbortSignal)) {
    throw new TypeError('createHandlerTransaction: signal must be an AbortSignal');
  }
  return new HandlerTransactionImpl(signal);
}

/** True when `value` is a {@link HandlerTransaction}. */
export function isHandlerTransaction(value: unknown): value is HandlerTransaction {
  return typeof value === 'object' && value !== null && transactionBrand in value;
}

/** @internal Route a registration through `transaction`. */
export function registerInTransaction(
  transaction: HandlerTransaction,
  registration: () => void,
): void {
  transaction[transactionBrand](registration);
}
