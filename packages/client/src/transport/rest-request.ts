// The request a RestTransport sends and what it answers (client-go rest.Request's inputs).
import type { Dispatcher } from 'undici';
import type { Impersonation } from '../config/rest-config.ts';

/** Query parameters; undefined values are left out. */
export type QueryParams = Record<string, string | number | boolean | undefined>;

/** One API request as the transport sends it. */
export interface RestRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** API path, e.g. `/api/v1/namespaces/default/pods` (the server's path prefix is added). */
  path: string;
  query?: QueryParams | undefined;
  /** Request body: a string is sent as is, anything else as JSON. */
  body?: unknown;
  /** Content-Type of the body (default `application/json`). */
  contentType?: string | undefined;
  /**
   * Total deadline of each attempt, in ms (0: none); replaces the policy's default, which is the
   * config's `timeoutMs` for a short request and none for a list (see `TIMEOUT_POLICY`). Ignored by
   * `stream` (watch).
   */
  timeoutMs?: number | undefined;
  /**
   * Progress deadline of each attempt, in ms (0: none): fail when no response bytes arrived for this
   * long. Replaces the policy's default, which is the config's `progressTimeoutMs` for a list and none
   * for a short request. Ignored by `stream` (watch).
   */
  progressTimeoutMs?: number | undefined;
  /**
   * `requestJson` only: the answer is a list, decoded as it arrives, each element of its `items` replaced by what
   * this returns for it as soon as the element is in (a gzip answer is decoded whole, then each item passed).
   */
  decodeListItem?: ((item: unknown) => unknown) | undefined;
  signal?: AbortSignal | undefined;
  /** Replaces the User-Agent of the config. */
  userAgent?: string | undefined;
  /** Replaces the impersonation of the config. */
  impersonation?: Impersonation | undefined;
  /** Replaces the config's `maxResponseBytes` for this request ({@link RestTransport.requestJson}). */
  maxResponseBytes?: number | undefined;
  /**
   * The Accept header (default `application/json`), e.g. `application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`
   * for a metadata-only list.
   */
  accept?: string | undefined;
}

/** A streaming response (watch): status 2xx, the body still to be read. */
export interface StreamResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  /** The undici body: an async iterable of Buffers; destroy it when done. */
  body: Dispatcher.ResponseData['body'];
}

/** A client-side request limiter: `take` resolves when a request may be sent. */
export interface RequestRateLimiter {
  take(options: { signal?: AbortSignal | undefined }): Promise<unknown>;
}

/** `?a=1&b=2` of `query` (undefined values left out), or `''`. */
export function queryString(query: QueryParams | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.append(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
