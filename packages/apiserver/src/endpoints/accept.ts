// Whether the server can write any type a request's Accept header names, checked where kube-apiserver
// checks it: built-in kinds, discovery and /version by their go-restful routes' `Produces` (a 406 of
// the router's), custom resources by the handler's own content negotiation (a 406 listing its types).
// Both come after routing (404, 405) and before the handler (so before a 404 for a missing object).

import { notAcceptable } from '../apimachinery/status.ts';
import type { ApiRequest } from '../registry/server-context.ts';

/** What every route and the custom resource handler can write. */
const produced = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/** The request's Accept header as one string (repeated headers joined as one list). */
export function acceptOf(request: ApiRequest): string | undefined {
  const accept = request.headers.accept;
  return Array.isArray(accept) ? accept.join(',') : accept;
}

/**
 * go-restful's route match: an empty header passes; otherwise some clause, its parameters and spaces
 * dropped, must be `*\/*` or one of the produced types, compared case-sensitively (`application/*`
 * matches no route). Throws the router's 406.
 */
export function requireRouteAcceptable(request: ApiRequest): void {
  const accept = acceptOf(request);
  if (accept === undefined || accept === '') return;
  const matched = accept.split(',').some((clause) => {
    const type = (clause.split(';')[0] ?? '').trim();
    return type === '*/*' || produced.includes(type);
  });
  if (!matched) throw notAcceptable();
}

/**
 * Content negotiation as kube's handlers run it for custom resources: some clause whose q is not 0 must
 * name a produced type, wildcards allowed (`*\/*`, `application/*`), case-insensitively. Clauses that
 * ask for a transformed form (`as=Table`) are printers/table-negotiation.ts's to judge. Throws the 406 listing the types.
 */
export function requireNegotiable(request: ApiRequest): void {
  const accept = acceptOf(request);
  if (accept === undefined || accept.trim() === '') return;
  const matched = accept.split(',').some((clause) => {
    const [range = '', ...parameters] = clause.split(';').map((part) => part.trim());
    const q = parameters.find((parameter) => /^q\s*=/i.test(parameter));
    if (q !== undefined && Number(q.replace(/^q\s*=/i, '')) === 0) return false;
    const [type = '', subtype = ''] = range.toLowerCase().split('/');
    return produced.some((candidate) => {
      const [candidateType, candidateSubtype] = candidate.split('/');
      return (
        (type === '*' || type === candidateType) &&
        (subtype === '*' || subtype === candidateSubtype)
      );
    });
  });
  if (!matched) throw notAcceptable(produced);
}
