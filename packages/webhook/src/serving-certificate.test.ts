import { X509Certificate } from 'node:crypto';
import { mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@lasso/client';
import type { LogAttributes, Logger } from '@lasso/core';
import { isLassoError } from '@lasso/core';
import { createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { kindFor } from '@lasso/factory';
import { afterEach, describe, expect, it } from 'vitest';
import { admissionReview, post } from './__fixtures__/https-client.ts';
import { createSelfSignedCertificates, writeSelfSignedCertificates } from './self-signed.ts';
import { createWebhookServer, type WebhookServer } from './webhook-server.ts';

const widgets = kindFor<KubeObject>('example.com/v1', 'Widget', {
  resource: 'widgets',
  namespaced: true,
});
const path = '/validate-example-com-v1-widget';

// A logger whose entries can be awaited: the reload is an fs event, so the test waits for its log line (bounded by
// the test timeout) instead of polling the server.
function eventLogger() {
  const waiters: Array<{ message: string; resolve: (attributes: LogAttributes) => void }> = [];
  const entries: Array<{ level: string; message: string; attributes: LogAttributes }> = [];
  const make = (base: LogAttributes): Logger => {
    const log =
      (level: string) =>
      (message: string, attributes: LogAttributes = {}): void => {
        const all = { ...base, ...attributes };
        entries.push({ level, message, attributes: all });
        for (const waiter of waiters.filter((w) => w.message === message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(all);
        }
      };
    return {
      debug: log('debug'),
      info: log('info'),
      warn: log('warn'),
      error: log('error'),
      child: (attributes) => make({ ...base, ...attributes }),
    };
  };
  return {
    logger: make({}),
    entries,
    next(message: string): Promise<LogAttributes> {
      return new Promise((resolve) => waiters.push({ message, resolve }));
    },
  };
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(directory?: string) {
  const dir = directory ?? (await mkdtemp(join(tmpdir(), 'lasso-webhook-tls-')));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const first = await writeSelfSignedCertificates(dir);
  const events = eventLogger();
  const metrics = createTestMetricsProvider();
  const server: WebhookServer = createWebhookServer({
    tls: { certFile: first.certFile, keyFile: first.keyFile, reloadDelayMs: 0 },
    host: '127.0.0.1',
    port: 0,
    logger: events.logger,
    metrics,
    clock: new FakeClock(),
  });
  cleanups.push(() => server.close());
  server.validating(widgets, { handler: () => undefined });
  await server.start(new AbortController().signal);
  return { dir, first, events, metrics, server };
}

describe('serving certificate reload', () => {
  it('serves a rotated certificate on the next handshake, without a restart', async () => {
    const { dir, first, events, metrics, server } = await setup();
    const before = await post(`${server.url()}${path}`, admissionReview({}), {
      caPem: first.caPem,
    });
    expect(before.fingerprint256).toBe(new X509Certificate(first.certPem).fingerprint256);

    const reloaded = events.next('serving certificate reloaded');
    const second = await writeSelfSignedCertificates(dir);
    const attributes = await reloaded;
    const expected = new X509Certificate(second.certPem).fingerprint256;
    // writeSelfSignedCertificates renames the key before the certificate; a reload may see the pair half
    // rotated and keep the old one first, so wait for the reload of the new certificate itself.
    if (attributes.fingerprint256 !== expected) await events.next('serving certificate reloaded');
    expect(server.certificate()?.fingerprint256).toBe(expected);

    const after = await post(`${server.url()}${path}`, admissionReview({}), {
      caPem: second.caPem,
    });
    expect(after.status).toBe(200);
    expect(after.fingerprint256).toBe(expected);
    // A client still trusting only the old CA now fails the handshake.
    await expect(
      post(`${server.url()}${path}`, admissionReview({}), { caPem: first.caPem }),
    ).rejects.toThrow();
    expect(
      metrics.value('lasso_webhook_certificate_reloads_total', { result: 'success' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it("follows a kubelet-style `..data` symlink swap (a Secret volume's rotation)", async () => {
    const base = await mkdtemp(join(tmpdir(), 'lasso-webhook-secret-'));
    cleanups.push(() => rm(base, { recursive: true, force: true }));
    // <base>/..v1/{tls.crt,tls.key}, <base>/..data -> ..v1, <base>/tls.crt -> ..data/tls.crt
    const first = createSelfSignedCertificates();
    await writeSelfSignedCertificates(join(base, '..v1'), first);
    await symlink('..v1', join(base, '..data'));
    await symlink(join('..data', 'tls.crt'), join(base, 'tls.crt'));
    await symlink(join('..data', 'tls.key'), join(base, 'tls.key'));
    const events = eventLogger();
    const server = createWebhookServer({
      tls: { certFile: join(base, 'tls.crt'), keyFile: join(base, 'tls.key'), reloadDelayMs: 0 },
      host: '127.0.0.1',
      port: 0,
      logger: events.logger,
    });
    cleanups.push(() => server.close());
    server.validating(widgets, { handler: () => undefined });
    await server.start(new AbortController().signal);

    const second = createSelfSignedCertificates();
    await writeSelfSignedCertificates(join(base, '..v2'), second);
    const reloaded = events.next('serving certificate reloaded');
    await symlink('..v2', join(base, '..data_tmp'));
    await rename(join(base, '..data_tmp'), join(base, '..data'));
    await reloaded;
    const reply = await post(`${server.url()}${path}`, admissionReview({}), {
      caPem: second.caPem,
    });
    expect(reply.fingerprint256).toBe(new X509Certificate(second.certPem).fingerprint256);
  });

  it('keeps the previous certificate when the new files do not load, and says so', async () => {
    const { dir, first, events, metrics, server } = await setup();
    const failed = events.next('serving certificate reload failed; keeping the previous one');
    await writeFile(join(dir, 'tls.crt'), 'not a certificate');
    const attributes = await failed;
    expect(String(attributes.error)).toContain('tls.crt');
    expect(
      metrics.value('lasso_webhook_certificate_reloads_total', { result: 'failure' }),
    ).toBeGreaterThanOrEqual(1);
    const reply = await post(`${server.url()}${path}`, admissionReview({}), { caPem: first.caPem });
    expect(reply.fingerprint256).toBe(new X509Certificate(first.certPem).fingerprint256);
    // The key never appears in what is logged.
    expect(JSON.stringify(events.entries)).not.toContain(first.keyPem.split('\n')[1]);
  });

  it('rejects start() with LASSO_WEBHOOK_TLS when the files are missing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lasso-webhook-none-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const server = createWebhookServer({
      tls: { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') },
      host: '127.0.0.1',
      port: 0,
    });
    cleanups.push(() => server.close());
    await expect(server.start(new AbortController().signal)).rejects.toSatisfy((error: unknown) =>
      isLassoError(error, 'LASSO_WEBHOOK_TLS'),
    );
  });

  it('coalesces a burst of changes into one reload after reloadDelayMs on the clock', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lasso-webhook-delay-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const first = await writeSelfSignedCertificates(dir);
    const clock = new FakeClock();
    const events = eventLogger();
    const server = createWebhookServer({
      tls: { certFile: first.certFile, keyFile: first.keyFile, reloadDelayMs: 250 },
      host: '127.0.0.1',
      port: 0,
      clock,
      logger: events.logger,
    });
    cleanups.push(() => server.close());
    server.validating(widgets, { handler: () => undefined });
    await server.start(new AbortController().signal);
    const second = await writeSelfSignedCertificates(dir);
    // The fs events arm one timer on the fake clock; nothing reloads until it fires.
    await clock.untilPending(1);
    expect(server.certificate()?.fingerprint256).toBe(
      new X509Certificate(first.certPem).fingerprint256,
    );
    const reloaded = events.next('serving certificate reloaded');
    await clock.advance(250);
    await reloaded;
    expect(server.certificate()?.fingerprint256).toBe(
      new X509Certificate(second.certPem).fingerprint256,
    );
  });
});
