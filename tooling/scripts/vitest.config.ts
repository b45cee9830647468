import { defineProject } from 'vitest/config';

// The repository scripts' own tests (the layer check); no package.json here, so no workspace entry.
export default defineProject({
  test: {
    name: '@lasso-internal/scripts',
    include: ['*.test.ts'],
    restoreMocks: true,
  },
});
