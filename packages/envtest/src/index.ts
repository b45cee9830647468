// Public API of @lasso/envtest: a Kubernetes test environment (built-in API server, real binaries, or an
// existing cluster) and the CRD file loader shared by later packages.
// Declares envtest's error codes into @lasso/core's LassoErrorCodes (types only; nothing runs).
import './errors.ts';

// The built-in server lives in @lasso/apiserver; re-exported so existing imports keep working.
export {
  type FailureFault,
  type FaultInjector,
  type LocalApiServer,
  type LocalApiServerControllers,
  type LocalApiServerCredentials,
  type LocalApiServerOptions,
  type RequestMatch,
  type RunningLocalApiServer,
  startLocalApiServer,
} from '@lasso/apiserver';
export { loadCrdFiles, parseCrdYaml } from './crd-loader.ts';
export {
  type Credentials,
  type Environment,
  type EnvironmentOptions,
  startEnvironment,
} from './environment.ts';
export { type TestCrd, type TestCrdOptions, testCrd } from './test-crd.ts';
export type { WebhookInstallOptions } from './webhook-install.ts';
