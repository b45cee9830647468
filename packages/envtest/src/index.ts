// Public API of @lasso/envtest: a Kubernetes test environment (built-in API server, real binaries, or an
// existing cluster) and the CRD file loader shared by later packages.
// Declares envtest's error codes into @lasso/core's LassoErrorCodes (types only; nothing runs).
import './errors.ts';

export { loadCrdFiles, parseCrdYaml } from './crd-loader.ts';
export {
  type Credentials,
  type Environment,
  type EnvironmentOptions,
  startEnvironment,
} from './environment.ts';
export type { FailureFault, FaultInjector, RequestMatch } from './server/faults.ts';
export {
  type LocalApiServer,
  type LocalApiServerCredentials,
  type LocalApiServerOptions,
  type RunningLocalApiServer,
  startLocalApiServer,
} from './server/server.ts';
