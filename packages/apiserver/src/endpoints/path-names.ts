// The check kube's key functions make of a name taken from the request path (registry/generic
// NamespaceKeyFunc and NoNamespaceKeyFunc: path.IsValidPathSegmentName): `.`, `..` and names holding `/` or
// `%` are a 400 before any storage is read, so no such name ever addresses another object.

import { pathSegmentNameMessages } from '../apimachinery/name-validation.ts';
import { badRequest } from '../apimachinery/status.ts';
import type { ResourceRequestInfo } from '../request/request-info.ts';

/**
 * Throw kube's 400 `Name parameter invalid: "..": may not be '..'` for a request whose path names an
 * object by a name that cannot be a path segment. Not checked where kube does not check either: a
 * Scale (kube answers any failure to read the object as 404 `deployments/scale "x" not found`) and a
 * watch through the deprecated `/watch/` path (the name only selects, as a field selector does).
 */
export function requireValidPathName(request: ResourceRequestInfo): void {
  const { name } = request;
  if (name === undefined || request.subresource === 'scale') return;
  if (/^\/(?:api\/[^/]+|apis\/[^/]+\/[^/]+)\/watch\//.test(request.path)) return;
  const messages = pathSegmentNameMessages(name);
  if (messages.length > 0) {
    throw badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${messages.join(';')}`);
  }
}
