// Public API of @lasso/envtest (filled in by its issue).
export {};
