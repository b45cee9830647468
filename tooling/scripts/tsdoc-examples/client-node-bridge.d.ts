// Ambient names the TSDoc @example blocks of this package may use without declaring them; see
// tooling/scripts/check-tsdoc-examples.mjs. Keep this list short: an example declares anything else it uses.
declare const rest: import('@lasso/client').RestConfig;
