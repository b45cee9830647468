// TokenBucket: a token bucket on an injected clock; ports golang.org/x/time/rate's Limiter
// reservation semantics (tokens may go negative; a reservation's delay is the wait for its token).
import { abortReason, type Clock, type SignalOptions, sleep, systemClock } from '@lasso/core';

/** Options of {@link createTokenBucket}. */
export interface TokenBucketOptions {
  /** Tokens added per second; must be a finite number > 0. */
  qps: number;
  /** Bucket size (the bucket starts full); must be an integer >= 1. */
  burst: number;
  /** Time source for refills and waits (default `systemClock`). */
  clock?: Clock | undefined;
}

/**
 * A token bucket that refills at `qps` tokens per second up to `burst` tokens.
 *
 * **Gotchas**: `reserve()` always takes a token, even when the caller then does not wait, so the
 * bucket can go into debt (golang.org/x/time/rate semantics); later callers wait longer.
 */
export interface TokenBucket {
  readonly qps: number;
  readonly burst: number;
  /** Take a token if one is available now; never waits, never goes into debt. */
  tryTake(): boolean;
  /**
   * Take a token, waiting on the clock until it is available. On abort the promise rejects with
   * `signal.reason` and the token is given back.
   */
  take(options?: SignalOptions): Promise<void>;
  /** Reserve a token now and return the ms until it is available (0 when it is available now). */
  reserve(): number;
  /** Tokens available now (negative while reservations are in debt). */
  tokens(): number;
}

/** Validate qps/burst as client-go's callers expect; the RangeError names the option. */
export function validateRate(qps: number, burst: number): void {
  if (!(qps > 0) || !Number.isFinite(qps)) {
    throw new RangeError(`qps must be a finite number > 0, got ${qps}`);
  }
  if (!Number.isInteger(burst) || burst < 1) {
    throw new RangeError(`burst must be an integer >= 1, got ${burst}`);
  }
}

class TokenBucketImpl implements TokenBucket {
  readonly qps: number;
  readonly burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  constructor(options: TokenBucketOptions) {
    validateRate(options.qps, options.burst);
    this.qps = options.qps;
    this.burst = options.burst;
    this.#clock = options.clock ?? systemClock;
    this.#tokens = options.burst;
    this.#last = this.#clock.monotonic();
  }

  tokens(): number {
    this.#advance();
    return this.#tokens;
  }

  tryTake(): boolean {
    this.#advance();
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  reserve(): number {
    this.#advance();
    this.#tokens -= 1;
    // Dividing the debt (not multiplying by 1/qps) keeps whole-token waits exact: 3 tokens at 10 qps is 300 ms.
    return this.#tokens >= 0 ? 0 : (-this.#tokens * 1000) / this.qps;
  }

  take(options: SignalOptions = {}): Promise<void> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const delayMs = this.reserve();
    if (delayMs === 0) return Promise.resolve();
    return sleep(this.#clock, delayMs, options).catch((error: unknown) => {
      // Give the unused token back so an aborted wait does not slow the callers behind it.
      this.#advance();
      this.#tokens = Math.min(this.burst, this.#tokens + 1);
      throw error;
    });
  }

  #advance(): void {
    const now = this.#clock.monotonic();
    // Time never runs backwards for the bucket, even if a clock misbehaves.
    const elapsed = Math.max(0, now - this.#last);
    this.#last = Math.max(now, this.#last);
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed * this.qps) / 1000);
  }
}

/**
 * Create a token bucket (golang.org/x/time/rate `NewLimiter(qps, burst)`), e.g. for a client-side
 * request limit.
 *
 * @example
 * ```ts
 * const bucket = createTokenBucket({ qps: 5, burst: 10 });
 * await bucket.take({ signal }); // waits on the clock when the burst is used up
 * ```
 * @throws RangeError when `qps` is not a finite number > 0 or `burst` is not an integer >= 1.
 */
export function createTokenBucket(options: TokenBucketOptions): TokenBucket {
  return new TokenBucketImpl(options);
}
