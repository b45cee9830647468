import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { describe, expect, it } from 'vitest';
import { Registry } from '../resources/served-resources.ts';
import { testTypes } from './__fixtures__/types.ts';
import { OpenApiPublisher } from './documents.ts';
import { type OpenApiContext, routeOpenApi } from './openapi-endpoints.ts';

const now = Date.UTC(2026, 0, 2, 3, 4, 5);
const context: OpenApiContext = {
  publisher: new OpenApiPublisher({ types: testTypes, version: 'v1.33.0' }),
  registry: new Registry(),
  crds: () => [],
  now: () => now,
};

function get(path: string, headers: Record<string, string> = {}) {
  return routeOpenApi({ method: 'GET', url: new URL(path, 'https://server'), headers }, context);
}

describe('routeOpenApi', () => {
  it('leaves other paths alone', () => {
    expect(get('/api/v1')).toBeUndefined();
    expect(get('/openapi')).toBeUndefined();
  });

  it('serves the v3 root with an ETag', () => {
    const root = get('/openapi/v3')!;
    expect(root.code).toBe(200);
    expect(root.contentType).toBe('application/json');
    expect(root.headers.ETag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(JSON.parse(root.body as string).paths['api/v1'].serverRelativeURL).toMatch(
      /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/,
    );
  });

  it('answers the hash URL as immutable for a year and redirects a stale hash', () => {
    const url = JSON.parse(get('/openapi/v3')!.body as string).paths['apis/apps/v1']
      .serverRelativeURL;
    const current = get(url, { accept: 'application/json' })!;
    expect(current.code).toBe(200);
    expect(current.headers['Cache-Control']).toBe('public, immutable');
    expect(current.headers.Expires).toBe('Sat, 02 Jan 2027 03:04:05 GMT');
    expect(current.headers.ETag).toBe(`"${url.slice(url.indexOf('=') + 1)}"`);
    const stale = get('/openapi/v3/apis/apps/v1?hash=0123')!;
    expect(stale.code).toBe(301);
    expect(stale.headers.Location).toBe(url);
    const plain = get('/openapi/v3/apis/apps/v1')!;
    expect(plain.code).toBe(200);
    expect(plain.headers['Cache-Control']).toBeUndefined();
  });

  it('answers 304 to a matching If-None-Match', () => {
    const first = get('/openapi/v3/api/v1')!;
    const second = get('/openapi/v3/api/v1', { 'if-none-match': first.headers.ETag! })!;
    expect(second.code).toBe(304);
    expect(second.body).toBe('');
  });

  it('answers 404 for a group-version not served, v2 in protobuf or JSON as asked, 406 otherwise', () => {
    expect(get('/openapi/v3/apis/nothing.example.com/v1')!.code).toBe(404);
    const type = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
    const protobuf = get('/openapi/v2', { accept: type })!;
    expect(protobuf.code).toBe(200);
    expect(protobuf.contentType).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(protobuf.body).toBeInstanceOf(Uint8Array);
    // Document.swagger (field 1) comes first.
    const reader = new BinaryReader(protobuf.body as Uint8Array);
    expect(reader.tag()).toEqual([1, WireType.LengthDelimited]);
    expect(reader.string()).toBe('2.0');
    const again = get('/openapi/v2', { accept: type, 'if-none-match': protobuf.headers.ETag! })!;
    expect(again.code).toBe(304);
    expect(get('/openapi/v2', { accept: 'text/html' })!.code).toBe(406);
    const json = get('/openapi/v2', { accept: 'application/json' })!;
    expect(json.code).toBe(200);
    expect(JSON.parse(json.body as string).swagger).toBe('2.0');
  });

  it('refuses writes', () => {
    const reply = routeOpenApi(
      { method: 'POST', url: new URL('https://server/openapi/v3'), headers: {} },
      context,
    )!;
    expect(reply.code).toBe(405);
  });
});
