// Authentication (client certificates, bearer tokens, anonymous) and impersonation of the local API
// server, as kube-apiserver's filter chain does them; what a user may then do is the RBAC authorizer's
// call (rbac/authorizer.ts).
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { unauthorized } from '../apimachinery/status.ts';
import type { AuthorizationAttributes } from '../rbac/attributes.ts';

/** An authenticated user. */
export interface UserInfo {
  name: string;
  groups: string[];
}

/** The group that may do anything (kube-apiserver's superuser group). */
export const mastersGroup = 'system:masters';
/** Every authenticated user is in this group. */
export const authenticatedGroup = 'system:authenticated';
/** Every anonymous request is in this group. */
export const unauthenticatedGroup = 'system:unauthenticated';

/**
 * The user of a request without credentials: kube-apiserver's default `--anonymous-auth=true` lets it
 * through as system:anonymous, and RBAC decides (the bootstrap policy lets it read health and version).
 */
export const anonymousUser: UserInfo = {
  name: 'system:anonymous',
  groups: [unauthenticatedGroup],
};

/** Anything that decides whether a request is allowed, with kube's reason and 403. */
export interface RequestAuthorizer {
  /** Throws kube's 403 Forbidden unless the request is allowed. */
  check(attributes: AuthorizationAttributes): void;
}

function asList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  if (typeof value === 'string') return [value];
  return [];
}

/**
 * The user a request authenticates as, or undefined when it carries no credentials.
 * Throws 401 for a bearer token the server does not know.
 */
export function authenticate(
  request: IncomingMessage,
  lookupToken: (token: string) => UserInfo | undefined,
): UserInfo | undefined {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    const user = match === null ? undefined : lookupToken(match[1]!);
    if (user === undefined) throw unauthorized();
    return user;
  }
  const socket = request.socket as TLSSocket;
  if (typeof socket.getPeerCertificate === 'function' && socket.authorized) {
    const certificate = socket.getPeerCertificate();
    const subject = certificate?.subject as Record<string, unknown> | undefined;
    const commonName = asList(subject?.CN)[0];
    if (commonName !== undefined) {
      return { name: commonName, groups: [...asList(subject?.O), authenticatedGroup] };
    }
  }
  return undefined;
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
