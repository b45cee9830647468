// The errors of @lasso/codegen, with stable codes.
import { LassoError } from '@lasso/core';

declare module '@lasso/core' {
  interface LassoErrorCodes {
    /** A CRD (or the file holding it) cannot be turned into types: a {@link CodegenInputError}. */
    LASSO_CODEGEN_INVALID_INPUT: CodegenInputError;
  }
}

/**
 * A CRD, or the file that holds it, cannot be turned into types (code `LASSO_CODEGEN_INVALID_INPUT`): a file
 * that does not parse, a document that is not a CRD of `apiextensions.k8s.io/v1`, a schema whose shape is not
 * a structural schema's. The message names the file (and document) and the path in the CRD, as
 * `icecream.yaml (document 2): spec.versions[0].schema.openAPIV3Schema.properties.spec.type: ...`.
 *
 * @example
 * ```ts
 * try {
 *   generateTypes([{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' }]);
 * } catch (error) {
 *   if (isLassoError(error, 'LASSO_CODEGEN_INVALID_INPUT')) console.error(error.source, error.path, error.message);
 * }
 * ```
 */
export class CodegenInputError extends LassoError {
  /** The file (and document) the CRD came from, `<input>` when it was given as an object. */
  readonly source: string;
  /** The path in the CRD (or the file) where the problem is; empty for the file as a whole. */
  readonly path: string;

  constructor(source: string, path: string, problem: string, options?: { cause?: unknown }) {
    super(
      'LASSO_CODEGEN_INVALID_INPUT',
      path === '' ? `${source}: ${problem}` : `${source}: ${path}: ${problem}`,
      options,
    );
    this.source = source;
    this.path = path;
  }
}
