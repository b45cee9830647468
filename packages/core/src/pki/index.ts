// @lasso/core/pki: a small X.509 builder (self-signed CA, serving and client certificates, EC P-256) for tests
// and local runs; node:crypto only, no OpenSSL binary.
export {
  type CertificateAuthorityOptions,
  type CertificatePair,
  createCertificateAuthority,
  createSignedCertificate,
  type SignedCertificateOptions,
} from './certificates.ts';
