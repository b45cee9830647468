import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', bin: 'src/bin.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  // Bundling may rename a class that refers to itself; error.name and stacks need the real one.
  keepNames: true,
  tsconfig: 'tsconfig.build.json',
});
