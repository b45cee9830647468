// Authentication (client certificates, bearer tokens, anonymous) of the local API server, as
// kube-apiserver's filter chain does it; impersonation is its own filter (filters/impersonation.ts), and what
// a user may then do is the RBAC authorizer's call (rbac/authorizer.ts).
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { unauthorized } from '../apimachinery/status.ts';

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
