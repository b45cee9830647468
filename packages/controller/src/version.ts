// The package version baked in by tsup's `define` (the instrumentation version of the controller's spans).
declare const __LASSO_VERSION__: string;

/** Version of @lasso/controller (`0.0.0-dev` when running from source). */
export const VERSION: string =
  typeof __LASSO_VERSION__ === 'string' ? __LASSO_VERSION__ : '0.0.0-dev';
