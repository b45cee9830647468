// Public API of @lasso/client-node-bridge: client-node's informer interface over a lasso shared informer.
export {};
