import { LassoError } from '@lasso/core';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  isAlreadyExists,
  isApiError,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isResourceExpired,
  isServerTimeout,
  isTooManyRequests,
  isUnauthorized,
} from './errors.ts';
import { apiErrorFrom } from './transport/error-mapping.ts';
import { decodeWatchEvent } from './watch.ts';

const GUARDS = {
  isNotFound,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isGone,
  isResourceExpired,
  isTooManyRequests,
  isForbidden,
  isUnauthorized,
  isServerTimeout,
  isBadRequest,
} as const;
type Guard = keyof typeof GUARDS;

/** The names of the guards that accept `error`. */
const accepted = (error: unknown): Guard[] =>
  (Object.keys(GUARDS) as Guard[]).filter((name) => GUARDS[name](error));

const request = { method: 'GET', path: '/api/v1/namespaces/d/configmaps/x' } as const;
const statusBody = (code: number, reason?: string): string =>
  JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message: `message of ${code}`,
    ...(reason !== undefined ? { reason } : {}),
    code,
  });

describe('ApiError guards (apimachinery api/errors)', () => {
  it.for([
    { code: 400, reason: 'BadRequest', guards: ['isBadRequest'] },
    { code: 401, reason: 'Unauthorized', guards: ['isUnauthorized'] },
    { code: 403, reason: 'Forbidden', guards: ['isForbidden'] },
    { code: 404, reason: 'NotFound', guards: ['isNotFound'] },
    { code: 409, reason: 'AlreadyExists', guards: ['isAlreadyExists'] },
    { code: 409, reason: 'Conflict', guards: ['isConflict'] },
    { code: 410, reason: 'Expired', guards: ['isGone', 'isResourceExpired'] },
    { code: 410, reason: 'Gone', guards: ['isGone', 'isResourceExpired'] },
    { code: 422, reason: 'Invalid', guards: ['isInvalid'] },
    { code: 429, reason: 'TooManyRequests', guards: ['isTooManyRequests'] },
    { code: 500, reason: 'ServerTimeout', guards: ['isServerTimeout'] },
    { code: 504, reason: 'Timeout', guards: ['isServerTimeout'] },
    { code: 500, reason: 'InternalError', guards: [] },
    // A Status without a reason: the HTTP code decides, as apimachinery's reasonAndCodeForError.
    { code: 404, reason: undefined, guards: ['isNotFound'] },
    { code: 403, reason: undefined, guards: ['isForbidden'] },
    { code: 410, reason: undefined, guards: ['isGone', 'isResourceExpired'] },
  ] as Array<{ code: number; reason: string | undefined; guards: Guard[] }>)(
    'a Status $code $reason answers $guards',
    ({ code, reason, guards }) => {
      const error = apiErrorFrom(request, code, {}, statusBody(code, reason));
      expect(isApiError(error)).toBe(true);
      expect(error.status).toBe(code);
      expect(error.message).toBe(`get configmaps "x" in namespace "d": message of ${code}`);
      expect(accepted(error)).toEqual(guards);
    },
  );

  it.for([
    { code: 401, guards: ['isUnauthorized'] },
    { code: 403, guards: ['isForbidden'] },
    { code: 404, guards: ['isNotFound'] },
    { code: 409, guards: ['isConflict'] },
    { code: 410, guards: ['isGone', 'isResourceExpired'] },
    { code: 429, guards: ['isTooManyRequests'] },
    { code: 502, guards: [] },
    { code: 504, guards: ['isServerTimeout'] },
  ] as Array<{ code: number; guards: Guard[] }>)(
    'a non-Status body with HTTP $code answers $guards',
    ({ code, guards }) => {
      const error = apiErrorFrom(request, code, {}, '<html>proxy error</html>');
      expect(isApiError(error)).toBe(true);
      expect(error.status).toBe(code);
      expect(error.message).toContain(
        `get configmaps "x" in namespace "d": the server responded ${code}`,
      );
      expect(accepted(error)).toEqual(guards);
    },
  );

  it('takes the HTTP status when the Status has no code, and details.retryAfterSeconds', () => {
    const error = apiErrorFrom(
      request,
      429,
      {},
      JSON.stringify({
        kind: 'Status',
        reason: 'TooManyRequests',
        details: { retryAfterSeconds: 4 },
      }),
    );
    expect(error.status).toBe(429);
    expect(error.retryAfterMs).toBe(4000);
    expect(error.body?.reason).toBe('TooManyRequests');
  });

  it('maps a watch ERROR event through the same guards', () => {
    const line = (code: number, reason: string) =>
      JSON.stringify({ type: 'ERROR', object: JSON.parse(statusBody(code, reason)) });
    const thrown = (text: string): unknown => {
      try {
        decodeWatchEvent(text);
      } catch (error) {
        return error;
      }
      return undefined;
    };
    expect(accepted(thrown(line(410, 'Expired')))).toEqual(['isGone', 'isResourceExpired']);
    expect(accepted(thrown(line(500, 'InternalError')))).toEqual([]);
    expect(accepted(thrown(line(403, 'Forbidden')))).toEqual(['isForbidden']);
  });

  it('answers false for anything that is not an ApiError', () => {
    for (const value of [
      new Error('NotFound'),
      new LassoError('LASSO_CONNECTION_FAILED', 'connection failed (ECONNREFUSED)'),
      { code: 'LASSO_API_ERROR', status: 404, reason: 'NotFound' },
      undefined,
      'NotFound',
    ]) {
      expect(isApiError(value)).toBe(false);
      expect(accepted(value)).toEqual([]);
    }
    expect(isApiError(new ApiError({ status: 404 }))).toBe(true);
  });
});
