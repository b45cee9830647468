// As kube's filter chain: the request is classified once (RequestInfo), then authorized on that
// classification before routing (403 before 404 or 405); the router and handlers read the same
// classification from `exchange.info`.
import { authorizationAttributes } from '../rbac/attributes.ts';
import type { Authorizer } from '../rbac/authorizer.ts';
import { requestInfo } from '../request/request-info.ts';
import type { Filter } from './chain.ts';

/** Sets `exchange.info` and throws kube's 403 when RBAC does not allow the request. */
export function withAuthorization(authorizer: Pick<Authorizer, 'check'>): Filter {
  return (next) => async (exchange) => {
    const info = requestInfo(exchange.method, exchange.url);
    authorizer.check(authorizationAttributes(info, exchange.user));
    exchange.info = info;
    await next(exchange);
  };
}
