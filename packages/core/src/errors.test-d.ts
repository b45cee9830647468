import { describe, expectTypeOf, it } from 'vitest';
import {
  isLassoError,
  LassoError,
  type LassoErrorCode,
  type LassoErrorOf,
  type TimeoutError,
} from './errors.ts';
import type { ShardSelectorError } from './sharding/selector.ts';

describe('LassoErrorCode', () => {
  it('lists only the codes core declares; packages above add theirs to LassoErrorCodes', () => {
    expectTypeOf<LassoErrorCode>().toEqualTypeOf<
      'LASSO_ABORTED' | 'LASSO_CONFIG_INVALID' | 'LASSO_SHARD_SELECTOR_INVALID' | 'LASSO_TIMEOUT'
    >();
  });

  it('types the code argument of isLassoError and LassoError', () => {
    // @ts-expect-error: not a declared code (a typo, or a package whose errors are not imported)
    isLassoError(undefined, 'LASSO_TIMEOUTS');
    // @ts-expect-error: codes of packages above core exist only where those packages are imported
    new LassoError('LASSO_API_ERROR', 'x');
  });
});

describe('isLassoError', () => {
  it('narrows to the class of the code', () => {
    const caught: unknown = undefined;
    if (isLassoError(caught, 'LASSO_TIMEOUT')) {
      expectTypeOf(caught).toEqualTypeOf<TimeoutError>();
      expectTypeOf(caught.timeoutMs).toBeNumber();
    }
    if (isLassoError(caught, 'LASSO_SHARD_SELECTOR_INVALID')) {
      expectTypeOf(caught).toEqualTypeOf<ShardSelectorError>();
    }
  });

  it('narrows to LassoError without a code, for a code shared by several classes, or one known at run time', () => {
    const caught: unknown = undefined;
    if (isLassoError(caught)) expectTypeOf(caught).toEqualTypeOf<LassoError>();
    if (isLassoError(caught, 'LASSO_CONFIG_INVALID'))
      expectTypeOf(caught).toEqualTypeOf<LassoError>();
    const code = 'LASSO_TIMEOUT' as LassoErrorCode;
    if (isLassoError(caught, code)) expectTypeOf(caught).toEqualTypeOf<LassoError>();
    expectTypeOf<LassoErrorOf<LassoErrorCode>>().toEqualTypeOf<LassoError>();
  });

  it('narrows a typed value too (a catch with useUnknownInCatchVariables off, a rejection reason)', () => {
    const error = new Error('x') as Error;
    if (isLassoError(error, 'LASSO_TIMEOUT')) expectTypeOf(error.timeoutMs).toBeNumber();
  });
});
