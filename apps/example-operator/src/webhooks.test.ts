// Unit tests of the Icecream webhook rules and defaults (webhooks.ts); test/webhooks.test.ts runs them behind an
// API server.
import { noopLogger, noopMetricsProvider } from '@lasso/core';
import type { AdmissionRequest } from '@lasso/webhook';
import { describe, expect, it } from 'vitest';
import type { Icecream } from './generated/index.ts';
import { defaultIcecream, icecreamProblem, icecreamWebhooksFromFlags } from './webhooks.ts';

function icecream(name: string, spec: Partial<Icecream['spec']>): Icecream {
  return {
    apiVersion: 'example.lasso.dev/v1',
    kind: 'Icecream',
    metadata: { name },
    spec: spec as Icecream['spec'],
  };
}

function request(
  operation: 'CREATE' | 'UPDATE' | 'DELETE',
  object: Icecream | undefined,
  oldObject?: Icecream,
): AdmissionRequest<Icecream> {
  return { operation, object, oldObject } as AdmissionRequest<Icecream>;
}

describe('icecreamProblem()', () => {
  it.for([
    ['the name itself', 'mint'],
    ['the name and a suffix', 'mint-scoops'],
  ] as const)('admits a Deployment named %s', ([, deploymentName]) => {
    expect(
      icecreamProblem(request('CREATE', icecream('mint', { flavor: 'mint', deploymentName }))),
    ).toBeUndefined();
  });

  it('denies a Deployment name that another Icecream would own', () => {
    expect(
      icecreamProblem(
        request('CREATE', icecream('mint', { flavor: 'mint', deploymentName: 'mintchoc' })),
      ),
    ).toBe('spec.deploymentName must be "mint" or start with "mint-", got "mintchoc"');
  });

  it('denies a change of flavor on update, and nothing on delete', () => {
    const old = icecream('mint', { flavor: 'mint', deploymentName: 'mint' });
    expect(
      icecreamProblem(
        request('UPDATE', icecream('mint', { flavor: 'lime', deploymentName: 'mint' }), old),
      ),
    ).toBe('spec.flavor cannot change once scooped (was "mint"): create another Icecream');
    expect(
      icecreamProblem(request('UPDATE', { ...old, spec: { ...old.spec, replicas: 3 } }, old)),
    ).toBeUndefined();
    expect(icecreamProblem(request('DELETE', undefined, old))).toBeUndefined();
  });
});

describe('defaultIcecream()', () => {
  it('fills replicas and the Deployment name, keeping what is given', () => {
    expect(defaultIcecream(icecream('mint', { flavor: 'mint' })).spec).toEqual({
      flavor: 'mint',
      replicas: 1,
      deploymentName: 'mint',
    });
    expect(
      defaultIcecream(icecream('mint', { flavor: 'mint', replicas: 0, deploymentName: 'mint-x' }))
        .spec,
    ).toEqual({
      flavor: 'mint',
      replicas: 0,
      deploymentName: 'mint-x',
    });
  });

  it('leaves the Deployment name to the client when the name is generated', () => {
    expect(defaultIcecream(icecream('', { flavor: 'mint' })).spec).toEqual({
      flavor: 'mint',
      replicas: 1,
    });
  });
});

describe('icecreamWebhooksFromFlags()', () => {
  const context = { logger: noopLogger, metrics: noopMetricsProvider };
  it('serves nothing with --webhook-port 0, nor in a cluster without a certificate directory', () => {
    expect(
      icecreamWebhooksFromFlags({ webhookPort: 0, webhookCertDir: undefined }, 'demo', context),
    ).toBeUndefined();
    expect(
      icecreamWebhooksFromFlags(
        { webhookPort: undefined, webhookCertDir: undefined },
        'cluster',
        context,
      ),
    ).toBeUndefined();
  });

  it('self-signs in the demo', () => {
    const webhooks = icecreamWebhooksFromFlags(
      { webhookPort: undefined, webhookCertDir: undefined },
      'demo',
      context,
    );
    expect(webhooks?.caPem).toContain('-----BEGIN CERTIFICATE-----');
  });
});
