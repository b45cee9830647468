// The outermost filter: whatever the chain throws becomes kube's Status answer (a StatusError as it is, any
// other failure a logged 500), as kube-apiserver's handlers write errors through responsewriters.ErrorNegotiated.
import { errorMessage, type Logger } from '@lasso/core';
import { internalError, StatusError } from '../apimachinery/status.ts';
import { sendResponse } from '../endpoints/response-writer.ts';
import type { Filter } from './chain.ts';

/** Answers a thrown StatusError with its Status; logs anything else and answers 500. */
export function withStatusErrors(logger: Logger): Filter {
  return (next) => async (exchange) => {
    try {
      await next(exchange);
    } catch (error) {
      let statusError: StatusError;
      if (error instanceof StatusError) statusError = error;
      else {
        logger.error('request failed', {
          method: exchange.method,
          path: exchange.url.pathname,
          error: errorMessage(error),
        });
        statusError = internalError(errorMessage(error));
      }
      sendResponse(exchange, {
        code: statusError.code,
        contentType: 'application/json',
        body: JSON.stringify(statusError.status),
        headers: { ...statusError.headers },
      });
      // A body refused for its size is still arriving: drain it so the answer reaches the client.
      if (statusError.code === 413) exchange.request.resume();
    }
  };
}
