// The server's side of webhook calls: a stopping server cancels the calls in flight (a webhook that never
// answers holds neither the stop nor, after it, a socket or the call's timeoutSeconds timer), and a failed
// call is the client's error, logged at debug, not a server warning.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, createSignedCertificate } from '@lasso/core/pki';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { call } from '@lasso-internal/wire';
import { afterEach, expect, it } from 'vitest';
import { createApiServer } from '../server.ts';

let hook: Server | undefined;

afterEach(async () => {
  hook?.closeAllConnections();
  await new Promise<void>((resolve) =>
    hook === undefined ? resolve() : hook.close(() => resolve()),
  );
  hook = undefined;
});

/** A webhook that takes every request and never answers; `closed` settles when the caller gives up. */
async function hangingWebhook(): Promise<{
  url: string;
  caPem: string;
  received: Promise<void>;
  closed: Promise<void>;
}> {
  const ca = createCertificateAuthority({ commonName: 'hanging-webhook-ca' });
  const serving = createSignedCertificate(ca, {
    commonName: 'hanging-webhook',
    ipAddresses: ['127.0.0.1'],
    usage: 'server',
  });
  let onReceived!: () => void;
  let onClosed!: () => void;
  const received = new Promise<void>((resolve) => (onReceived = resolve));
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  hook = createServer({ key: serving.keyPem, cert: serving.certPem }, (request) => {
    request.socket.on('close', onClosed);
    request.resume();
    onReceived();
  });
  await new Promise<void>((resolve) => hook?.listen(0, '127.0.0.1', resolve));
  const { port } = hook.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}/validate`, caPem: ca.certPem, received, closed };
}

const validatingPath = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

/** A ValidatingWebhookConfiguration of configmap creates calling `url`. */
function configuration(url: string, caPem: string, failurePolicy: 'Fail' | 'Ignore'): unknown {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: `calls-${failurePolicy.toLowerCase()}` },
    webhooks: [
      {
        name: `${failurePolicy.toLowerCase()}.lasso.example.com`,
        clientConfig: { url, caBundle: Buffer.from(caPem).toString('base64') },
        rules: [
          {
            operations: ['CREATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['configmaps'],
          },
        ],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 10,
        failurePolicy,
      },
    ],
  };
}

it('cancels a hanging webhook call when the server stops, before its timeoutSeconds', async () => {
  const clock = new FakeClock();
  const server = createApiServer({ clock, insecureHttp: true });
  const stop = new AbortController();
  await server.start(stop.signal);
  const webhook = await hangingWebhook();
  const configured = await call(server, 'POST', validatingPath, {
    body: configuration(webhook.url, webhook.caPem, 'Fail'),
  });
  expect(configured.status).toBe(201);
  const pending = call(server, 'POST', '/api/v1/namespaces/default/configmaps', {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held' } },
  }).catch(() => undefined);
  await webhook.received;
  const timersDuringCall = clock.pendingTimers();
  // The clock never moves: only a cancellation can end the call.
  stop.abort();
  expect(await server.stopped()).toMatchObject({ drained: true });
  await webhook.closed;
  await pending;
  // The call's 10 s deadline is gone with it.
  expect(clock.pendingTimers()).toBeLessThan(timersDuringCall);
  await server.close();
});

it('logs a webhook that cannot be reached at debug: the client gets the 500, the server warns nothing', async () => {
  const logger = createTestLogger();
  const server = createApiServer({ clock: new FakeClock(), insecureHttp: true, logger });
  await server.start(new AbortController().signal);
  try {
    const webhook = await hangingWebhook();
    // Port 1 refuses the connection, as envtest's readiness probes do on purpose.
    for (const failurePolicy of ['Fail', 'Ignore'] as const) {
      const configured = await call(server, 'POST', validatingPath, {
        body: configuration('https://127.0.0.1:1/probe', webhook.caPem, failurePolicy),
      });
      expect(configured.status).toBe(201);
    }
    const refused = await call(server, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'refused' } },
    });
    expect(refused.status).toBe(500);
    expect(refused.body.message).toContain('failed calling webhook "fail.lasso.example.com"');
    expect(
      logger.entries.filter((entry) => entry.level === 'warn' || entry.level === 'error'),
    ).toEqual([]);
    expect(logger.find('admission webhook failed').map((entry) => entry.level)).toContain('debug');
  } finally {
    await server.close();
  }
});
