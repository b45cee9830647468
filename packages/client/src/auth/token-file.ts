// Bearer token read from a file and re-read as it rotates (client-go transport/token_source.go cachingTokenSource).
import { readFile } from 'node:fs/promises';
import {
  type Clock,
  defaultLogger,
  errorMessage,
  guardLogger,
  LassoError,
  type Logger,
  systemClock,
} from '@lasso/core';

/**
 * A bearer token read from a file (a projected service-account token, kubeconfig `tokenFile`).
 * The file is read on first use, again once `refreshMs` (default 60 s) has passed, and at once
 * after {@link TokenFileSource.invalidate} (the transport calls it on a 401): bound tokens rotate.
 * Concurrent callers share one read. When a periodic re-read fails (the file is being rewritten),
 * the token read before is kept and the failure logged at warn, as client-go's caching token
 * source does; after an invalidation there is no token to keep, and the failure is thrown.
 */
export class TokenFileSource {
  readonly path: string;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #refreshMs: number;
  #token: string | undefined;
  #readAt = 0;
  #reading: Promise<string> | undefined;

  constructor(
    path: string,
    options: {
      clock?: Clock | undefined;
      refreshMs?: number | undefined;
      logger?: Logger | undefined;
    } = {},
  ) {
    if (typeof path !== 'string' || path === '') {
      throw new TypeError('TokenFileSource: path must be a non-empty string');
    }
    const refreshMs = options.refreshMs ?? 60_000;
    if (!(refreshMs >= 0))
      throw new RangeError(`TokenFileSource: refreshMs must be >= 0, got ${refreshMs}`);
    this.path = path;
    this.#clock = options.clock ?? systemClock;
    this.#logger = guardLogger(options.logger ?? defaultLogger);
    this.#refreshMs = refreshMs;
  }

  /** The current token, re-reading the file when it is older than `refreshMs` or was invalidated. */
  token(): Promise<string> {
    if (this.#token !== undefined && this.#clock.monotonic() - this.#readAt < this.#refreshMs) {
      return Promise.resolve(this.#token);
    }
    this.#reading ??= this.#read().finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  /** Forget the cached token so the next request re-reads the file (after a 401). */
  invalidate(): void {
    this.#token = undefined;
  }

  async #read(): Promise<string> {
    let token: string;
    try {
      token = await this.#readFile();
    } catch (error) {
      const previous = this.#token;
      if (previous === undefined) throw error;
      // The read time is left as it was: the next call tries the file again.
      this.#logger.warn('cannot re-read the token file, keeping the token read before', {
        path: this.path,
        error: errorMessage(error),
      });
      return previous;
    }
    this.#token = token;
    this.#readAt = this.#clock.monotonic();
    return token;
  }

  async #readFile(): Promise<string> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      throw new LassoError(
        'LASSO_CONFIG_INVALID',
        `cannot read token file ${this.path}: ${errorMessage(error)}`,
        { cause: error },
      );
    }
    const token = text.trim();
    if (token === '') {
      throw new LassoError('LASSO_CONFIG_INVALID', `token file ${this.path} is empty`);
    }
    return token;
  }
}
