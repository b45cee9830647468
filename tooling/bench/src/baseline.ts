// `--baseline DIR`: a second build of @lasso packages run side by side with this one for an A/B in one process;
// such runs are not recorded in results/. For W3 and W4, DIR holds `node_modules/@lasso/<package>` (a
// package.json and its dist, copied before a change, or a link to the workspace package); W1 takes the same
// argument for a copied package dir of its own layout (workqueue.ts).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** `--baseline DIR` (or `--baseline=DIR`) out of the arguments; `rest` are the others, in order. */
export function takeBaseline(argv: readonly string[]): {
  baselineDir: string | undefined;
  rest: string[];
} {
  const rest: string[] = [];
  let baselineDir: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (arg === '--baseline') baselineDir = argv[++index];
    else if (arg.startsWith('--baseline=')) baselineDir = arg.slice('--baseline='.length);
    else rest.push(arg);
  }
  return { baselineDir, rest };
}

/** The module of `@lasso/<pkg>` in the baseline build under `dir` (its `dist/index.js`). */
export function importBaseline(dir: string, pkg: string): Promise<Record<string, unknown>> {
  return import(pathToFileURL(resolve(dir, 'node_modules/@lasso', pkg, 'dist/index.js')).href);
}
