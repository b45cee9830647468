// Test kit of @lasso/cache.
export {};
