// Public API of @lasso/cache (filled in by its issue).
export {};
