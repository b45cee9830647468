// Public API of @lasso/apiserver: an in-process Kubernetes API server (start, stop, credentials, the fault
// injector) and the test certificate authority it and @lasso/envtest's real binaries use.
export type { FailureFault, FaultInjector, RequestMatch } from './faults.ts';
export {
  type CertificateAuthorityOptions,
  type CertificatePair,
  createCertificateAuthority,
  createSignedCertificate,
  type SignedCertificateOptions,
} from './pki.ts';
export {
  type LocalApiServer,
  type LocalApiServerCredentials,
  type LocalApiServerOptions,
  type RunningLocalApiServer,
  startLocalApiServer,
} from './server.ts';
