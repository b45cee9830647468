// Impersonation (kube's WithImpersonation), after authentication: Impersonate-User and Impersonate-Group
// headers switch the request to another user when the authorizer lets the authenticated one impersonate.
import type { IncomingMessage } from 'node:http';
import { badRequest } from '../apimachinery/status.ts';
import {
  anonymousUser,
  authenticatedGroup,
  type UserInfo,
  unauthenticatedGroup,
} from '../authentication/authenticate.ts';
import type { AuthorizationAttributes } from '../rbac/attributes.ts';
import type { Filter } from './chain.ts';

/** Anything that decides whether a request is allowed, with kube's reason and 403. */
export interface RequestAuthorizer {
  /** Throws kube's 403 Forbidden unless the request is allowed. */
  check(attributes: AuthorizationAttributes): void;
}

/** Replaces `exchange.user` with the impersonated user when the request asks for one and may. */
export function withImpersonation(authorizer: RequestAuthorizer): Filter {
  return (next) => async (exchange) => {
    try {
      exchange.user = impersonate(exchange.request, exchange.user, authorizer);
    } catch (error) {
      if (error instanceof ImpersonationError) throw badRequest(error.message);
      throw error;
    }
    await next(exchange);
  };
}

const serviceAccountUser = /^system:serviceaccount:([^:]+):([^:]+)$/;

/**
 * Apply the Impersonate-User / Impersonate-Group headers. Each impersonated name must be allowed to
 * `user` by `authorizer` (verb `impersonate` on `users`, `serviceaccounts` or `groups`, with the name),
 * checked in kube's order: the user, then each group. The impersonated user is in system:authenticated
 * (system:unauthenticated for system:anonymous) unless the groups asked say otherwise, and an impersonated
 * service account gets its service-account groups when no group is asked.
 */
export function impersonate(
  request: IncomingMessage,
  user: UserInfo,
  authorizer: RequestAuthorizer,
): UserInfo {
  const headers = request.headersDistinct;
  const impersonatedUser = headers['impersonate-user']?.[0];
  const impersonatedGroups = headers['impersonate-group'] ?? [];
  if (impersonatedUser === undefined) {
    if (impersonatedGroups.length > 0) {
      throw new ImpersonationError('requested impersonation of groups without a user');
    }
    return user;
  }
  const check = (resource: string, name: string, namespace = ''): void =>
    authorizer.check({
      user,
      verb: 'impersonate',
      group: '',
      version: '',
      resource,
      subresource: '',
      namespace,
      name,
    });
  let groups = [...impersonatedGroups];
  const account = serviceAccountUser.exec(impersonatedUser);
  if (account !== null) {
    check('serviceaccounts', account[2]!, account[1]!);
    if (groups.length === 0) {
      groups = ['system:serviceaccounts', `system:serviceaccounts:${account[1]!}`];
    }
  } else {
    check('users', impersonatedUser);
  }
  for (const group of impersonatedGroups) check('groups', group);
  if (impersonatedUser === anonymousUser.name) {
    if (!groups.includes(unauthenticatedGroup)) groups.push(unauthenticatedGroup);
  } else if (!groups.includes(authenticatedGroup) && !groups.includes(unauthenticatedGroup)) {
    groups.push(authenticatedGroup);
  }
  return { name: impersonatedUser, groups };
}

/** A malformed impersonation request (kube-apiserver answers 500 with this message; we send 400). */
export class ImpersonationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImpersonationError';
  }
}
