// ServiceAccounts and their TokenRequest subresource.

import { decodeBody } from '../decoding/decode.ts';
import type { ApiRequest, ApiResult, ServerContext } from '../registry/server-context.ts';
import type { Strategy } from '../registry/strategy.ts';
import type { ResourceRequestInfo } from '../request/request-info.ts';
import { builtinStrategy } from './builtin-strategy.ts';

/** ServiceAccount strategy: only the fields the type has. */
export const serviceAccountStrategy: Strategy = {
  ...builtinStrategy,
  topLevelFields: ['secrets', 'imagePullSecrets', 'automountServiceAccountToken'],
};

/** TokenRequest (serviceaccounts/token): a token bound to the account, issued by authentication/service-account-tokens.ts. */
export function createTokenRequest(
  context: ServerContext,
  request: ResourceRequestInfo,
  raw: ApiRequest,
): ApiResult {
  const body = context.tokens.issue(request.namespace ?? '', request.name ?? '', decodeBody(raw));
  return { type: 'json', code: 201, body };
}
