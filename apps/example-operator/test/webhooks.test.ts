// The Icecream webhooks as an API server calls them: the operator's webhook server (self-signed, 127.0.0.1)
// installed with env.installWebhooks, on the built-in server and on a real kube-apiserver (KUBEBUILDER_ASSETS).
import { ApiError, Client, loadKubeConfig, type RestConfig } from '@lasso/client';
import { noopMetricsProvider } from '@lasso/core';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Icecream } from '../src/generated/index.ts';
import { icecreamResource } from '../src/icecream.ts';
import { createIcecreamWebhooks, type IcecreamWebhooks } from '../src/webhooks.ts';
import { crdPath, createWaitableLogger, type WaitableLogger } from './helpers.ts';

let env: Environment;
let rest: RestConfig;
let icecreams: Client<Icecream>;
let webhooks: IcecreamWebhooks;
let logger: WaitableLogger;
const stop = new AbortController();

beforeAll(async () => {
  env = await startEnvironment({ crds: [crdPath], namespace: true });
  rest = await loadKubeConfig({ path: env.kubeconfigPath });
  icecreams = new Client<Icecream>({
    gvr: icecreamResource,
    kind: 'Icecream',
    namespaced: true,
    rest,
  });
  logger = createWaitableLogger();
  webhooks = createIcecreamWebhooks({
    tls: { selfSigned: true },
    host: '127.0.0.1',
    port: 0,
    logger,
    metrics: noopMetricsProvider,
  });
  await webhooks.server.start(stop.signal);
  const caPem = webhooks.caPem as string;
  await env.installWebhooks(
    webhooks
      .configurations(caPem, webhooks.server.url())
      .map((configuration) => configuration as unknown as Record<string, unknown>),
    { caPem, timeoutMs: 30_000 },
  );
}, 90_000);

afterAll(async () => {
  for (const resource of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']) {
    await fetchDelete(resource);
  }
  await env?.stop();
  stop.abort();
  await webhooks?.server.stopped();
  await webhooks?.server.close();
}, 60_000);

async function fetchDelete(resource: string): Promise<void> {
  const client = new Client({
    gvr: { group: 'admissionregistration.k8s.io', version: 'v1', resource },
    kind:
      resource === 'mutatingwebhookconfigurations'
        ? 'MutatingWebhookConfiguration'
        : 'ValidatingWebhookConfiguration',
    namespaced: false,
    rest,
  });
  await client.delete(undefined, 'icecream-operator').catch((error: unknown) => {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
  });
}

function icecream(name: string, spec: Partial<Icecream['spec']>): Icecream {
  return {
    apiVersion: 'example.lasso.dev/v1',
    kind: 'Icecream',
    metadata: { name, namespace: env.namespace },
    spec: spec as Icecream['spec'],
  };
}

async function refusal(write: Promise<unknown>): Promise<ApiError> {
  const error = await write.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('the Icecream webhooks', () => {
  it('default spec.replicas and spec.deploymentName before the schema requires them', async () => {
    const created = await icecreams.create(env.namespace, icecream('mint', { flavor: 'mint' }));
    expect(created.spec).toEqual({ flavor: 'mint', replicas: 1, deploymentName: 'mint' });
    await logger.untilLogged('Icecream defaulted');
    expect(logger.find('Icecream defaulted')[0]?.attributes).toMatchObject({
      icecream: `${env.namespace}/mint`,
      fields: 'spec.replicas, spec.deploymentName',
    });
  });

  it('keep what the Icecream says', async () => {
    const created = await icecreams.create(
      env.namespace,
      icecream('lemon', { flavor: 'lemon', replicas: 0, deploymentName: 'lemon-scoops' }),
    );
    expect(created.spec).toEqual({ flavor: 'lemon', replicas: 0, deploymentName: 'lemon-scoops' });
  });

  it('deny a Deployment name that is not the Icecream name or prefixed by it, as 422 Invalid', async () => {
    const error = await refusal(
      icecreams.create(
        env.namespace,
        icecream('berry', { flavor: 'berry', replicas: 1, deploymentName: 'vanilla-scoops' }),
      ),
    );
    expect(error.status).toBe(422);
    expect(error.reason).toBe('Invalid');
    expect(error.body?.message).toBe(
      'admission webhook "vicecream.example.lasso.dev" denied the request: spec.deploymentName must be "berry" or start with "berry-", got "vanilla-scoops"',
    );
    expect(logger.find('Icecream denied')[0]?.attributes).toMatchObject({
      icecream: `${env.namespace}/berry`,
      operation: 'CREATE',
    });
  });

  it('deny a change of flavor and allow a change of replicas', async () => {
    const live = await icecreams.get(env.namespace, 'lemon');
    const error = await refusal(
      icecreams.update(env.namespace, { ...live, spec: { ...live.spec, flavor: 'lime' } }),
    );
    expect(error.status).toBe(422);
    expect(error.body?.message).toBe(
      'admission webhook "vicecream.example.lasso.dev" denied the request: spec.flavor cannot change once scooped (was "lemon"): create another Icecream',
    );
    const updated = await icecreams.update(env.namespace, {
      ...live,
      spec: { ...live.spec, replicas: 2 },
    });
    expect(updated.spec.replicas).toBe(2);
  });

  it('answer a dry run with the defaults and store nothing', async () => {
    const answered = await icecreams.create(env.namespace, icecream('peach', { flavor: 'peach' }), {
      dryRun: true,
    });
    expect(answered.spec.replicas).toBe(1);
    const error = await refusal(icecreams.get(env.namespace, 'peach'));
    expect(error.status).toBe(404);
  });
});
