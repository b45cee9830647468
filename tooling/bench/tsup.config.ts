import { defineConfig } from 'tsup';

// One runnable script per workload; @lasso/* stay external so the bench measures their built dist.
export default defineConfig({
  entry: {
    workqueue: 'src/workqueue.ts',
    'informer-sync': 'src/informer-sync.ts',
    'watch-throughput': 'src/watch-throughput.ts',
    // Forked by the two above (child.ts), so it must sit next to them in dist.
    'server-process': 'src/server-process.ts',
  },
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  tsconfig: 'tsconfig.build.json',
});
