import { describe, expect, it } from 'vitest';
import { status } from '../../test/helpers/loopback.ts';
import { isNotFound, isTooManyRequests } from '../errors.ts';
import { apiErrorFrom } from './error-mapping.ts';

describe('apiErrorFrom', () => {
  it('builds the error from a Status body with its reason, details and causes', () => {
    const error = apiErrorFrom(
      { method: 'POST', path: '/api/v1/namespaces/default/configmaps' },
      422,
      {},
      JSON.stringify(
        status(422, 'Invalid', 'ConfigMap "x" is invalid', {
          details: {
            name: 'x',
            kind: 'configmaps',
            causes: [{ type: 'FieldValueInvalid', field: 'metadata.name', message: 'bad' }],
          },
        }),
      ),
    );
    expect(error).toMatchObject({
      status: 422,
      reason: 'Invalid',
      message: 'ConfigMap "x" is invalid',
    });
    expect(error.causes).toEqual([
      { type: 'FieldValueInvalid', field: 'metadata.name', message: 'bad' },
    ]);
    expect(error.details?.name).toBe('x');
  });

  it('derives the reason from the HTTP status for a non-Status body', () => {
    const error = apiErrorFrom(
      { method: 'GET', path: '/api/v1/pods' },
      404,
      {},
      '404 page not found',
    );
    expect(isNotFound(error)).toBe(true);
    expect(error.message).toContain('404 page not found');
    expect(apiErrorFrom({ method: 'GET', path: '/x' }, 409, {}, '').reason).toBe('Conflict');
  });

  it('takes retryAfterMs from the Retry-After header over the details', () => {
    const error = apiErrorFrom(
      { method: 'GET', path: '/x' },
      429,
      { 'retry-after': '3' },
      JSON.stringify(
        status(429, 'TooManyRequests', 'slow down', { details: { retryAfterSeconds: 7 } }),
      ),
    );
    expect(error.retryAfterMs).toBe(3000);
    expect(isTooManyRequests(error)).toBe(true);
  });
});
