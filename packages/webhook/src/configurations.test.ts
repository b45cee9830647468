import type { KubeObject } from '@lasso/client';
import { kindFor } from '@lasso/factory';
import { describe, expect, it } from 'vitest';
import { createSelfSignedCertificates } from './self-signed.ts';
import { createWebhookServer } from './webhook-server.ts';

const certificates = createSelfSignedCertificates();
const caBundle = Buffer.from(certificates.caPem).toString('base64');
const widgets = kindFor<KubeObject>('example.com/v1', 'Widget', {
  resource: 'widgets',
  namespaced: true,
});
const nodes = kindFor('v1', 'Node');

function server() {
  const s = createWebhookServer({ tls: certificates, host: '127.0.0.1', port: 0 });
  s.validating(widgets, { handler: () => undefined, operations: ['CREATE', 'UPDATE', 'DELETE'] });
  s.validating(nodes, {
    handler: () => undefined,
    name: 'nodes.policy.example.com',
    failurePolicy: 'Ignore',
    sideEffects: 'NoneOnDryRun',
    timeoutSeconds: 5,
    objectSelector: { matchLabels: { managed: 'true' } },
  });
  s.mutating(widgets, {
    handler: () => undefined,
    reinvocationPolicy: 'IfNeeded',
    resources: ['widgets', 'widgets/status'],
  });
  return s;
}

describe('WebhookServer configuration builders', () => {
  it('builds a ValidatingWebhookConfiguration with a URL client config', () => {
    expect(
      server().validatingWebhookConfiguration({
        name: 'widgets',
        caPem: certificates.caPem,
        client: { url: 'https://127.0.0.1:9443/' },
      }),
    ).toEqual({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'widgets' },
      webhooks: [
        {
          name: 'vwidget.example.com.lasso.dev',
          admissionReviewVersions: ['v1'],
          clientConfig: { url: 'https://127.0.0.1:9443/validate-example-com-v1-widget', caBundle },
          rules: [
            {
              apiGroups: ['example.com'],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE', 'DELETE'],
              resources: ['widgets'],
              scope: 'Namespaced',
            },
          ],
          failurePolicy: 'Fail',
          matchPolicy: 'Equivalent',
          sideEffects: 'None',
          timeoutSeconds: 10,
        },
        {
          name: 'nodes.policy.example.com',
          admissionReviewVersions: ['v1'],
          clientConfig: { url: 'https://127.0.0.1:9443/validate-core-v1-node', caBundle },
          rules: [
            {
              apiGroups: [''],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['nodes'],
              scope: 'Cluster',
            },
          ],
          failurePolicy: 'Ignore',
          matchPolicy: 'Equivalent',
          sideEffects: 'NoneOnDryRun',
          timeoutSeconds: 5,
          objectSelector: { matchLabels: { managed: 'true' } },
        },
      ],
    });
  });

  it('builds a MutatingWebhookConfiguration with a Service client config', () => {
    const configuration = server().mutatingWebhookConfiguration({
      name: 'widgets',
      caPem: certificates.caPem,
      client: { service: { namespace: 'system', name: 'webhooks' } },
    });
    expect(configuration.kind).toBe('MutatingWebhookConfiguration');
    expect(configuration.webhooks).toEqual([
      expect.objectContaining({
        name: 'mwidget.example.com.lasso.dev',
        clientConfig: {
          service: {
            namespace: 'system',
            name: 'webhooks',
            port: 443,
            path: '/mutate-example-com-v1-widget',
          },
          caBundle,
        },
        reinvocationPolicy: 'IfNeeded',
        rules: [expect.objectContaining({ resources: ['widgets', 'widgets/status'] })],
      }),
    ]);
  });

  it('builds the CRD conversion stanza for /convert', () => {
    expect(
      server().conversionStanza({
        caPem: certificates.caPem,
        client: { url: 'https://localhost:9443' },
      }),
    ).toEqual({
      strategy: 'Webhook',
      webhook: {
        clientConfig: { url: 'https://localhost:9443/convert', caBundle },
        conversionReviewVersions: ['v1'],
      },
    });
  });

  it.for([
    { name: 'an http URL', client: { url: 'http://localhost:9443' }, error: /must be https/ },
    {
      name: 'a URL with a query',
      client: { url: 'https://localhost:9443/?a=b' },
      error: /without a query/,
    },
    {
      name: 'a Service without a name',
      client: { service: { namespace: 'a' } },
      error: /client must be/,
    },
    {
      name: 'a port out of range',
      client: { service: { namespace: 'a', name: 'b', port: 0 } },
      error: /port/,
    },
  ])('throws for $name', ({ client, error }) => {
    expect(() =>
      server().validatingWebhookConfiguration({
        name: 'x',
        caPem: certificates.caPem,
        client: client as never,
      }),
    ).toThrow(error);
  });

  it('throws a TypeError when caPem is not a certificate', () => {
    expect(() =>
      server().validatingWebhookConfiguration({
        name: 'x',
        caPem: certificates.keyPem,
        client: { url: 'https://h' },
      }),
    ).toThrow(/caPem must be a PEM certificate/);
  });
});
