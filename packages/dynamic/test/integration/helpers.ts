// The dynamic controller's integration tests use @lasso/factory's integration helpers as they are (an environment,
// a RestConfig per test whose undici dispatcher records every request, and a waiter): one copy for both suites.
export {
  collectionOf,
  deployment,
  listsOf,
  type RecordedRequest,
  type RecordingConfig,
  startCluster,
  type TestCluster,
  Waiter,
} from '../../../factory/test/integration/helpers.ts';
