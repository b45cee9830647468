// Test kit of @lasso/controller.
