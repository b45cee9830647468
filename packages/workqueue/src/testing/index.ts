// Test kit of @lasso/workqueue.
export {};
