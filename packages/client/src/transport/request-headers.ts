// The headers every request carries besides authentication: Accept, User-Agent, Content-Type and
// impersonation (client-go transport's userAgentRoundTripper and impersonatingRoundTripper).
import type { Impersonation } from '../config/rest-config.ts';

/**
 * Headers of one request: `Accept` (`application/json` unless `accept` says otherwise), the User-Agent, the body's Content-Type
 * (default `application/json`) and the `Impersonate-*` headers of `impersonation`.
 */
export function requestHeaders(options: {
  userAgent: string;
  contentType: string | undefined;
  hasBody: boolean;
  impersonation: Impersonation | undefined;
  accept?: string | undefined;
}): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {
    accept: options.accept ?? 'application/json',
    'user-agent': options.userAgent,
  };
  if (options.hasBody) headers['content-type'] = options.contentType ?? 'application/json';
  const who = options.impersonation;
  if (who !== undefined) {
    headers['impersonate-user'] = who.user;
    if (who.uid !== undefined) headers['impersonate-uid'] = who.uid;
    if (who.groups !== undefined && who.groups.length > 0)
      headers['impersonate-group'] = who.groups;
    for (const [key, values] of Object.entries(who.extra ?? {})) {
      headers[`impersonate-extra-${encodeURIComponent(key).toLowerCase()}`] = values;
    }
  }
  return headers;
}
