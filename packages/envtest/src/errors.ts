// Error codes of @lasso/envtest, declared into core's registry (its errors are plain LassoErrors and
// crd-loader's CrdLoadError).
import type { LassoError } from '@lasso/core';
import type { CrdLoadError } from './crd-loader.ts';

declare module '@lasso/core' {
  interface LassoErrorCodes {
    /** A CRD file could not be read, parsed or validated (`CrdLoadError`). */
    LASSO_INVALID_OBJECT: CrdLoadError;
    /** The test environment could not start or stop (binaries missing, a port taken, a timeout). */
    LASSO_ENVTEST_FAILED: LassoError;
  }
}
