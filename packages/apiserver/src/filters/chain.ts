// The request chain of the server, as kube-apiserver's pkg/endpoints/filters composes it: each filter
// wraps the next handler, reads or fills the exchange, and may answer (or throw a StatusError) instead of
// calling on.
import type * as http from 'node:http';
import type { UserInfo } from '../authentication/authenticate.ts';
import type { RequestInfo } from '../request/request-info.ts';
import type { RequestTarget } from '../request/request-target.ts';

/** One request on its way through the chain; filters fill the later fields. */
export interface Exchange {
  readonly request: http.IncomingMessage;
  readonly response: http.ServerResponse;
  /** Upper-cased method. */
  readonly method: string;
  /** The target as sent (dot segments kept, percent-decoded): request-target.ts. */
  readonly url: RequestTarget;
  /** Bytes of the answer to write before the connection is cut (an injected fault); undefined: all. */
  cutAfter: number | undefined;
  /** The request body, once read (empty until then). */
  body: Buffer;
  /** Who is asking, once authenticated (and impersonated); anonymous until then. */
  user: UserInfo;
  /** The request classified once (kube's RequestInfo), once authenticated. */
  info: RequestInfo | undefined;
}

/** Serves an exchange (the end of the chain, or a filter with what follows it). */
export type ExchangeHandler = (exchange: Exchange) => Promise<void>;

/** Wraps the handler that follows it. */
export type Filter = (next: ExchangeHandler) => ExchangeHandler;

/** `filters` around `handler`, the first outermost: `[a, b]` runs a, then b, then the handler. */
export function composeFilters(
  filters: readonly Filter[],
  handler: ExchangeHandler,
): ExchangeHandler {
  return filters.reduceRight<ExchangeHandler>((next, filter) => filter(next), handler);
}
