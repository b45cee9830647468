// Built-in type definitions of networking.k8s.io/v1 (k8s.io/api): Ingress and IngressClass.
// Field numbers and JSON names follow the published generated.proto and Go struct tags of the API; the protobuf
// body decoder and the OpenAPI publisher both read this table.
import type { TypeDefinition } from './type-definition.ts';

/** The networking-v1 types, top-level kinds first. */
export const networkingV1Types: readonly TypeDefinition[] = [
  {
    name: 'io.k8s.api.networking.v1.Ingress',
    description: 'HTTP(S) routing rules from outside the cluster to services.',
    gvk: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        description: "The object's name, namespace, labels, annotations and other metadata.",
      },
      {
        json: 'spec',
        number: 2,
        type: { message: 'io.k8s.api.networking.v1.IngressSpec' },
        description: 'The desired state.',
      },
      {
        json: 'status',
        number: 3,
        type: { message: 'io.k8s.api.networking.v1.IngressStatus' },
        description: 'The observed state, written by the system through the status subresource.',
      },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.IngressClass',
    description: 'Names the controller that implements a class of Ingresses.',
    gvk: { group: 'networking.k8s.io', version: 'v1', kind: 'IngressClass' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
        description: "The object's name, namespace, labels, annotations and other metadata.",
      },
      {
        json: 'spec',
        number: 2,
        type: { message: 'io.k8s.api.networking.v1.IngressClassSpec' },
        description: 'The desired state.',
      },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.HTTPIngressPath',
    fields: [
      {
        json: 'path',
        number: 1,
        type: 'string',
        description: 'Path matched against the request path.',
      },
      {
        json: 'backend',
        number: 2,
        type: { message: 'io.k8s.api.networking.v1.IngressBackend' },
        description: 'Where matching requests go.',
        required: true,
      },
      {
        json: 'pathType',
        number: 3,
        type: 'string',
        description: 'How path is matched.',
        keepZero: true,
        enum: ['Exact', 'ImplementationSpecific', 'Prefix'],
      },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.HTTPIngressRuleValue',
    fields: [
      {
        json: 'paths',
        number: 1,
        type: { message: 'io.k8s.api.networking.v1.HTTPIngressPath' },
        repeated: true,
        keepZero: true,
        required: true,
        listType: 'atomic',
      },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.IngressBackend',
    fields: [
      {
        json: 'resource',
        number: 3,
        type: { message: 'io.k8s.api.core.v1.TypedLocalObjectReference' },
      },
      {
        json: 'service',
        number: 4,
        type: { message: 'io.k8s.api.networking.v1.IngressServiceBackend' },
        description: 'A service backend.',
      },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.IngressClassParametersReference',
    fields: [
      { json: 'apiGroup', number: 1, type: 'string', keepZero: true },
      { json: 'kind', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'name', number: 3, type: 'string', keepZero: true, required: true },
      { json: 'scope', number: 4, type: 'string', keepZero: true },
      { json: 'namespace', number: 5, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.IngressClassSpec',
    fields: [
      {
        json: 'controller',
        number: 1,
        type: 'string',
        description: 'Name of the controller that implements the class.',
      },
      {
        json: 'parameters',
        number: 2,
        type: { message: 'io.k8s.api.networking.v1.IngressClassParametersReference' },
      },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.IngressLoadBalancerIngress',
    fields: [
      { json: 'ip', number: 1, type: 'string' },
      { json: 'hostname', number: 2, type: 'string' },
      {
        json: 'ports',
        number: 4,
        type: { message: 'io.k8s.api.networking.v1.IngressPortStatus' },
        repeated: true,
        listType: 'atomic',
      },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.IngressLoadBalancerStatus',
    fields: [
      {
        json: 'ingress',
        number: 1,
        type: { message: 'io.k8s.api.networking.v1.IngressLoadBalancerIngress' },
        repeated: true,
        listType: 'atomic',
      },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.IngressPortStatus',
    fields: [
      { json: 'port', number: 1, type: 'int32', keepZero: true, required: true },
      { json: 'protocol', number: 2, type: 'string', keepZero: true, required: true },
      { json: 'error', number: 3, type: 'string', keepZero: true },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.IngressRule',
    fields: [
      {
        json: 'host',
        number: 1,
        type: 'string',
        description: 'Host the rule applies to; all hosts when empty.',
      },
      {
        json: '',
        number: 2,
        type: { message: 'io.k8s.api.networking.v1.IngressRuleValue' },
        inline: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.IngressRuleValue',
    fields: [
      {
        json: 'http',
        number: 1,
        type: { message: 'io.k8s.api.networking.v1.HTTPIngressRuleValue' },
      },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.IngressServiceBackend',
    fields: [
      {
        json: 'name',
        number: 1,
        type: 'string',
        description: 'Name of the service.',
        keepZero: true,
        required: true,
      },
      {
        json: 'port',
        number: 2,
        type: { message: 'io.k8s.api.networking.v1.ServiceBackendPort' },
        description: 'Port of the service.',
      },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.IngressSpec',
    fields: [
      {
        json: 'defaultBackend',
        number: 1,
        type: { message: 'io.k8s.api.networking.v1.IngressBackend' },
        description: 'Where requests matching no rule go.',
      },
      {
        json: 'tls',
        number: 2,
        type: { message: 'io.k8s.api.networking.v1.IngressTLS' },
        description: 'TLS settings per host set.',
        repeated: true,
        listType: 'atomic',
      },
      {
        json: 'rules',
        number: 3,
        type: { message: 'io.k8s.api.networking.v1.IngressRule' },
        description: 'Host and path routing rules.',
        repeated: true,
        listType: 'atomic',
      },
      {
        json: 'ingressClassName',
        number: 4,
        type: 'string',
        description: 'The IngressClass that implements this ingress.',
        keepZero: true,
      },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.IngressStatus',
    fields: [
      {
        json: 'loadBalancer',
        number: 1,
        type: { message: 'io.k8s.api.networking.v1.IngressLoadBalancerStatus' },
      },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.IngressTLS',
    fields: [
      {
        json: 'hosts',
        number: 1,
        type: 'string',
        description: 'Hosts the certificate covers.',
        repeated: true,
        listType: 'atomic',
      },
      {
        json: 'secretName',
        number: 2,
        type: 'string',
        description: 'Secret holding the certificate and key.',
      },
    ],
  },
  {
    name: 'io.k8s.api.networking.v1.ServiceBackendPort',
    fields: [
      { json: 'name', number: 1, type: 'string', description: 'Port name on the service.' },
      { json: 'number', number: 2, type: 'int32', description: 'Port number on the service.' },
    ],
  },
];
