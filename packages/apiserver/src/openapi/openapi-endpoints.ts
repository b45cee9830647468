// The /openapi routes of the local API server, answered as kube-openapi's handlers answer them: the v3 root,
// each v3 group-version document (JSON; with `?hash=` matching the current content it is immutable and
// cacheable for a year, with a stale hash it redirects to the current URL) and the v2 document (JSON).
// Every answer carries its ETag; a matching If-None-Match answers 304.
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestTarget } from '../request/request-target.ts';
import type { OpenApiPublisher, OpenApiSource, RenderedDocument } from './documents.ts';

/** The parts of a request the OpenAPI routes read. */
export interface OpenApiRequest {
  method: string;
  url: RequestTarget;
  headers: IncomingHttpHeaders;
}

/** An OpenAPI answer: the server writes it as is (Cache-Control given here replaces its default). */
export interface OpenApiResponse {
  code: number;
  contentType: string;
  headers: Record<string, string>;
  /** Text, or the bytes of a protobuf document. */
  body: string | Uint8Array;
}

/** The media types kube-openapi answers the v2 document in protobuf for (the first is client-go's). */
const v2Protobuf = [
  'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
  'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
];
/**
 * The Content-Type of that answer: kube-openapi names the deprecated `@` form's content with the dotted
 * one, since Go's media-type parser (client-go reads the response type) refuses an `@` in a subtype.
 */
const v2ProtobufContentType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** What the routes read besides the request. */
export interface OpenApiContext extends OpenApiSource {
  publisher: OpenApiPublisher;
  /** Milliseconds since the epoch (the server's clock), for the Expires header of hash URLs. */
  now(): number;
}

interface MediaRange {
  type: string;
  subtype: string;
}

function mediaRanges(accept: string | undefined): MediaRange[] {
  const text = accept === undefined || accept.trim() === '' ? '*/*' : accept;
  return text
    .split(',')
    .map((clause) => clause.split(';')[0]!.trim().toLowerCase())
    .filter((clause) => clause !== '')
    .map((clause) => {
      const [type = '', subtype = ''] = clause.split('/');
      return { type, subtype };
    });
}

/** True when a clause of `accept` (in order) admits JSON before any other type the route offers. */
function acceptsJson(accept: string | undefined): boolean {
  return mediaRanges(accept).some(
    (range) =>
      (range.type === 'application' || range.type === '*') &&
      (range.subtype === 'json' || range.subtype === '*'),
  );
}

function notModified(request: OpenApiRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (header === undefined) return false;
  return header.split(',').some((candidate) => {
    const trimmed = candidate.trim();
    return trimmed === '*' || trimmed === etag || trimmed === `W/${etag}`;
  });
}

function document(
  request: OpenApiRequest,
  rendered: RenderedDocument,
  headers: Record<string, string>,
): OpenApiResponse {
  const etag = `"${rendered.hash}"`;
  const allHeaders = { ETag: etag, ...headers };
  if (notModified(request, etag)) {
    return { code: 304, contentType: 'application/json', headers: allHeaders, body: '' };
  }
  return { code: 200, contentType: 'application/json', headers: allHeaders, body: rendered.json };
}

function text(code: number, body: string, headers: Record<string, string> = {}): OpenApiResponse {
  return { code, contentType: 'text/plain; charset=utf-8', headers, body };
}

/** Expires one year after `now`, in the RFC 1123 form Go's `time.RFC1123` writes (`GMT` zone). */
function oneYearAfter(now: number): string {
  const date = new Date(now);
  date.setUTCFullYear(date.getUTCFullYear() + 1);
  return date.toUTCString();
}

/** Answer `request` when it is an /openapi path; undefined for every other path. */
export function routeOpenApi(
  request: OpenApiRequest,
  context: OpenApiContext,
): OpenApiResponse | undefined {
  const path = request.url.pathname.replace(/\/+$/, '');
  if (path !== '/openapi/v2' && path !== '/openapi/v3' && !path.startsWith('/openapi/v3/')) {
    return undefined;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return text(405, 'Method Not Allowed');
  }
  const accept = request.headers.accept;
  if (path === '/openapi/v2') {
    // The first clause naming a form we serve decides, as kube-openapi's negotiation does.
    for (const range of mediaRanges(accept)) {
      const type = `${range.type}/${range.subtype}`;
      if (v2Protobuf.includes(type)) {
        const protobuf = v2ProtobufContentType;
        const encoded = context.publisher.v2Protobuf(context);
        const etag = `"${encoded.hash}"`;
        const headers = { ETag: etag, Vary: 'Accept' };
        if (notModified(request, etag)) {
          return { code: 304, contentType: protobuf, headers, body: '' };
        }
        return { code: 200, contentType: protobuf, headers, body: encoded.bytes };
      }
      if (acceptsJson(type)) {
        return document(request, context.publisher.v2(context), { Vary: 'Accept' });
      }
    }
    return text(406, 'Not Acceptable', { Vary: 'Accept' });
  }
  if (path === '/openapi/v3') {
    return document(request, context.publisher.root(context), {});
  }
  const key = path.slice('/openapi/v3/'.length);
  const rendered = context.publisher.groupVersion(context, key);
  if (rendered === undefined) return text(404, '404 page not found');
  if (!acceptsJson(accept)) return text(406, 'Not Acceptable', { Vary: 'Accept' });
  const hash = request.url.searchParams.get('hash');
  if (hash !== null && hash !== '') {
    if (hash !== rendered.hash) {
      const location = `/openapi/v3/${key}?hash=${rendered.hash}`;
      return text(301, `<a href="${location}">Moved Permanently</a>.\n`, {
        Location: location,
        Vary: 'Accept',
      });
    }
    return document(request, rendered, {
      Vary: 'Accept',
      'Cache-Control': 'public, immutable',
      Expires: oneYearAfter(context.now()),
    });
  }
  return document(request, rendered, { Vary: 'Accept' });
}
