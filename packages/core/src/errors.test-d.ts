import { describe, expectTypeOf, it } from 'vitest';
import { isLassoError, LassoError, type LassoErrorCode } from './errors.ts';

describe('LassoErrorCode', () => {
  it('lists only the codes core declares; packages above add theirs to LassoErrorCodes', () => {
    expectTypeOf<LassoErrorCode>().toEqualTypeOf<
      'LASSO_ABORTED' | 'LASSO_CONFIG_INVALID' | 'LASSO_SHARD_SELECTOR_INVALID' | 'LASSO_TIMEOUT'
    >();
  });

  it('types the code argument of isLassoError and LassoError', () => {
    expectTypeOf(isLassoError).parameter(1).toEqualTypeOf<LassoErrorCode | undefined>();
    // @ts-expect-error: not a declared code (a typo, or a package whose errors are not imported)
    isLassoError(undefined, 'LASSO_TIMEOUTS');
    // @ts-expect-error: codes of packages above core exist only where those packages are imported
    new LassoError('LASSO_API_ERROR', 'x');
  });
});
