// Authentication then impersonation (kube's WithAuthentication and WithImpersonation): the client
// certificate or bearer token names the user (anonymous without either), and Impersonate-* headers
// switch to another user when the authorizer allows it.

import { badRequest } from '../apimachinery/status.ts';
import {
  anonymousUser,
  authenticate,
  ImpersonationError,
  impersonate,
  type RequestAuthorizer,
  type UserInfo,
} from '../authentication/authenticate.ts';
import type { Filter } from './chain.ts';

/** What the authentication filter needs of the server. */
export interface AuthenticationFilterOptions {
  /** The user a bearer token stands for; undefined for an unknown token (401). */
  userForToken(token: string): UserInfo | undefined;
  /** Decides whether the user may impersonate. */
  readonly authorizer: RequestAuthorizer;
}

/** Sets `exchange.user`. */
export function withAuthentication(options: AuthenticationFilterOptions): Filter {
  return (next) => async (exchange) => {
    const user =
      authenticate(exchange.request, (token) => options.userForToken(token)) ?? anonymousUser;
    try {
      exchange.user = impersonate(exchange.request, user, options.authorizer);
    } catch (error) {
      if (error instanceof ImpersonationError) throw badRequest(error.message);
      throw error;
    }
    await next(exchange);
  };
}
