import { defineProject } from 'vitest/config';

/**
 * Per-package vitest project: reads sibling packages from `src` through the private `@lasso/source`
 * condition, runs unit tests always, type tests (`*.test-d.ts`) through tsc, and integration tests unless
 * `LASSO_INTEGRATION=0`.
 */
export function lassoProject(name: string) {
  const integration = process.env.LASSO_INTEGRATION !== '0';
  return defineProject({
    resolve: { conditions: ['@lasso/source', 'module', 'node', 'import', 'default'] },
    ssr: { resolve: { conditions: ['@lasso/source', 'module', 'node', 'import', 'default'] } },
    test: {
      name,
      include: integration ? ['src/**/*.test.ts', 'test/**/*.test.ts'] : ['src/**/*.test.ts'],
      restoreMocks: true,
      // `*.test-d.ts` files pin types with expectTypeOf and @ts-expect-error; vitest runs them through tsc
      // (only in projects that have some), so `pnpm test` fails when a public type regresses.
      // LASSO_TYPECHECK=0 skips them where they would only repeat themselves (the runs on other Node versions).
      typecheck: {
        enabled: process.env.LASSO_TYPECHECK !== '0',
        include: ['src/**/*.test-d.ts'],
        tsconfig: 'tsconfig.json',
      },
      // Tests that drive failures without their own logger would print each warning of core's
      // defaultLogger (~200 lines per cache run); tests of the default logger inject their own env.
      // `LASSO_LOG_LEVEL=warn pnpm test` brings the output back when debugging.
      env: { LASSO_LOG_LEVEL: process.env.LASSO_LOG_LEVEL ?? 'silent' },
      testTimeout: 10_000,
      hookTimeout: 30_000,
    },
  });
}
