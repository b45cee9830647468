// Conformance: admission webhooks as kube-apiserver (1.20+) calls them. A small recording HTTPS webhook in
// this file answers by its path; env.installWebhooks installs each test's configurations and waits until
// they are in effect. Every expectation holds on the built-in server and on a real kube-apiserver (1.20.2
// checked): the recorded AdmissionReviews are compared field by field against the same literals on both.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, createSignedCertificate } from '@lasso/core/pki';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, configMap, crd, unique } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './gates.ts';

/** One review the webhook received. */
interface Recorded {
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  review: any;
}

/** What the webhook answers on a path: a response (without uid), a whole body (`raw`), or `hang`. */
type Behaviour = (review: any) => Record<string, unknown> | { raw: unknown } | 'hang' | 'garbage';

class RecordingWebhook {
  readonly recorded: Recorded[] = [];
  readonly behaviours = new Map<string, Behaviour>();
  readonly caPem: string;
  readonly #server: Server;
  readonly #hanging = new Set<import('node:http').ServerResponse>();

  constructor() {
    const ca = createCertificateAuthority({ commonName: 'recording-webhook-ca' });
    const serving = createSignedCertificate(ca, {
      commonName: 'recording-webhook',
      ipAddresses: ['127.0.0.1'],
      dnsNames: ['localhost'],
      usage: 'server',
    });
    this.caPem = ca.certPem;
    this.#server = createServer(
      { key: serving.keyPem, cert: serving.certPem },
      (request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const url = new URL(request.url ?? '/', 'https://127.0.0.1');
          const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          this.recorded.push({
            path: url.pathname,
            query: url.searchParams,
            contentType: request.headers['content-type'],
            review,
          });
          const behaviour = this.behaviours.get(url.pathname) ?? (() => ({ allowed: true }));
          const answer = behaviour(review);
          if (answer === 'hang') {
            this.#hanging.add(response);
            return;
          }
          response.setHeader('Content-Type', 'application/json');
          if (answer === 'garbage') {
            response.end('this is not json');
            return;
          }
          if ('raw' in answer) {
            response.end(JSON.stringify(answer.raw));
            return;
          }
          response.end(
            JSON.stringify({
              apiVersion: review.apiVersion,
              kind: 'AdmissionReview',
              response: { uid: review.request.uid, ...answer },
            }),
          );
        });
      },
    );
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
  }

  get url(): string {
    return `https://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Reviews received on `path`. */
  on(path: string): Recorded[] {
    return this.recorded.filter((entry) => entry.path === path);
  }

  async stop(): Promise<void> {
    for (const response of this.#hanging) response.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

function patchOf(operations: unknown[]): Record<string, unknown> {
  return {
    allowed: true,
    patchType: 'JSONPatch',
    patch: Buffer.from(JSON.stringify(operations)).toString('base64'),
  };
}

let env: Environment;
let hook: RecordingWebhook;
let ns: string;
let cms: string;
const installed: Array<{ kind: string; name: string }> = [];

beforeAll(async () => {
  hook = new RecordingWebhook();
  await hook.start();
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  cms = `/api/v1/namespaces/${ns}/configmaps`;
});

afterAll(async () => {
  // LASSO_ADMISSION_RECORD=<file> writes every review received, to diff one server's against another's
  // beyond what the tests assert (uids, timestamps and generated names differ by nature).
  if (process.env.LASSO_ADMISSION_RECORD) {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      process.env.LASSO_ADMISSION_RECORD,
      JSON.stringify(
        hook.recorded.map((entry) => ({
          path: entry.path,
          query: entry.query.toString(),
          review: entry.review,
        })),
        null,
        1,
      ),
    );
  }
  for (const { kind, name } of installed) {
    await call(env, 'DELETE', `/apis/admissionregistration.k8s.io/v1/${kind}/${name}`);
  }
  await env?.stop();
  await hook?.stop();
});

/** A webhook of a configuration, with this suite's defaults. */
function webhook(name: string, path: string, extra: Record<string, unknown> = {}): any {
  return {
    name: `${name}.webhooks.lasso.example.com`,
    clientConfig: { service: { namespace: 'default', name: 'unused', path } },
    rules: [
      {
        operations: ['CREATE', 'UPDATE', 'DELETE'],
        apiGroups: [''],
        apiVersions: ['v1'],
        resources: ['configmaps'],
      },
    ],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

async function install(
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration',
  name: string,
  webhooks: any[],
): Promise<void> {
  const resource =
    kind === 'MutatingWebhookConfiguration'
      ? 'mutatingwebhookconfigurations'
      : 'validatingwebhookconfigurations';
  installed.push({ kind: resource, name });
  await env.installWebhooks(
    [{ apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks }],
    { url: hook.url, caPem: hook.caPem, timeoutMs: 20_000 },
  );
}

/** A label that only this test's objects carry, and a selector for it. */
function marker(): { labels: Record<string, string>; objectSelector: any } {
  const value = unique('t');
  return {
    labels: { 'lasso.example.com/test': value },
    objectSelector: { matchLabels: { 'lasso.example.com/test': value } },
  };
}

describe('admission webhooks', () => {
  it('send an AdmissionReview v1 with the fields kube-apiserver sends, on create, update and delete', async () => {
    const { labels, objectSelector } = marker();
    const path = `/${unique('record')}`;
    await install('ValidatingWebhookConfiguration', unique('record'), [
      webhook('record', path, { objectSelector }),
    ]);
    const name = unique('cm');
    const created = await call(env, 'POST', `${cms}?fieldManager=tester`, {
      body: configMap(name, { a: '1' }, labels),
    });
    expect(created.status).toBe(201);
    const updated = await call(env, 'PUT', `${cms}/${name}`, {
      body: { ...created.body, data: { a: '2' } },
    });
    expect(updated.status).toBe(200);
    const deleted = await call(env, 'DELETE', `${cms}/${name}`);
    expect(deleted.status).toBe(200);

    const reviews = hook.on(path);
    expect(reviews.map((entry) => entry.review.request.operation)).toEqual([
      'CREATE',
      'UPDATE',
      'DELETE',
    ]);
    for (const entry of reviews) {
      expect(entry.query.get('timeout')).toBe('10s');
      expect(entry.contentType).toBe('application/json');
      expect(entry.review.apiVersion).toBe('admission.k8s.io/v1');
      expect(entry.review.kind).toBe('AdmissionReview');
      expect(entry.review.request.uid).toMatch(/^[0-9a-f-]{36}$/);
    }
    const [create, update, remove] = reviews.map((entry) => entry.review.request);
    const common = {
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
      requestResource: { group: '', version: 'v1', resource: 'configmaps' },
      name,
      namespace: ns,
      dryRun: false,
    };
    expect(Object.keys(create).sort()).toEqual(
      [
        'uid',
        'kind',
        'resource',
        'requestKind',
        'requestResource',
        'name',
        'namespace',
        'operation',
        'userInfo',
        'object',
        'oldObject',
        'dryRun',
        'options',
      ].sort(),
    );
    expect(create).toMatchObject({ ...common, operation: 'CREATE', oldObject: null });
    expect(create.options).toEqual({
      kind: 'CreateOptions',
      apiVersion: 'meta.k8s.io/v1',
      fieldManager: 'tester',
    });
    expect(create.object.metadata).toMatchObject({ name, namespace: ns, labels });
    expect(create.object.data).toEqual({ a: '1' });
    expect(typeof create.userInfo.username).toBe('string');
    expect(create.userInfo.groups).toContain('system:masters');

    expect(update).toMatchObject({ ...common, operation: 'UPDATE' });
    expect(update.options).toEqual({ kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' });
    expect(update.object.data).toEqual({ a: '2' });
    expect(update.oldObject.data).toEqual({ a: '1' });
    expect(update.oldObject.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);

    expect(remove).toMatchObject({ ...common, operation: 'DELETE', object: null });
    expect(remove.oldObject.data).toEqual({ a: '2' });
    expect(remove.options).toMatchObject({ kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' });
  });

  it('call mutating webhooks before validating ones, apply the patch and answer the patched object', async () => {
    const { labels, objectSelector } = marker();
    const mutate = `/${unique('mutate')}`;
    const validate = `/${unique('validate')}`;
    hook.behaviours.set(mutate, () =>
      patchOf([{ op: 'add', path: '/data/added', value: 'by-webhook' }]),
    );
    await install('MutatingWebhookConfiguration', unique('mutate'), [
      webhook('mutate', mutate, { objectSelector }),
    ]);
    await install('ValidatingWebhookConfiguration', unique('validate'), [
      webhook('validate', validate, { objectSelector }),
    ]);
    const name = unique('cm');
    const created = await call(env, 'POST', cms, { body: configMap(name, { a: '1' }, labels) });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ a: '1', added: 'by-webhook' });
    const [validated] = hook.on(validate);
    expect(validated?.review.request.object.data).toEqual({ a: '1', added: 'by-webhook' });
    // The mutating webhook saw the object before storage filled it in; the validating one after.
    const [mutated] = hook.on(mutate);
    expect(mutated?.review.request.object.metadata.uid).toBeUndefined();
    expect(validated?.review.request.object.metadata.uid).toBe(created.body.metadata.uid);
    const stored = await call(env, 'GET', `${cms}/${name}`);
    expect(stored.body.data).toEqual({ a: '1', added: 'by-webhook' });
  });

  it('validate the patched object again: a webhook that writes an invalid label gets the 422', async () => {
    const { labels, objectSelector } = marker();
    const path = `/${unique('bad-label')}`;
    hook.behaviours.set(path, () =>
      patchOf([{ op: 'add', path: '/metadata/labels/broken', value: 'not a valid value!' }]),
    );
    await install('MutatingWebhookConfiguration', unique('bad-label'), [
      webhook('bad-label', path, { objectSelector }),
    ]);
    const reply = await call(env, 'POST', cms, { body: configMap(unique('cm'), {}, labels) });
    expect(reply.status).toBe(422);
    expect(reply.body.reason).toBe('Invalid');
    expect(reply.body.message).toContain('metadata.labels');
  });

  it('call mutating webhooks one at a time, by configuration name then order, and reinvoke IfNeeded ones', async () => {
    const { labels, objectSelector } = marker();
    const prefix = unique('order');
    const paths = { first: `/${prefix}-a1`, second: `/${prefix}-a2`, third: `/${prefix}-b1` };
    const order: string[] = [];
    const appender =
      (label: string): Behaviour =>
      (review) => {
        order.push(label);
        const annotations = review.request.object.metadata.annotations;
        if (annotations?.[label] !== undefined) return { allowed: true };
        return patchOf([
          annotations === undefined
            ? { op: 'add', path: '/metadata/annotations', value: { [label]: String(order.length) } }
            : { op: 'add', path: `/metadata/annotations/${label}`, value: String(order.length) },
        ]);
      };
    hook.behaviours.set(paths.first, appender('first'));
    hook.behaviours.set(paths.second, appender('second'));
    hook.behaviours.set(paths.third, appender('third'));
    // Installed b before a: the call order follows the names, not the creation order.
    await install('MutatingWebhookConfiguration', `${prefix}-b`, [
      webhook('third', paths.third, { objectSelector }),
    ]);
    await install('MutatingWebhookConfiguration', `${prefix}-a`, [
      webhook('first', paths.first, { objectSelector, reinvocationPolicy: 'IfNeeded' }),
      webhook('second', paths.second, { objectSelector }),
    ]);
    const reply = await call(env, 'POST', cms, { body: configMap(unique('cm'), {}, labels) });
    expect(reply.status).toBe(201);
    // first ran again because second and third changed the object after it.
    expect(order).toEqual(['first', 'second', 'third', 'first']);
    expect(reply.body.metadata.annotations).toEqual({ first: '1', second: '2', third: '3' });
    const again = hook.on(paths.first)[1];
    expect(again?.review.request.object.metadata.annotations).toEqual({
      first: '1',
      second: '2',
      third: '3',
    });
  });

  it('answer a denial with the webhook code and message, 400 when it gives no code', async () => {
    const { labels, objectSelector } = marker();
    const forbid = `/${unique('forbid')}`;
    hook.behaviours.set(forbid, (review) =>
      review.request.object?.data?.mode === 'forbidden'
        ? {
            allowed: false,
            status: { code: 403, reason: 'Forbidden', message: 'mode is forbidden' },
          }
        : review.request.object?.data?.mode === 'plain'
          ? { allowed: false, status: { message: 'plain no' } }
          : { allowed: true },
    );
    const name = unique('deny');
    await install('ValidatingWebhookConfiguration', name, [
      webhook('deny', forbid, { objectSelector }),
    ]);
    const forbidden = await call(env, 'POST', cms, {
      body: configMap(unique('cm'), { mode: 'forbidden' }, labels),
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message: `admission webhook "deny.webhooks.lasso.example.com" denied the request: mode is forbidden`,
    });
    const plain = await call(env, 'POST', cms, {
      body: configMap(unique('cm'), { mode: 'plain' }, labels),
    });
    expect(plain.status).toBe(400);
    expect(plain.body.message).toBe(
      `admission webhook "deny.webhooks.lasso.example.com" denied the request: plain no`,
    );
    expect(plain.body.code).toBe(400);
  });

  it('fail closed with a 500 naming the webhook (Fail) and let the request through (Ignore)', async () => {
    const { labels, objectSelector } = marker();
    const garbage = `/${unique('garbage')}`;
    hook.behaviours.set(garbage, () => 'garbage');
    await install('ValidatingWebhookConfiguration', unique('failing'), [
      webhook('garbage-ignored', garbage, { objectSelector, failurePolicy: 'Ignore' }),
    ]);
    const ignored = await call(env, 'POST', cms, { body: configMap(unique('cm'), {}, labels) });
    expect(ignored.status).toBe(201);

    const other = marker();
    await install('ValidatingWebhookConfiguration', unique('failing'), [
      webhook('garbage-fails', garbage, { objectSelector: other.objectSelector }),
    ]);
    const failed = await call(env, 'POST', cms, {
      body: configMap(unique('cm'), {}, other.labels),
    });
    expect(failed.status).toBe(500);
    expect(failed.body.reason).toBe('InternalError');
    expect(failed.body.message).toMatch(
      /^Internal error occurred: failed calling webhook "garbage-fails\.webhooks\.lasso\.example\.com": /,
    );
  });

  it('give up on a webhook after timeoutSeconds, sent as ?timeout=1s', async () => {
    const { labels, objectSelector } = marker();
    const hang = `/${unique('hang')}`;
    hook.behaviours.set(hang, () => 'hang');
    await install('ValidatingWebhookConfiguration', unique('hang'), [
      webhook('hang', hang, { objectSelector, timeoutSeconds: 1 }),
    ]);
    const started = Date.now();
    const reply = await call(env, 'POST', cms, { body: configMap(unique('cm'), {}, labels) });
    expect(reply.status).toBe(500);
    // Releases after 1.20 put `failed to call webhook: ` before the client's error; 1.20 does not.
    expect(reply.body.message).toMatch(
      /^Internal error occurred: failed calling webhook "hang\.webhooks\.lasso\.example\.com": (failed to call webhook: )?Post "https:\/\/127\.0\.0\.1:\d+\/hang-[a-z0-9]+\?timeout=1s": context deadline exceeded$/,
    );
    expect(reply.body.details.causes[0].message).toBe(
      reply.body.message.replace('Internal error occurred: ', ''),
    );
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(hook.on(hang)[0]?.query.get('timeout')).toBe('1s');
  });

  it('select by namespace labels and by object labels (old or new)', async () => {
    const nsPath = `/${unique('by-ns')}`;
    const objPath = `/${unique('by-object')}`;
    const value = unique('sel');
    const labelled = unique('labelled');
    expect(
      (
        await call(env, 'POST', '/api/v1/namespaces', {
          body: {
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: { name: labelled, labels: { 'lasso.example.com/ns': value } },
          },
        })
      ).status,
    ).toBe(201);
    try {
      await install('ValidatingWebhookConfiguration', unique('selectors'), [
        webhook('by-ns', nsPath, {
          namespaceSelector: { matchLabels: { 'lasso.example.com/ns': value } },
        }),
        webhook('by-object', objPath, {
          objectSelector: {
            matchExpressions: [{ key: 'lasso.example.com/obj', operator: 'In', values: [value] }],
          },
        }),
      ]);
      const inLabelled = unique('cm');
      await call(env, 'POST', `/api/v1/namespaces/${labelled}/configmaps`, {
        body: configMap(inLabelled),
      });
      await call(env, 'POST', cms, { body: configMap(unique('cm')) });
      expect(hook.on(nsPath).map((entry) => entry.review.request.name)).toEqual([inLabelled]);

      const name = unique('cm');
      const created = await call(env, 'POST', cms, {
        body: configMap(name, {}, { 'lasso.example.com/obj': value }),
      });
      // An update that removes the label is still sent: the old object matches.
      const body = structuredClone(created.body);
      body.metadata.labels = {};
      expect((await call(env, 'PUT', `${cms}/${name}`, { body })).status).toBe(200);
      // Now neither the old nor the new object carries it.
      body.metadata.resourceVersion = undefined;
      body.data = { x: 'y' };
      expect((await call(env, 'PUT', `${cms}/${name}`, { body })).status).toBe(200);
      expect(hook.on(objPath).map((entry) => entry.review.request.operation)).toEqual([
        'CREATE',
        'UPDATE',
      ]);
    } finally {
      await call(env, 'DELETE', `/api/v1/namespaces/${labelled}`);
    }
  });

  it('match rules by operation, resource and subresource, and send a Namespace with its own labels', async () => {
    const { labels, objectSelector } = marker();
    const updates = `/${unique('updates')}`;
    const namespaces = `/${unique('namespaces')}`;
    const value = unique('nsl');
    await install('ValidatingWebhookConfiguration', unique('rules'), [
      webhook('updates-only', updates, {
        objectSelector,
        rules: [
          {
            operations: ['UPDATE'],
            apiGroups: ['*'],
            apiVersions: ['*'],
            resources: ['configmaps'],
          },
        ],
      }),
      webhook('namespaces', namespaces, {
        namespaceSelector: { matchLabels: { 'lasso.example.com/nsl': value } },
        rules: [
          {
            operations: ['*'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['namespaces', 'namespaces/*'],
            scope: 'Cluster',
          },
        ],
      }),
    ]);
    const name = unique('cm');
    const created = await call(env, 'POST', cms, { body: configMap(name, {}, labels) });
    expect(hook.on(updates)).toEqual([]);
    await call(env, 'PUT', `${cms}/${name}`, { body: { ...created.body, data: { b: '1' } } });
    expect(hook.on(updates).map((entry) => entry.review.request.operation)).toEqual(['UPDATE']);

    const nsName = unique('nsw');
    await call(env, 'POST', '/api/v1/namespaces', {
      body: {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: nsName, labels: { 'lasso.example.com/nsl': value } },
      },
    });
    await call(env, 'DELETE', `/api/v1/namespaces/${nsName}`);
    const seen = hook.on(namespaces).map((entry) => entry.review.request);
    expect(seen.map((request) => request.operation)).toEqual(['CREATE', 'DELETE']);
    // A Namespace's requests name it as their namespace, its create included.
    expect(seen[0]).toMatchObject({ name: nsName, namespace: nsName, kind: { kind: 'Namespace' } });
    expect(seen[1]).toMatchObject({ name: nsName, namespace: nsName });
  });

  it('return the warnings of a webhook as Warning headers', async () => {
    const { labels, objectSelector } = marker();
    const path = `/${unique('warn')}`;
    hook.behaviours.set(path, () => ({ allowed: true, warnings: ['first warning', 'second'] }));
    await install('ValidatingWebhookConfiguration', unique('warn'), [
      webhook('warn', path, { objectSelector }),
    ]);
    const reply = await call(env, 'POST', cms, { body: configMap(unique('cm'), {}, labels) });
    expect(reply.status).toBe(201);
    const header = reply.headers.warning;
    const values = (Array.isArray(header) ? header : [header ?? '']).join(', ');
    expect(values).toContain('299 - "first warning"');
    expect(values).toContain('299 - "second"');
  });

  it('send dry runs with dryRun true to NoneOnDryRun webhooks and store nothing', async () => {
    const { labels, objectSelector } = marker();
    const path = `/${unique('dry')}`;
    await install('ValidatingWebhookConfiguration', unique('dry'), [
      webhook('dry', path, { objectSelector, sideEffects: 'NoneOnDryRun' }),
    ]);
    const name = unique('cm');
    const reply = await call(env, 'POST', `${cms}?dryRun=All`, {
      body: configMap(name, {}, labels),
    });
    expect(reply.status).toBe(201);
    const [entry] = hook.on(path);
    expect(entry?.review.request.dryRun).toBe(true);
    expect(entry?.review.request.options).toEqual({
      kind: 'CreateOptions',
      apiVersion: 'meta.k8s.io/v1',
      dryRun: ['All'],
    });
    expect((await call(env, 'GET', `${cms}/${name}`)).status).toBe(404);
  });

  it('send no webhook configuration to webhooks, and stop calling a deleted configuration', async () => {
    const path = `/${unique('everything')}`;
    hook.behaviours.set(path, () => ({ allowed: false, status: { message: 'nothing passes' } }));
    const name = unique('everything');
    await install('ValidatingWebhookConfiguration', name, [
      webhook('everything', path, {
        rules: [
          {
            operations: ['CREATE'],
            apiGroups: ['admissionregistration.k8s.io'],
            apiVersions: ['*'],
            resources: ['*'],
          },
        ],
      }),
    ]);
    const other = unique('other');
    const created = await call(
      env,
      'POST',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
      {
        body: {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: other },
          webhooks: [],
        },
      },
    );
    expect(created.status).toBe(201);
    await call(
      env,
      'DELETE',
      `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${other}`,
    );
    expect(hook.on(path)).toEqual([]);
  });

  it('match an equivalent version of a custom resource under matchPolicy Equivalent only', async () => {
    const group = `${unique('adm')}.lasso.example.com`;
    await env.installCrds([
      crd({ group, plural: 'gadgets', kind: 'Gadget', versions: ['v1', 'v2'], status: false }),
    ]);
    const equivalent = `/${unique('equivalent')}`;
    const exact = `/${unique('exact')}`;
    const rules = [
      { operations: ['CREATE'], apiGroups: [group], apiVersions: ['v1'], resources: ['gadgets'] },
    ];
    await install('ValidatingWebhookConfiguration', unique('versions'), [
      webhook('equivalent', equivalent, { rules, matchPolicy: 'Equivalent' }),
      webhook('exact', exact, { rules, matchPolicy: 'Exact' }),
    ]);
    const name = unique('gadget');
    const reply = await call(env, 'POST', `/apis/${group}/v2/namespaces/${ns}/gadgets`, {
      body: {
        apiVersion: `${group}/v2`,
        kind: 'Gadget',
        metadata: { name },
        spec: { message: 'hi' },
      },
    });
    expect(reply.status).toBe(201);
    expect(hook.on(exact)).toEqual([]);
    const [entry] = hook.on(equivalent);
    expect(entry?.review.request).toMatchObject({
      kind: { group, version: 'v1', kind: 'Gadget' },
      resource: { group, version: 'v1', resource: 'gadgets' },
      requestKind: { group, version: 'v2', kind: 'Gadget' },
      requestResource: { group, version: 'v2', resource: 'gadgets' },
    });
    expect(entry?.review.request.object.apiVersion).toBe(`${group}/v1`);
    await call(
      env,
      'DELETE',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${group}`,
    );
  });

  it('stop calling a webhook once its configuration is deleted', async () => {
    const { labels, objectSelector } = marker();
    const path = `/${unique('gone')}`;
    hook.behaviours.set(path, () => ({ allowed: false, status: { message: 'blocked' } }));
    const name = unique('gone');
    await install('ValidatingWebhookConfiguration', name, [
      webhook('gone', path, { objectSelector }),
    ]);
    expect(
      (await call(env, 'POST', cms, { body: configMap(unique('cm'), {}, labels) })).status,
    ).toBe(400);
    await call(
      env,
      'DELETE',
      `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`,
    );
    // kube-apiserver's informer needs a moment; the built-in server reads the store on every write.
    await eventually(async () => {
      const reply = await call(env, 'POST', `${cms}?dryRun=All`, {
        body: configMap(unique('cm'), {}, labels),
      });
      return reply.status === 201;
    });
  });

  it('convert a custom resource between its versions through the CRD conversion webhook', async () => {
    const group = `${unique('conv')}.lasso.example.com`;
    const path = `/${unique('convert')}`;
    let failing = false;
    // v1 keeps spec.message, v2 the same text as the one item of spec.tags.
    hook.behaviours.set(path, (review) => {
      const { uid, desiredAPIVersion, objects } = review.request;
      const convertedObjects = objects.map((object: any) => {
        const spec = { ...object.spec };
        if (desiredAPIVersion.endsWith('/v2') && spec.message !== undefined) {
          spec.tags = [spec.message];
          delete spec.message;
        } else if (desiredAPIVersion.endsWith('/v1') && Array.isArray(spec.tags)) {
          spec.message = spec.tags[0];
          delete spec.tags;
        }
        return { ...object, apiVersion: desiredAPIVersion, spec };
      });
      return {
        raw: {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          response: failing
            ? { uid, result: { status: 'Failure', message: 'conversion refused' } }
            : { uid, convertedObjects, result: { status: 'Success' } },
        },
      };
    });
    const definition = crd({ group, plural: 'things', kind: 'Thing', versions: ['v1', 'v2'] });
    definition.spec.conversion = {
      strategy: 'Webhook',
      webhook: {
        clientConfig: {
          url: `${hook.url}${path}`,
          caBundle: Buffer.from(hook.caPem).toString('base64'),
        },
        conversionReviewVersions: ['v1'],
      },
    };
    await env.installCrds([definition]);
    try {
      const v1 = `/apis/${group}/v1/namespaces/${ns}/things`;
      const v2 = `/apis/${group}/v2/namespaces/${ns}/things`;
      const created = await call(env, 'POST', v2, {
        body: {
          apiVersion: `${group}/v2`,
          kind: 'Thing',
          metadata: { name: 'one' },
          spec: { tags: ['hi'] },
        },
      });
      expect(created.status).toBe(201);
      expect(created.body.spec).toEqual({ tags: ['hi'] });
      // Stored in v1 (the storage version) as the webhook converted it.
      const stored = await call(env, 'GET', `${v1}/one`);
      expect(stored.body.spec).toEqual({ message: 'hi' });
      const read = await call(env, 'GET', `${v2}/one`);
      expect(read.body).toMatchObject({ apiVersion: `${group}/v2`, spec: { tags: ['hi'] } });
      expect(read.body.metadata.uid).toBe(stored.body.metadata.uid);
      const listed = await call(env, 'GET', v2);
      expect(listed.body.items.map((item: any) => item.spec)).toEqual([{ tags: ['hi'] }]);
      const updated = await call(env, 'PUT', `${v2}/one`, {
        body: { ...read.body, spec: { tags: ['bye'] } },
      });
      expect(updated.status).toBe(200);
      expect(updated.body.spec).toEqual({ tags: ['bye'] });
      expect(updated.body.metadata.generation).toBe(2);
      expect((await call(env, 'GET', `${v1}/one`)).body.spec).toEqual({ message: 'bye' });

      const toStorage = hook
        .on(path)
        .find((entry) => entry.review.request.desiredAPIVersion === `${group}/v1`);
      expect(toStorage?.review).toMatchObject({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { desiredAPIVersion: `${group}/v1` },
      });
      expect(toStorage?.review.request.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(toStorage?.review.request.objects[0]).toMatchObject({
        apiVersion: `${group}/v2`,
        spec: { tags: ['hi'] },
      });
      // kube's conversion client sends its REST client's 30 s timeout.
      expect(toStorage?.query.get('timeout')).toBe('30s');

      failing = true;
      const refused = await call(env, 'GET', `${v2}/one`);
      // A bare 500: no reason, no details.
      expect(refused.status).toBe(500);
      expect(refused.body).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `conversion webhook for ${group}/v1, Kind=Thing failed: conversion refused`,
        code: 500,
      });
      // The storage version needs no conversion.
      expect((await call(env, 'GET', `${v1}/one`)).status).toBe(200);
    } finally {
      await call(
        env,
        'DELETE',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.${group}`,
      );
    }
  });
  it('refuse a configuration without sideEffects or admissionReviewVersions, and default the rest', async () => {
    const base = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
    const name = unique('invalid');
    const refused = await call(env, 'POST', base, {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name },
        webhooks: [
          { name: 'x.webhooks.lasso.example.com', clientConfig: { url: `${hook.url}/x` } },
        ],
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.reason).toBe('Invalid');
    const fields = refused.body.details.causes.map((cause: any) => cause.field).sort();
    expect(fields).toEqual(['webhooks[0].admissionReviewVersions', 'webhooks[0].sideEffects']);
    for (const cause of refused.body.details.causes) {
      expect(cause.reason).toBe('FieldValueRequired');
    }

    const defaulted = await call(env, 'POST', base, {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name },
        webhooks: [
          {
            name: 'x.webhooks.lasso.example.com',
            clientConfig: { url: `${hook.url}/x` },
            rules: [
              {
                operations: ['CREATE'],
                apiGroups: [''],
                apiVersions: ['v1'],
                resources: ['secrets'],
              },
            ],
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
          },
        ],
      },
    });
    expect(defaulted.status).toBe(201);
    installed.push({ kind: 'validatingwebhookconfigurations', name });
    expect(defaulted.body.webhooks[0]).toMatchObject({
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      rules: [{ scope: '*' }],
    });
    expect(defaulted.body.metadata.generation).toBe(1);
  });

  it('send each item of a deletecollection to the DELETE webhooks, however many there are', async () => {
    const { labels, objectSelector } = marker();
    const path = `/${unique('bulk')}`;
    await install('ValidatingWebhookConfiguration', unique('bulk'), [
      webhook('bulk', path, {
        objectSelector,
        rules: [
          {
            operations: ['DELETE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['configmaps'],
          },
        ],
      }),
    ]);
    const names = Array.from({ length: 40 }, (_, index) => `bulk-${index}-${unique('cm')}`);
    for (const name of names) {
      expect((await call(env, 'POST', cms, { body: configMap(name, {}, labels) })).status).toBe(
        201,
      );
    }
    const selector = encodeURIComponent(
      Object.entries(labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(','),
    );
    const deleted = await call(env, 'DELETE', `${cms}?labelSelector=${selector}`);
    expect(deleted.status).toBe(200);
    const seen = hook.on(path).map((entry) => entry.review.request);
    expect(seen.every((request) => request.operation === 'DELETE')).toBe(true);
    // The review names the collection's request: no name, each item as oldObject.
    expect(seen.every((request) => request.name === undefined)).toBe(true);
    expect(seen.map((request) => request.oldObject.metadata.name).sort()).toEqual(
      [...names].sort(),
    );
    const left = await call(env, 'GET', `${cms}?labelSelector=${selector}`);
    expect(left.body.items).toEqual([]);
  });
});
