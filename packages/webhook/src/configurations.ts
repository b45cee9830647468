// Builders of the admissionregistration.k8s.io/v1 configurations and the CRD conversion stanza for the webhooks a
// server registered (what controller-gen writes from kubebuilder markers, computed at run time instead).

import type {
  MutatingWebhook,
  MutatingWebhookConfiguration,
  RuleWithOperations,
  ValidatingWebhook,
  ValidatingWebhookConfiguration,
  WebhookClientConfig,
} from 'kubernetes-types/admissionregistration/v1.js';
import type { CustomResourceConversion } from 'kubernetes-types/apiextensions/v1.js';
import type { AdmissionRegistration } from './registrations.ts';

/** Where kube-apiserver reaches the server: a URL (local runs, tests) or an in-cluster Service. */
export type WebhookClientTarget =
  | {
      /** The server's base URL, `https://host:port` (`WebhookServer.url()`); each webhook's path is appended. */
      url: string;
    }
  | {
      service: {
        namespace: string;
        name: string;
        /** The Service port (default 443). */
        port?: number;
      };
    };

/** Options of the configuration builders. */
export interface WebhookConfigurationOptions {
  /** `metadata.name` of the configuration. */
  name: string;
  /** PEM of the CA that signed the serving certificate; the builder base64-encodes it as `caBundle`. */
  caPem: string;
  client: WebhookClientTarget;
}

/** Options of the conversion stanza builder. */
export interface ConversionStanzaOptions {
  /** PEM of the CA that signed the serving certificate. */
  caPem: string;
  client: WebhookClientTarget;
}

function clientConfig(
  target: WebhookClientTarget,
  caPem: string,
  path: string,
  where: string,
): WebhookClientConfig {
  if (typeof caPem !== 'string' || !caPem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new TypeError(`${where}: caPem must be a PEM certificate`);
  }
  const caBundle = Buffer.from(caPem).toString('base64');
  if (typeof target === 'object' && target !== null && 'url' in target) {
    let base: URL;
    try {
      base = new URL(target.url);
    } catch {
      throw new TypeError(`${where}: client.url must be a URL, got ${JSON.stringify(target.url)}`);
    }
    // admissionregistration/v1 requires https and forbids a query, a fragment and user info.
    if (
      base.protocol !== 'https:' ||
      base.search !== '' ||
      base.hash !== '' ||
      base.username !== ''
    ) {
      throw new TypeError(
        `${where}: client.url must be https:// without a query, fragment or user, got ${target.url}`,
      );
    }
    return { url: `${base.origin}${base.pathname.replace(/\/$/, '')}${path}`, caBundle };
  }
  const service = (target as { service?: { namespace?: unknown; name?: unknown; port?: unknown } })
    ?.service;
  if (
    typeof service?.namespace !== 'string' ||
    service.namespace === '' ||
    typeof service.name !== 'string' ||
    service.name === ''
  ) {
    throw new TypeError(
      `${where}: client must be { url } or { service: { namespace, name, port? } }`,
    );
  }
  const port = service.port ?? 443;
  if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65_535) {
    throw new RangeError(
      `${where}: client.service.port must be an integer from 1 to 65535, got ${String(service.port)}`,
    );
  }
  return {
    service: { namespace: service.namespace, name: service.name, port: port as number, path },
    caBundle,
  };
}

function checkName(name: unknown, where: string): string {
  if (typeof name !== 'string' || name === '')
    throw new TypeError(`${where}: name must be a non-empty string`);
  return name;
}

// kubernetes-types 1.30 lost `resources` and `scope` of RuleWithOperations (they come from the embedded Rule).
type Rule = RuleWithOperations & { resources: string[]; scope: '*' | 'Namespaced' | 'Cluster' };

function rules(registration: AdmissionRegistration): RuleWithOperations[] {
  const namespaced = registration.kind.namespaced;
  const rule: Rule = {
    apiGroups: [registration.kind.group],
    apiVersions: [registration.kind.version],
    operations: [...registration.operations],
    resources: [...registration.resources],
    scope: namespaced === undefined ? '*' : namespaced ? 'Namespaced' : 'Cluster',
  };
  return [rule];
}

function common(
  registration: AdmissionRegistration,
  options: WebhookConfigurationOptions,
  where: string,
): ValidatingWebhook {
  const webhook: ValidatingWebhook = {
    name: registration.name,
    admissionReviewVersions: ['v1'],
    clientConfig: clientConfig(options.client, options.caPem, registration.path, where),
    rules: rules(registration),
    failurePolicy: registration.failurePolicy,
    matchPolicy: registration.matchPolicy,
    sideEffects: registration.sideEffects,
    timeoutSeconds: registration.timeoutSeconds,
  };
  if (registration.namespaceSelector !== undefined)
    webhook.namespaceSelector = registration.namespaceSelector;
  if (registration.objectSelector !== undefined)
    webhook.objectSelector = registration.objectSelector;
  return webhook;
}

/** @internal A ValidatingWebhookConfiguration for `registrations`. */
export function buildValidatingConfiguration(
  registrations: readonly AdmissionRegistration[],
  options: WebhookConfigurationOptions,
): ValidatingWebhookConfiguration {
  const where = 'WebhookServer.validatingWebhookConfiguration';
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: checkName(options?.name, where) },
    webhooks: registrations.map((registration) => common(registration, options, where)),
  };
}

/** @internal A MutatingWebhookConfiguration for `registrations`. */
export function buildMutatingConfiguration(
  registrations: readonly AdmissionRegistration[],
  options: WebhookConfigurationOptions,
): MutatingWebhookConfiguration {
  const where = 'WebhookServer.mutatingWebhookConfiguration';
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: checkName(options?.name, where) },
    webhooks: registrations.map(
      (registration): MutatingWebhook => ({
        ...common(registration, options, where),
        reinvocationPolicy: registration.reinvocationPolicy ?? 'Never',
      }),
    ),
  };
}

/** @internal The CRD `spec.conversion` for a server's `/convert`. */
export function buildConversionStanza(options: ConversionStanzaOptions): CustomResourceConversion {
  return {
    strategy: 'Webhook',
    webhook: {
      clientConfig: clientConfig(
        options?.client,
        options?.caPem,
        '/convert',
        'WebhookServer.conversionStanza',
      ),
      conversionReviewVersions: ['v1'],
    },
  };
}
