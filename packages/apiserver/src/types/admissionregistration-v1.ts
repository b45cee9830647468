// Built-in type definitions of admissionregistration.k8s.io/v1 (k8s.io/api): the webhook configurations the
// admission plugins read (admission/). Field numbers and JSON names follow the API's generated.proto and Go tags.
import type { FieldDefinition, TypeDefinition } from './type-definition.ts';

const prefix = 'io.k8s.api.admissionregistration.v1';

function configuration(kind: string, webhook: string): TypeDefinition {
  return {
    name: `${prefix}.${kind}`,
    description: `The ${webhook}s the API server calls on matching requests.`,
    gvk: { group: 'admissionregistration.k8s.io', version: 'v1', kind },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        description: "The object's name, labels, annotations and other metadata.",
      },
      {
        json: 'webhooks',
        number: 2,
        type: { message: `${prefix}.${webhook}` },
        repeated: true,
        description: 'The webhooks and the requests each one is called for.',
        patchStrategy: 'merge',
        patchMergeKey: 'name',
      },
    ],
  };
}

/** The fields both webhook kinds share, in their wire order. */
function webhookFields(objectSelectorNumber: number): FieldDefinition[] {
  return [
    { json: 'name', number: 1, type: 'string', required: true, description: 'Qualified name.' },
    {
      json: 'clientConfig',
      number: 2,
      type: { message: `${prefix}.WebhookClientConfig` },
      required: true,
      description: 'How to reach the webhook.',
    },
    {
      json: 'rules',
      number: 3,
      type: { message: `${prefix}.RuleWithOperations` },
      repeated: true,
      description: 'The operations and resources the webhook is called for.',
    },
    {
      json: 'failurePolicy',
      number: 4,
      type: 'string',
      enum: ['Fail', 'Ignore'],
      description: 'What a call that fails does to the request.',
    },
    {
      json: 'namespaceSelector',
      number: 5,
      type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
      description: "Selects by the labels of the object's namespace.",
    },
    {
      json: 'sideEffects',
      number: 6,
      type: 'string',
      required: true,
      enum: ['None', 'NoneOnDryRun', 'Some', 'Unknown'],
      description: 'Whether a call has effects beyond its answer (dry runs skip webhooks that do).',
    },
    {
      json: 'timeoutSeconds',
      number: 7,
      type: 'int32',
      description: 'How long a call may take (1-30 s, default 10).',
    },
    {
      json: 'admissionReviewVersions',
      number: 8,
      type: 'string',
      repeated: true,
      required: true,
      description: 'AdmissionReview versions the webhook accepts, preferred first.',
    },
    {
      json: 'matchPolicy',
      number: 9,
      type: 'string',
      enum: ['Equivalent', 'Exact'],
      description: 'Whether a request for an equivalent resource also matches the rules.',
    },
    {
      json: 'objectSelector',
      number: objectSelectorNumber,
      type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' },
      description: 'Selects by the labels of the object (old or new).',
    },
  ];
}

/** The admissionregistration-v1 types, top-level kinds first. */
export const admissionregistrationV1Types: readonly TypeDefinition[] = [
  configuration('MutatingWebhookConfiguration', 'MutatingWebhook'),
  configuration('ValidatingWebhookConfiguration', 'ValidatingWebhook'),
  {
    name: `${prefix}.MutatingWebhook`,
    description: 'A webhook that may change the object of a request.',
    fields: [
      ...webhookFields(11),
      {
        json: 'reinvocationPolicy',
        number: 10,
        type: 'string',
        enum: ['IfNeeded', 'Never'],
        description: 'Whether the webhook is called again after later webhooks change the object.',
      },
    ],
  },
  {
    name: `${prefix}.ValidatingWebhook`,
    description: 'A webhook that may refuse a request.',
    fields: webhookFields(10),
  },
  {
    name: `${prefix}.RuleWithOperations`,
    description: 'Operations and the resources they apply to.',
    fields: [
      {
        json: 'operations',
        number: 1,
        type: 'string',
        repeated: true,
        description: 'CREATE, UPDATE, DELETE, CONNECT or *.',
      },
      { json: 'apiGroups', number: 2, type: 'string', repeated: true, description: 'API groups.' },
      {
        json: 'apiVersions',
        number: 3,
        type: 'string',
        repeated: true,
        description: 'API versions.',
      },
      {
        json: 'resources',
        number: 4,
        type: 'string',
        repeated: true,
        description: 'Resources, `resource/subresource`, or wildcards.',
      },
      {
        json: 'scope',
        number: 5,
        type: 'string',
        enum: ['*', 'Cluster', 'Namespaced'],
        description: 'Cluster, Namespaced or *.',
      },
    ],
  },
  {
    name: `${prefix}.WebhookClientConfig`,
    description:
      'How to reach a webhook: a URL or a service, and the CA that signs its certificate.',
    fields: [
      {
        json: 'service',
        number: 1,
        type: { message: `${prefix}.ServiceReference` },
        description: 'A service in the cluster.',
      },
      { json: 'caBundle', number: 2, type: 'bytes', description: 'PEM CA bundle.' },
      { json: 'url', number: 3, type: 'string', description: 'An https URL.' },
    ],
  },
  {
    name: `${prefix}.ServiceReference`,
    description: 'A service that serves a webhook.',
    fields: [
      { json: 'namespace', number: 1, type: 'string', required: true, description: 'Namespace.' },
      { json: 'name', number: 2, type: 'string', required: true, description: 'Name.' },
      { json: 'path', number: 3, type: 'string', description: 'URL path.' },
      { json: 'port', number: 4, type: 'int32', description: 'Port (default 443).' },
    ],
  },
];
