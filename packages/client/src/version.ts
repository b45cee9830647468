// The package version baked in by tsup's `define`, and the default User-Agent built from it.
import { basename, extname } from 'node:path';

declare const __LASSO_VERSION__: string;

/** Version of @lasso/client (`0.0.0-dev` when running from source). */
export const VERSION: string =
  typeof __LASSO_VERSION__ === 'string' ? __LASSO_VERSION__ : '0.0.0-dev';

/** `lasso/<version> (<platform>/<arch>) <program>`, as client-go's `<binary>/<version> (<os>/<arch>)`. */
export function defaultUserAgent(): string {
  const script = process.argv[1];
  const program = script ? basename(script, extname(script)) || 'node' : 'node';
  return `lasso/${VERSION} (${process.platform}/${process.arch}) ${program}`;
}
