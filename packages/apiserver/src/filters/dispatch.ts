// The end of the chain: the classified, authorized request goes to the API (routing, then one handler per
// verb) and its result is written: JSON, text, a pre-serialised document, or a watch stream.
import type { ApiCore } from '../endpoints/dispatcher.ts';
import { modulesFor } from '../endpoints/lazy-modules.ts';
import { sendResponse } from '../endpoints/response-writer.ts';
import type { WatchStreams } from '../endpoints/watch-stream.ts';
import type { ExchangeHandler } from './chain.ts';

/** Hands the request to `api` and writes what it answers. */
export function dispatch(
  api: Pick<ApiCore, 'handleAdmitted'>,
  watches: WatchStreams,
): ExchangeHandler {
  return async (exchange) => {
    const { info, method, url, request, body, user } = exchange;
    if (info === undefined) throw new Error('dispatch before authorization classified the request');
    // The CEL engine and the YAML parser load on first use (endpoints/lazy-modules.ts).
    const loading = modulesFor(request.headers, url, body);
    if (loading !== undefined) await loading;
    const result = await api.handleAdmitted(info, {
      method,
      url,
      headers: request.headers,
      body,
      user,
    });
    switch (result.type) {
      case 'watch':
        watches.serve(result.plan, exchange.response, exchange.cutAfter);
        return;
      case 'raw':
        sendResponse(exchange, result);
        return;
      case 'text':
        sendResponse(exchange, {
          ...result,
          contentType: 'text/plain; charset=utf-8',
          headers: {},
        });
        return;
      default:
        sendResponse(exchange, {
          code: result.code,
          contentType: 'application/json',
          body: JSON.stringify(result.body),
          headers:
            result.warnings === undefined || result.warnings.length === 0
              ? {}
              : { Warning: [...result.warnings] },
        });
    }
  };
}
