// Public API of @lasso/webhook: an HTTPS server for admission (validating, mutating) and conversion webhooks, typed
// by kind, with certificate reload, a self-signed helper and the configurations to install.
// Declares the webhook error codes into @lasso/core's LassoErrorCodes (types only; nothing runs).
import './errors.ts';

export type {
  ConversionStanzaOptions,
  WebhookClientTarget,
  WebhookConfigurationOptions,
} from './configurations.ts';
export {
  type Conversion,
  type ConversionOptions,
  createConversion,
  type SpokeConversion,
} from './conversion.ts';
export {
  MalformedReviewError,
  WebhookClosedError,
  WebhookListenError,
  WebhookTlsError,
} from './errors.ts';
export {
  createJsonPatch,
  escapeJsonPointerToken,
  type JsonPatchOperation,
  type JsonValue,
} from './json-patch.ts';
export type {
  AdmissionWebhookOptions,
  MutatingWebhookOptions,
  ValidatingWebhookOptions,
} from './registrations.ts';
export {
  createSelfSignedCertificates,
  type SelfSignedCertificates,
  type SelfSignedCertificatesOptions,
  type WrittenCertificates,
  writeSelfSignedCertificates,
} from './self-signed.ts';
export type { WebhookTlsOptions } from './serving-certificate.ts';
export {
  type AdmissionOperation,
  type AdmissionRequest,
  type AdmissionResource,
  type AdmissionUserInfo,
  type AdmissionVerdict,
  allow,
  type DenyOptions,
  deny,
  isAdmissionVerdict,
  type MutatingHandler,
  type MutatingResult,
  type ValidatingHandler,
  type ValidatingResult,
} from './types.ts';
export {
  conversionPath,
  createWebhookServer,
  defaultMaxRequestBytes,
  type WebhookServer,
  type WebhookServerOptions,
} from './webhook-server.ts';
