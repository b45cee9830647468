// Ambient names the TSDoc @example blocks of this package may use without declaring them; see
// tooling/scripts/check-tsdoc-examples.mjs. Keep this list short: an example declares anything else it uses.
declare const signal: AbortSignal;
declare const logger: import('@lasso/core').Logger;
declare const clock: import('@lasso/core').Clock;
// The examples of the testing kit (`@lasso/workqueue/testing`) assert with vitest.
declare const expect: typeof import('vitest').expect;
