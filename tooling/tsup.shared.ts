import { readFileSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

/**
 * The build of a published @lasso package: ESM for Node 20 with declarations and source maps, class names kept,
 * and the package's version compiled in as `__LASSO_VERSION__`. `packageJson` is the package's own
 * (`new URL('./package.json', import.meta.url)` in its tsup.config.ts); `extra` adds to or overrides the rest.
 */
export function lassoPackageBuild(
  packageJson: URL,
  entry: Record<string, string>,
  extra: Options = {},
) {
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  return defineConfig({
    entry,
    format: ['esm'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    // Bundling renames a class that refers to itself (`_ApiError`); error.name and stacks need the real one.
    keepNames: true,
    tsconfig: 'tsconfig.build.json',
    define: { __LASSO_VERSION__: JSON.stringify(version) },
    ...extra,
  });
}
