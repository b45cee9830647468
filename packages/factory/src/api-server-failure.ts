// Why the API server did not answer, in words an operator acts on: the health gate's warnings and the error of a
// start that gave up name the server and one of these causes instead of an errno buried at debug level.
import { isApiError } from '@lasso/client';
import { errorMessage, LassoError } from '@lasso/core';

declare module '@lasso/core' {
  interface LassoErrorCodes {
    /**
     * A factory's `start` stopped waiting for the API server (its `startTimeoutMs` passed, or its signal aborted
     * during the wait): an {@link ApiServerUnavailableError}.
     */
    LASSO_API_SERVER_UNAVAILABLE: ApiServerUnavailableError;
  }
}

/**
 * A factory's `start` gave up waiting for the API server to answer `/version`: its `startTimeoutMs` passed
 * (`reason: 'deadline'`) or its signal aborted during the wait (`reason: 'aborted'`, the signal's reason as
 * `cause`). The message names the server (never its credentials) and the last failure's cause. Code
 * `LASSO_API_SERVER_UNAVAILABLE`.
 *
 * @example
 * ```ts
 * declare const caches: SharedCacheFactory; // created with { startTimeoutMs: 30_000 }
 * try {
 *   await caches.start(signal);
 * } catch (error) {
 *   if (!isLassoError(error, 'LASSO_API_SERVER_UNAVAILABLE')) throw error;
 *   console.error(error.message); // ... https://10.0.0.1:6443 ... connection refused ...
 * }
 * ```
 */
export class ApiServerUnavailableError extends LassoError {
  /** The server URL, without credentials. */
  readonly server: string;
  /** Why the wait ended. */
  readonly reason: 'deadline' | 'aborted';
  /** The cause of the last failed ping (`'connection refused'`, ...), undefined when none had failed yet. */
  readonly lastCause: string | undefined;

  constructor(
    details: {
      server: string;
      reason: 'deadline' | 'aborted';
      waitedMs: number;
      lastCause: string | undefined;
      lastError: unknown;
    },
    options?: { cause?: unknown },
  ) {
    const server = displayServer(details.server);
    const why =
      details.reason === 'deadline'
        ? `startTimeoutMs passed (${Math.round(details.waitedMs)} ms)`
        : `the start was aborted after ${Math.round(details.waitedMs)} ms`;
    const last =
      details.lastCause === undefined
        ? 'no answer yet'
        : `last failure: ${details.lastCause}${details.lastError === undefined ? '' : ` (${errorMessage(details.lastError)})`}`;
    super(
      'LASSO_API_SERVER_UNAVAILABLE',
      `gave up waiting for the API server at ${server} to answer /version: ${why}; ${last}`,
      options,
    );
    this.name = 'ApiServerUnavailableError';
    this.server = server;
    this.reason = details.reason;
    this.lastCause = details.lastCause;
  }
}

/**
 * The cause of a failed health ping: `'connection refused'` (nothing listens: ECONNREFUSED), `'DNS lookup
 * failed'` (ENOTFOUND, EAI_AGAIN), `'TLS failure'` (a certificate or handshake error), `'unauthorized (401)'`
 * (credentials refused), `'forbidden (403)'`, `'timed out'`, `'connection reset'` (the server or a proxy closed
 * the connection), `'HTTP <status>'` for any other answer, else `'unreachable'`.
 *
 * @internal
 */
export function apiServerFailureCause(error: unknown): string {
  // The client wraps undici's error (LASSO_CONNECTION_FAILED) whose cause chain holds the errno code.
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    try {
      if (isApiError(current)) {
        if (current.status === 401) return 'unauthorized (401)';
        if (current.status === 403) return 'forbidden (403)';
        return `HTTP ${current.status}`;
      }
      const { code, name } = current as { code?: unknown; name?: unknown };
      const text = typeof code === 'string' ? code : '';
      if (text === 'ECONNREFUSED') return 'connection refused';
      if (text === 'ENOTFOUND' || text === 'EAI_AGAIN' || text === 'EAI_NODATA')
        return 'DNS lookup failed';
      if (tlsCodes.test(text)) return 'TLS failure';
      if (text === 'ECONNRESET' || text === 'EPIPE' || text === 'UND_ERR_SOCKET')
        return 'connection reset';
      if (
        text === 'LASSO_TIMEOUT' ||
        text === 'ETIMEDOUT' ||
        text === 'UND_ERR_CONNECT_TIMEOUT' ||
        name === 'TimeoutError'
      )
        return 'timed out';
      current = (current as { cause?: unknown }).cause;
    } catch {
      // A hostile value (a revoked Proxy) says nothing more.
      break;
    }
  }
  return 'unreachable';
}

// OpenSSL's and Node's certificate and handshake codes.
const tlsCodes =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|ERR_OSSL_|EPROTO$)/;

/**
 * @internal The server URL for a log line or an error: scheme, host, port and path, never a user or password a URL may
 * carry (`https://user:secret@host` logs as `https://host`), nor a query.
 */
export function displayServer(server: string): string {
  try {
    const url = new URL(server);
    return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return '(unparsable server URL)';
  }
}
