import { defineConfig } from 'tsup';

// One runnable script per workload; @lasso/* stay external so the bench measures their built dist.
export default defineConfig({
  entry: {
    workqueue: 'src/workqueue.ts',
    'informer-sync': 'src/informer-sync.ts',
    'watch-throughput': 'src/watch-throughput.ts',
    'end-to-end': 'src/end-to-end.ts',
    sqlcache: 'src/sqlcache.ts',
    failover: 'src/failover.ts',
    scale: 'src/scale.ts',
    sharding: 'src/sharding.ts',
    // Forked by the scripts above (child.ts, end-to-end.ts), so they must sit next to them in dist.
    'server-process': 'src/server-process.ts',
    'writer-process': 'src/writer-process.ts',
    'consumer-process': 'src/consumer-process.ts',
    'failover-replica': 'src/failover-replica.ts',
    'scale-child': 'src/scale-child.ts',
    'sharding-replica': 'src/sharding-replica.ts',
  },
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  tsconfig: 'tsconfig.build.json',
});
