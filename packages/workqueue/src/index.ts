// Public API of @lasso/workqueue (filled in by its issue).
export {};
