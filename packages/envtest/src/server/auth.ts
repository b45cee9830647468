// Authentication (client certificates, bearer tokens, impersonation) and the all-or-nothing authorizer
// of the local API server, observably like kube-apiserver with RBAC and only system:masters bound.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { forbidden, unauthorized } from './status.ts';

/** An authenticated user. */
export interface UserInfo {
  name: string;
  groups: string[];
}

/** The group that may do anything (kube-apiserver's superuser group). */
export const mastersGroup = 'system:masters';

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
      return { name: commonName, groups: [...asList(subject?.O), 'system:authenticated'] };
    }
  }
  return undefined;
}

/** Apply Impersonate-User / Impersonate-Group headers; only system:masters may impersonate. */
export function impersonate(request: IncomingMessage, user: UserInfo): UserInfo {
  const headers = request.headersDistinct;
  const impersonatedUser = headers['impersonate-user']?.[0];
  const impersonatedGroups = headers['impersonate-group'] ?? [];
  if (impersonatedUser === undefined) {
    if (impersonatedGroups.length > 0) {
      throw new ImpersonationError('requested impersonation of groups without a user');
    }
    return user;
  }
  if (!user.groups.includes(mastersGroup)) {
    throw forbidden({
      user: user.name,
      verb: 'impersonate',
      resource: 'users',
      group: '',
      name: impersonatedUser,
    });
  }
  return { name: impersonatedUser, groups: [...impersonatedGroups, 'system:authenticated'] };
}

/** A malformed impersonation request (kube-apiserver answers 500 with this message; we send 400). */
export class ImpersonationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImpersonationError';
  }
}

/** Throws 403 unless `user` may perform the request. */
export function authorize(
  user: UserInfo,
  attributes: {
    verb: string;
    resource: string;
    subresource?: string | undefined;
    group: string;
    namespace?: string | undefined;
    name?: string | undefined;
  },
): void {
  if (user.groups.includes(mastersGroup)) return;
  throw forbidden({ user: user.name, ...attributes });
}
