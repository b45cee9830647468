// Public API of @lasso/apiserver: an in-process Kubernetes API server (start, stop, credentials, the fault
// injector, a clock option) and the test certificate authority it and @lasso/envtest's real binaries use.
export {
  type CertificateAuthorityOptions,
  type CertificatePair,
  createCertificateAuthority,
  createSignedCertificate,
  type SignedCertificateOptions,
} from '@lasso/core/pki';
export type { FailureFault, FaultInjector, RequestMatch } from './faults/fault-injector.ts';
export {
  type ApiServer,
  createApiServer,
  type LocalApiServer,
  type LocalApiServerControllers,
  type LocalApiServerCredentials,
  type LocalApiServerOptions,
  type RunningLocalApiServer,
  startLocalApiServer,
} from './server.ts';
