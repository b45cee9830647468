// Public API of @lasso/client (filled in by its issue).
export {};
