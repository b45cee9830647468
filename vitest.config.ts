import { defineConfig } from 'vitest/config';

// One vitest project per package; each package's own vitest.config.ts says what it runs.
export default defineConfig({
  test: {
    projects: [
      'packages/*/vitest.config.ts',
      'apps/*/vitest.config.ts',
      'tooling/*/vitest.config.ts',
    ],
  },
});
