import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(
  readFileSync(new URL('./package.json', import.meta.url), 'utf8'),
) as {
  version: string;
};

export default defineConfig({
  entry: { index: 'src/index.ts', testing: 'src/testing/index.ts' },
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
});
