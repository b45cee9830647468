// Authentication (kube's WithAuthentication): the client certificate or bearer token names the user
// (anonymous without either); impersonation follows as its own filter (impersonation.ts).
import { anonymousUser, authenticate, type UserInfo } from '../authentication/authenticate.ts';
import type { Filter } from './chain.ts';

/** What the authentication filter needs of the server. */
export interface AuthenticationFilterOptions {
  /** The user a bearer token stands for; undefined for an unknown token (401). */
  userForToken(token: string): UserInfo | undefined;
}

/** Sets `exchange.user`. */
export function withAuthentication(options: AuthenticationFilterOptions): Filter {
  return (next) => async (exchange) => {
    exchange.user =
      authenticate(exchange.request, (token) => options.userForToken(token)) ?? anonymousUser;
    await next(exchange);
  };
}
