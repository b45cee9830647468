// The errors of @lasso/webhook, with stable codes.
import { LassoError } from '@lasso/core';

declare module '@lasso/core' {
  interface LassoErrorCodes {
    /** A closed webhook server was started: a {@link WebhookClosedError}. */
    LASSO_WEBHOOK_CLOSED: WebhookClosedError;
    /** The serving certificate or key could not be read or does not load: a {@link WebhookTlsError}. */
    LASSO_WEBHOOK_TLS: WebhookTlsError;
    /** The server could not listen on its address and port: a {@link WebhookListenError}. */
    LASSO_WEBHOOK_LISTEN: WebhookListenError;
    /** A request body is not an AdmissionReview or ConversionReview the server can answer: a {@link MalformedReviewError}. */
    LASSO_WEBHOOK_MALFORMED_REVIEW: MalformedReviewError;
  }
}

/**
 * A webhook server was started after `close()` (code `LASSO_WEBHOOK_CLOSED`): it cannot run again.
 *
 * @example
 * ```ts
 * declare const server: WebhookServer;
 * await server.close();
 * await server.start(new AbortController().signal).catch((error: unknown) => isLassoError(error, 'LASSO_WEBHOOK_CLOSED'));
 * ```
 */
export class WebhookClosedError extends LassoError {
  constructor() {
    super('LASSO_WEBHOOK_CLOSED', 'the webhook server is closed');
  }
}

/**
 * The serving certificate or key could not be read, or node:tls refused them (code `LASSO_WEBHOOK_TLS`): thrown by
 * `start()`. A reload that fails later is logged and keeps the previous certificate instead.
 *
 * @example
 * ```ts
 * declare const server: WebhookServer;
 * await server.start(new AbortController().signal).catch((error: unknown) => isLassoError(error, 'LASSO_WEBHOOK_TLS'));
 * ```
 */
export class WebhookTlsError extends LassoError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('LASSO_WEBHOOK_TLS', message, options);
  }
}

/**
 * The server could not listen (code `LASSO_WEBHOOK_LISTEN`): the port is taken or the address is not local.
 * Thrown by `start()`.
 *
 * @example
 * ```ts
 * declare const server: WebhookServer;
 * await server.start(new AbortController().signal).catch((error: unknown) => isLassoError(error, 'LASSO_WEBHOOK_LISTEN'));
 * ```
 */
export class WebhookListenError extends LassoError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('LASSO_WEBHOOK_LISTEN', message, options);
  }
}

/**
 * A request body that is not a review the server can answer (code `LASSO_WEBHOOK_MALFORMED_REVIEW`): the server
 * answers it with HTTP 400 and this message.
 *
 * @example
 * ```ts
 * const error = new MalformedReviewError('request.uid must be a non-empty string');
 * error.code; // 'LASSO_WEBHOOK_MALFORMED_REVIEW'
 * ```
 */
export class MalformedReviewError extends LassoError {
  constructor(message: string) {
    super('LASSO_WEBHOOK_MALFORMED_REVIEW', message);
  }
}
