// Test kit of @lasso/client: a RestConfig from @lasso/envtest credentials.
export {
  type EnvironmentCredentials,
  restConfigFromCredentials,
} from './credentials.ts';
