import { defineConfig } from 'tsup';

// One runnable script per workload; @lasso/* stay external so the bench measures their built dist.
export default defineConfig({
  entry: { workqueue: 'src/workqueue.ts' },
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  tsconfig: 'tsconfig.build.json',
});
