import { defineConfig } from 'tsup';

// The soak's entry and the child processes it forks (they must sit next to it in dist); @lasso/* stay external so
// the soak runs the packages' built dist.
export default defineConfig({
  entry: {
    soak: 'src/soak.ts',
    'server-process': 'src/server-process.ts',
    'writer-process': 'src/writer-process.ts',
    'consumer-process': 'src/consumer-process.ts',
    'replica-process': 'src/replica-process.ts',
    'outage-process': 'src/outage-process.ts',
    'shard-replica-process': 'src/shard-replica-process.ts',
    'shard-writer-process': 'src/shard-writer-process.ts',
  },
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  tsconfig: 'tsconfig.build.json',
});
