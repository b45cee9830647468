import { isLassoError, type LassoError } from '@lasso/core';
import { describe, expectTypeOf, it } from 'vitest';
import type { ApiError } from './errors.ts';
import type { SlowResponseError } from './throughput-floor.ts';

describe('isLassoError with a code of @lasso/client', () => {
  it('narrows to the class the client declares for the code in core registry', () => {
    const caught: unknown = undefined;
    if (isLassoError(caught, 'LASSO_API_ERROR')) {
      expectTypeOf(caught).toEqualTypeOf<ApiError>();
      expectTypeOf(caught.status).toBeNumber();
      expectTypeOf(caught.reason).toBeString();
    }
    if (isLassoError(caught, 'LASSO_RESPONSE_TOO_SLOW')) {
      expectTypeOf(caught).toEqualTypeOf<SlowResponseError>();
    }
  });

  it('narrows to LassoError for a code that several kinds of failure share, and without a code', () => {
    const caught: unknown = undefined;
    if (isLassoError(caught, 'LASSO_CONNECTION_FAILED')) {
      expectTypeOf(caught).toEqualTypeOf<LassoError>();
      // @ts-expect-error: a connection failure is no ApiError
      caught.status;
    }
    if (isLassoError(caught)) expectTypeOf(caught).toEqualTypeOf<LassoError>();
  });
});
