import type { KubeObject } from '@lasso/client';
import { isLassoError } from '@lasso/core';
import { createTestLogger, createTestMetricsProvider, FakeClock } from '@lasso/core/testing';
import { kindFor } from '@lasso/factory';
import { afterEach, describe, expect, it } from 'vitest';
import { admissionReview, post } from './__fixtures__/https-client.ts';
import { createConversion } from './conversion.ts';
import { createSelfSignedCertificates } from './self-signed.ts';
import { type AdmissionRequest, allow, deny } from './types.ts';
import {
  createWebhookServer,
  type WebhookServer,
  type WebhookServerOptions,
} from './webhook-server.ts';

interface Widget extends KubeObject {
  spec?: { size?: number; color?: string; tags?: string[] };
}

const widgets = kindFor<Widget>('example.com/v1', 'Widget', {
  resource: 'widgets',
  namespaced: true,
});
const certificates = createSelfSignedCertificates();
const caPem = certificates.caPem;
const validatePath = '/validate-example-com-v1-widget';
const mutatePath = '/mutate-example-com-v1-widget';

const servers: WebhookServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function startServer(options: Partial<WebhookServerOptions> = {}) {
  const clock = new FakeClock();
  const metrics = createTestMetricsProvider();
  const logger = createTestLogger();
  const server = createWebhookServer({
    tls: { certPem: certificates.certPem, keyPem: certificates.keyPem },
    host: '127.0.0.1',
    port: 0,
    clock,
    metrics,
    logger,
    ...options,
  });
  servers.push(server);
  const stop = new AbortController();
  return { server, clock, metrics, logger, stop, start: () => server.start(stop.signal) };
}

function decodePatch(response: { patch?: string }): unknown {
  return JSON.parse(Buffer.from(response.patch ?? '', 'base64').toString('utf8'));
}

describe('WebhookServer', () => {
  describe('validating webhooks', () => {
    it('admits when the handler returns nothing, with the warnings it added, and passes the request fields', async () => {
      const t = await startServer();
      let seen: AdmissionRequest<Widget> | undefined;
      t.server.validating(widgets, {
        handler: (request) => {
          seen = request;
          request.warn('spec.size will be required in v2');
        },
      });
      await t.start();
      const reply = await post(
        `${t.server.url()}${validatePath}?timeout=10s`,
        admissionReview({
          operation: 'UPDATE',
          dryRun: true,
          oldObject: {
            apiVersion: 'example.com/v1',
            kind: 'Widget',
            metadata: { name: 'w' },
            spec: { size: 1 },
          },
        }),
        { caPem },
      );
      expect(reply.status).toBe(200);
      expect(reply.json()).toEqual({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: {
          uid: '7b7a6a36-1b79-4f6c-9a3b-4c4e3f1f0c11',
          allowed: true,
          warnings: ['spec.size will be required in v2'],
        },
      });
      expect(seen?.operation).toBe('UPDATE');
      expect(seen?.dryRun).toBe(true);
      expect(seen?.object?.spec?.size).toBe(3);
      expect(seen?.oldObject?.spec?.size).toBe(1);
      expect(seen?.userInfo).toEqual({
        username: 'jane',
        uid: 'u-1',
        groups: ['dev', 'system:authenticated'],
      });
      expect(seen?.namespace).toBe('default');
      expect(seen?.signal.aborted).toBe(false);
      expect(
        t.metrics.value('lasso_webhook_requests_total', { webhook: validatePath, code: '200' }),
      ).toBe(1);
      expect(
        t.metrics.observations('lasso_webhook_latency_seconds', { webhook: validatePath }),
      ).toHaveLength(1);
      expect(t.metrics.value('lasso_webhook_requests_in_flight', { webhook: validatePath })).toBe(
        0,
      );
    });

    it('denies with the code, message and reason of deny()', async () => {
      const t = await startServer();
      t.server.validating(widgets, {
        handler: ({ object }) =>
          (object?.spec?.size ?? 0) > 2
            ? deny('spec.size must be at most 2', { code: 422, reason: 'Invalid', warnings: ['w'] })
            : allow(),
      });
      await t.start();
      const reply = await post(`${t.server.url()}${validatePath}`, admissionReview({}), { caPem });
      expect(reply.status).toBe(200);
      expect(reply.json().response).toEqual({
        uid: '7b7a6a36-1b79-4f6c-9a3b-4c4e3f1f0c11',
        allowed: false,
        status: { code: 422, message: 'spec.size must be at most 2', reason: 'Invalid' },
        warnings: ['w'],
      });
      expect(t.metrics.value('lasso_webhook_denials_total', { webhook: validatePath })).toBe(1);
    });

    it('denies with 403 Forbidden by default', async () => {
      const t = await startServer();
      t.server.validating(widgets, { handler: () => deny('no') });
      await t.start();
      const reply = await post(`${t.server.url()}${validatePath}`, admissionReview({}), { caPem });
      expect(reply.json().response.status).toEqual({
        code: 403,
        message: 'no',
        reason: 'Forbidden',
      });
    });

    it('answers a thrown error as allowed: false with code 500 and its message, and logs it', async () => {
      const t = await startServer();
      t.server.validating(widgets, {
        handler: async () => {
          throw new Error('the quota service is down');
        },
      });
      await t.start();
      const reply = await post(`${t.server.url()}${validatePath}`, admissionReview({}), { caPem });
      expect(reply.status).toBe(200);
      expect(reply.json().response).toEqual({
        uid: '7b7a6a36-1b79-4f6c-9a3b-4c4e3f1f0c11',
        allowed: false,
        status: { code: 500, message: 'the quota service is down' },
      });
      expect(t.metrics.value('lasso_webhook_errors_total', { webhook: validatePath })).toBe(1);
      expect(t.logger.find('admission handler failed')).toHaveLength(1);
    });

    it('answers a hostile thrown value without crashing', async () => {
      const t = await startServer();
      const hostile = new Proxy(
        {},
        {
          get() {
            throw new Error('trap');
          },
        },
      );
      t.server.validating(widgets, {
        handler: () => {
          throw hostile;
        },
      });
      await t.start();
      const reply = await post(`${t.server.url()}${validatePath}`, admissionReview({}), { caPem });
      expect(reply.json().response.allowed).toBe(false);
      expect(reply.json().response.status.code).toBe(500);
    });

    it("aborts the handler's signal at the request's ?timeout= and answers code 500", async () => {
      const t = await startServer();
      let entered!: () => void;
      const started = new Promise<void>((resolve) => {
        entered = resolve;
      });
      let reason: unknown;
      t.server.validating(widgets, {
        handler: ({ signal }) =>
          new Promise<undefined>((_resolve, reject) => {
            signal.addEventListener('abort', () => {
              reason = signal.reason;
              reject(signal.reason);
            });
            entered();
          }),
      });
      await t.start();
      const replied = post(`${t.server.url()}${validatePath}?timeout=2s`, admissionReview({}), {
        caPem,
      });
      await started;
      await t.clock.advance(1_999);
      expect(reason).toBeUndefined();
      await t.clock.advance(1);
      const reply = await replied;
      expect(isLassoError(reason, 'LASSO_TIMEOUT')).toBe(true);
      expect(reply.json().response).toMatchObject({
        allowed: false,
        status: {
          code: 500,
          message: `webhook vwidget.example.com.lasso.dev timed out after 2000 ms`,
        },
      });
    });

    it('uses defaultTimeoutMs when the request has no timeout', async () => {
      const t = await startServer({ defaultTimeoutMs: 500 });
      let entered!: () => void;
      const started = new Promise<void>((resolve) => {
        entered = resolve;
      });
      t.server.validating(widgets, {
        handler: ({ signal }) =>
          new Promise<undefined>((_resolve, reject) => {
            signal.addEventListener('abort', () => reject(signal.reason));
            entered();
          }),
      });
      await t.start();
      const replied = post(`${t.server.url()}${validatePath}`, admissionReview({}), { caPem });
      await started;
      await t.clock.advance(500);
      expect((await replied).json().response.status.message).toContain('timed out after 500 ms');
    });

    it('refuses a review of another kind with code 400 in the response', async () => {
      const t = await startServer();
      t.server.validating(widgets, { handler: () => undefined });
      await t.start();
      const reply = await post(
        `${t.server.url()}${validatePath}`,
        admissionReview({ kind: { group: 'apps', version: 'v1', kind: 'Deployment' } }),
        { caPem },
      );
      expect(reply.json().response).toMatchObject({
        allowed: false,
        status: {
          code: 400,
          message:
            'webhook vwidget.example.com.lasso.dev serves example.com/v1 Widget, not apps/v1 Deployment',
        },
      });
    });
  });

  describe('mutating webhooks', () => {
    it('answers with the base64 JSON Patch from the request object to the returned one', async () => {
      const t = await startServer();
      t.server.mutating(widgets, {
        handler: ({ object }) => {
          if (object === undefined) return undefined;
          object.metadata = { ...object.metadata, labels: { 'example.com/team': 'a' } };
          object.spec = { ...object.spec, color: 'blue' };
          delete object.spec.size;
          return object;
        },
      });
      await t.start();
      const reply = await post(`${t.server.url()}${mutatePath}`, admissionReview({}), { caPem });
      const response = reply.json().response;
      expect(response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
      expect(decodePatch(response)).toEqual([
        { op: 'add', path: '/metadata/labels', value: { 'example.com/team': 'a' } },
        { op: 'remove', path: '/spec/size' },
        { op: 'add', path: '/spec/color', value: 'blue' },
      ]);
    });

    it('takes the copy a handler changed in place and returned nothing for as its answer', async () => {
      const t = await startServer();
      t.server.mutating(widgets, {
        handler: ({ object }) => {
          if (object?.spec !== undefined) object.spec.tags = ['a/b'];
        },
      });
      await t.start();
      const reply = await post(`${t.server.url()}${mutatePath}`, admissionReview({}), { caPem });
      expect(decodePatch(reply.json().response)).toEqual([
        { op: 'add', path: '/spec/tags', value: ['a/b'] },
      ]);
    });

    it('sends no patch when the handler returns nothing or an equal object', async () => {
      const t = await startServer();
      let calls = 0;
      t.server.mutating(widgets, {
        handler: ({ object }) => (calls++ === 0 ? undefined : object),
      });
      await t.start();
      for (let i = 0; i < 2; i++) {
        const reply = await post(`${t.server.url()}${mutatePath}`, admissionReview({}), { caPem });
        expect(reply.json().response).toEqual({
          uid: '7b7a6a36-1b79-4f6c-9a3b-4c4e3f1f0c11',
          allowed: true,
        });
      }
    });

    it('denies through deny() and answers a returned non-object as an error', async () => {
      const t = await startServer();
      let mode = 'deny';
      t.server.mutating(widgets, {
        handler: () => (mode === 'deny' ? deny('frozen', { code: 409 }) : (42 as never)),
      });
      await t.start();
      const denied = await post(`${t.server.url()}${mutatePath}`, admissionReview({}), { caPem });
      expect(denied.json().response).toMatchObject({
        allowed: false,
        status: { code: 409, message: 'frozen' },
      });
      mode = 'garbage';
      const errored = await post(`${t.server.url()}${mutatePath}`, admissionReview({}), { caPem });
      expect(errored.json().response).toMatchObject({ allowed: false, status: { code: 500 } });
    });
  });

  describe('conversion webhooks', () => {
    it('converts every object to the desired version and reports a failure as result Failure', async () => {
      const t = await startServer();
      t.server.conversion(
        createConversion(
          { group: 'example.com', kind: 'Widget' },
          {
            hub: 'v2',
            spokes: {
              v1: {
                toHub: (o) => ({
                  ...o,
                  spec: { sizeText: String((o.spec as { size: number }).size) },
                }),
                fromHub: (o) => ({
                  ...o,
                  spec: { size: Number((o.spec as { sizeText: string }).sizeText) },
                }),
              },
            },
          },
        ),
      );
      await t.start();
      const review = (desiredAPIVersion: string) => ({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: {
          uid: 'c-1',
          desiredAPIVersion,
          objects: [
            {
              apiVersion: 'example.com/v1',
              kind: 'Widget',
              metadata: { name: 'a', uid: 'x' },
              spec: { size: 3 },
            },
          ],
        },
      });
      const reply = await post(`${t.server.url()}/convert?timeout=30s`, review('example.com/v2'), {
        caPem,
      });
      expect(reply.status).toBe(200);
      expect(reply.json()).toEqual({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        response: {
          uid: 'c-1',
          convertedObjects: [
            {
              apiVersion: 'example.com/v2',
              kind: 'Widget',
              metadata: { name: 'a', uid: 'x' },
              spec: { sizeText: '3' },
            },
          ],
          result: { status: 'Success' },
        },
      });
      const failed = await post(`${t.server.url()}/convert`, review('example.com/v3'), { caPem });
      expect(failed.json().response).toEqual({
        uid: 'c-1',
        convertedObjects: [],
        result: {
          status: 'Failure',
          message:
            'the desired version example.com/v3 is not a version of Widget this webhook converts',
        },
      });
      expect(t.metrics.value('lasso_webhook_errors_total', { webhook: '/convert' })).toBe(1);
    });
  });

  describe('HTTP errors', () => {
    it.for([
      { name: 'an unknown path gets 404', path: '/nope', status: 404, reason: 'NotFound' },
      {
        name: 'GET gets 405',
        path: validatePath,
        method: 'GET',
        status: 405,
        reason: 'MethodNotAllowed',
      },
      {
        name: 'a wrong content type gets 415',
        path: validatePath,
        headers: { 'content-type': 'application/yaml' },
        status: 415,
        reason: 'UnsupportedMediaType',
      },
      {
        name: 'a body that is not JSON gets 400',
        path: validatePath,
        body: '{"apiVersion":',
        status: 400,
        reason: 'BadRequest',
      },
      {
        name: 'a review of another apiVersion gets 400',
        path: validatePath,
        body: JSON.stringify({
          apiVersion: 'admission.k8s.io/v1beta1',
          kind: 'AdmissionReview',
          request: {},
        }),
        status: 400,
        reason: 'BadRequest',
      },
      {
        name: 'a review without a uid gets 400',
        path: validatePath,
        body: JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          request: { operation: 'CREATE' },
        }),
        status: 400,
        reason: 'BadRequest',
      },
      {
        name: 'a JSON array gets 400',
        path: validatePath,
        body: '[]',
        status: 400,
        reason: 'BadRequest',
      },
    ])('$name', async ({ path, method, headers, body, status, reason }) => {
      const t = await startServer();
      t.server.validating(widgets, { handler: () => undefined });
      await t.start();
      const reply = await post(`${t.server.url()}${path}`, body ?? admissionReview({}), {
        caPem,
        ...(method === undefined ? {} : { method }),
        ...(headers === undefined ? {} : { headers }),
      });
      expect(reply.status).toBe(status);
      expect(reply.json()).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        code: status,
        reason,
      });
      expect(typeof reply.json().message).toBe('string');
      if (status === 405) expect(reply.headers.allow).toBe('POST');
      // The server still answers the next request.
      expect(
        (await post(`${t.server.url()}${validatePath}`, admissionReview({}), { caPem })).status,
      ).toBe(200);
    });

    it('refuses a body over maxRequestBytes with 413, whether announced or streamed', async () => {
      const t = await startServer({ maxRequestBytes: 1024 });
      t.server.validating(widgets, { handler: () => undefined });
      await t.start();
      const big = admissionReview({
        object: { apiVersion: 'example.com/v1', kind: 'Widget', data: 'x'.repeat(2048) },
      });
      const reply = await post(`${t.server.url()}${validatePath}`, big, { caPem });
      expect(reply.status).toBe(413);
      expect(reply.json().message).toBe(
        `the body of ${Buffer.byteLength(JSON.stringify(big))} bytes exceeds the limit of 1024`,
      );
      const chunked = await post(`${t.server.url()}${validatePath}`, big, {
        caPem,
        headers: { 'transfer-encoding': 'chunked' },
      });
      expect(chunked.status).toBe(413);
      expect(chunked.json().message).toBe('the body exceeds the limit of 1024 bytes');
      expect(
        (await post(`${t.server.url()}${validatePath}`, admissionReview({}), { caPem })).status,
      ).toBe(200);
    });
  });

  describe('lifecycle', () => {
    it('stops on abort, starts again, and cannot start after close()', async () => {
      const t = await startServer();
      t.server.validating(widgets, { handler: () => undefined });
      await t.start();
      expect(t.server.isRunning()).toBe(true);
      t.stop.abort();
      expect(await t.server.stopped()).toEqual({ drained: true, pending: [] });
      expect(t.server.isRunning()).toBe(false);
      expect(t.server.address()).toBeUndefined();
      const again = new AbortController();
      await t.server.start(again.signal);
      const reply = await post(`${t.server.url()}${validatePath}`, admissionReview({}), { caPem });
      expect(reply.status).toBe(200);
      await t.server.close();
      expect(t.server.isRunning()).toBe(false);
      await expect(t.server.start(new AbortController().signal)).rejects.toSatisfy(
        (error: unknown) => isLassoError(error, 'LASSO_WEBHOOK_CLOSED'),
      );
    });

    it('waits for requests in flight within gracefulShutdownTimeoutMs, then aborts their signals', async () => {
      const t = await startServer({ gracefulShutdownTimeoutMs: 1_000 });
      let entered!: () => void;
      const started = new Promise<void>((resolve) => {
        entered = resolve;
      });
      t.server.validating(widgets, {
        handler: ({ signal }) =>
          new Promise<undefined>((_resolve, reject) => {
            signal.addEventListener('abort', () => reject(signal.reason));
            entered();
          }),
      });
      await t.start();
      const replied = post(`${t.server.url()}${validatePath}?timeout=30s`, admissionReview({}), {
        caPem,
      }).catch((error: unknown) => error);
      await started;
      t.stop.abort();
      const stopped = t.server.stopped();
      await t.clock.advance(1_000);
      const result = await stopped;
      expect(result.drained).toBe(false);
      expect(result.pending).toEqual([`POST ${validatePath}`]);
      await replied;
    });

    it('rejects start() with LASSO_WEBHOOK_LISTEN when the port is taken', async () => {
      const first = await startServer();
      await first.start();
      const port = first.server.address()?.port as number;
      const second = await startServer({ port });
      await expect(second.start()).rejects.toSatisfy((error: unknown) =>
        isLassoError(error, 'LASSO_WEBHOOK_LISTEN'),
      );
      expect(second.server.isRunning()).toBe(false);
    });

    it('rejects start() with LASSO_WEBHOOK_TLS when the key does not match the certificate', async () => {
      const other = createSelfSignedCertificates();
      const t = await startServer({ tls: { certPem: certificates.certPem, keyPem: other.keyPem } });
      await expect(t.start()).rejects.toSatisfy((error: unknown) =>
        isLassoError(error, 'LASSO_WEBHOOK_TLS'),
      );
    });
  });

  describe('registration', () => {
    it('throws a TypeError for a path served twice, a bad option or a kind without a resource', async () => {
      const t = await startServer();
      t.server.validating(widgets, { handler: () => undefined });
      expect(() => t.server.validating(widgets, { handler: () => undefined })).toThrow(TypeError);
      expect(() =>
        t.server.validating(widgets, { handler: () => undefined, path: '/convert' }),
      ).toThrow(TypeError);
      expect(() =>
        t.server.mutating(widgets, { handler: () => undefined, timeoutSeconds: 31 }),
      ).toThrow(RangeError);
      expect(() =>
        t.server.mutating(kindFor<Widget>('example.com/v1', 'Widget'), {
          handler: () => undefined,
        }),
      ).toThrow(/options.resources is needed/);
      expect(() => createWebhookServer({ tls: { certFile: '', keyFile: 'k' } })).toThrow(
        /tls.certFile/,
      );
      expect(() => createWebhookServer({ tls: certificates, port: 70_000 })).toThrow(RangeError);
    });
  });
});
