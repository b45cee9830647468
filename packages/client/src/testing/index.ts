// Test kit of @lasso/client.
export {};
