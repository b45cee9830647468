// Conformance: watches of a custom resource served in two versions whose CRD converts through a webhook
// (conversion.strategy Webhook). A version other than the storage one gets its events, initial and live,
// as the webhook converted them; when the webhook fails, that version's watches end (kube-apiserver 1.20's
// per-version watch cache stops on the decode error and terminates its watchers: no ERROR event) while the
// storage version's watches, which need no conversion, go on. Holds on the built-in server and on a real
// kube-apiserver (1.20.2 checked).
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, createSignedCertificate } from '@lasso/core/pki';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, crd, unique, type WireEvent, watch } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atLeast } from './gates.ts';

/** A conversion webhook: v1 keeps spec.message, v2 the same text as the one item of spec.tags. */
class ConversionWebhook {
  readonly caPem: string;
  /** The desiredAPIVersion and object count of each review received. */
  readonly reviews: { desiredAPIVersion: string; count: number }[] = [];
  failing = false;
  readonly #server: Server;

  constructor() {
    const ca = createCertificateAuthority({ commonName: 'conversion-webhook-ca' });
    const serving = createSignedCertificate(ca, {
      commonName: 'conversion-webhook',
      ipAddresses: ['127.0.0.1'],
      usage: 'server',
    });
    this.caPem = ca.certPem;
    this.#server = createServer(
      { key: serving.keyPem, cert: serving.certPem },
      (request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          const { uid, desiredAPIVersion, objects } = review.request;
          this.reviews.push({ desiredAPIVersion, count: objects.length });
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
          response.setHeader('Content-Type', 'application/json');
          response.end(
            JSON.stringify({
              apiVersion: 'apiextensions.k8s.io/v1',
              kind: 'ConversionReview',
              response: this.failing
                ? { uid, result: { status: 'Failure', message: 'conversion refused' } }
                : { uid, convertedObjects, result: { status: 'Success' } },
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
    return `https://127.0.0.1:${(this.#server.address() as AddressInfo).port}/convert`;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

let env: Environment;
let hook: ConversionWebhook;
let ns: string;

beforeAll(async () => {
  hook = new ConversionWebhook();
  await hook.start();
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
});

afterAll(async () => {
  await env?.stop();
  await hook?.stop();
});

/** Install a two-version CRD (v1 stored) converting through the hook; answers its two collection paths. */
async function installThings(): Promise<{
  group: string;
  v1: string;
  v2: string;
  remove(): Promise<void>;
}> {
  const group = `${unique('convw')}.lasso.example.com`;
  const definition = crd({ group, plural: 'things', kind: 'Thing', versions: ['v1', 'v2'] });
  definition.spec.conversion = {
    strategy: 'Webhook',
    webhook: {
      clientConfig: { url: hook.url, caBundle: Buffer.from(hook.caPem).toString('base64') },
      conversionReviewVersions: ['v1'],
    },
  };
  await env.installCrds([definition]);
  return {
    group,
    v1: `/apis/${group}/v1/namespaces/${ns}/things`,
    v2: `/apis/${group}/v2/namespaces/${ns}/things`,
    remove: async () => {
      await call(
        env,
        'DELETE',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.${group}`,
      );
    },
  };
}

function thing(group: string, name: string, message: string): any {
  return { apiVersion: `${group}/v1`, kind: 'Thing', metadata: { name }, spec: { message } };
}

/** Settles true when `ended` does within `ms`, false otherwise. */
function endsWithin(ended: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    ended.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

const named =
  (name: string) =>
  (event: WireEvent): boolean =>
    event.object?.metadata?.name === name;

describe('conversion webhook on watches', () => {
  it('converts the initial and live events of a non-storage version through the webhook', async () => {
    hook.failing = false;
    const things = await installThings();
    try {
      for (const name of ['a', 'b', 'c']) {
        const created = await call(env, 'POST', things.v1, {
          body: thing(things.group, name, name),
        });
        expect(created.status).toBe(201);
      }
      const stored = await call(env, 'GET', `${things.v1}/a`);
      const stream = await watch(env, `${things.v2}?watch=1`);
      try {
        expect(stream.status).toBe(200);
        const initial = [await stream.next(), await stream.next(), await stream.next()];
        expect(
          initial
            .map((event) => [
              event.type,
              event.object.apiVersion,
              event.object.metadata.name,
              event.object.spec,
            ])
            .sort((x, y) => String(x[2]).localeCompare(String(y[2]))),
        ).toEqual([
          ['ADDED', `${things.group}/v2`, 'a', { tags: ['a'] }],
          ['ADDED', `${things.group}/v2`, 'b', { tags: ['b'] }],
          ['ADDED', `${things.group}/v2`, 'c', { tags: ['c'] }],
        ]);
        const a = initial.find(named('a'))!;
        // The metadata is the stored object's.
        expect(a.object.metadata.uid).toBe(stored.body.metadata.uid);
        expect(a.object.metadata.resourceVersion).toBe(stored.body.metadata.resourceVersion);

        const updated = await call(env, 'PUT', `${things.v1}/a`, {
          body: { ...stored.body, spec: { message: 'bye' } },
        });
        expect(updated.status).toBe(200);
        const modified = await stream.until(named('a'), 10_000);
        expect(modified.at(-1)).toMatchObject({
          type: 'MODIFIED',
          object: {
            apiVersion: `${things.group}/v2`,
            kind: 'Thing',
            metadata: { name: 'a', resourceVersion: updated.body.metadata.resourceVersion },
            spec: { tags: ['bye'] },
          },
        });
        expect(
          hook.reviews.some((review) => review.desiredAPIVersion === `${things.group}/v2`),
        ).toBe(true);
      } finally {
        stream.close();
      }
    } finally {
      await things.remove();
    }
  });

  it('ends the watches of the converted version when the webhook fails; the storage version goes on', async () => {
    hook.failing = false;
    const things = await installThings();
    try {
      const list = await call(env, 'GET', things.v2);
      expect(list.status).toBe(200);
      const rv = list.body.metadata.resourceVersion;
      const converted = await watch(env, `${things.v2}?watch=1&resourceVersion=${rv}`);
      const storage = await watch(env, `${things.v1}?watch=1&resourceVersion=${rv}`);
      try {
        hook.failing = true;
        const created = await call(env, 'POST', things.v1, {
          body: thing(things.group, 'refused', 'hi'),
        });
        expect(created.status).toBe(201);
        const seen = await storage.until(named('refused'), 10_000);
        expect(seen.at(-1)).toMatchObject({
          type: 'ADDED',
          object: { apiVersion: `${things.group}/v1`, spec: { message: 'hi' } },
        });
        expect(await endsWithin(converted.ended, 15_000)).toBe(true);
        // The stream ends without the object and without an ERROR event.
        expect(converted.events).toEqual([]);
      } finally {
        hook.failing = false;
        converted.close();
        storage.close();
      }
    } finally {
      await things.remove();
    }
  });

  it('converts a streaming list (sendInitialEvents) and ends it with the initial-events bookmark', async () => {
    // sendInitialEvents is served from 1.27 (WatchList); older servers ignore it.
    if (!(await atLeast(env, 27))) return;
    hook.failing = false;
    const things = await installThings();
    try {
      expect(
        (await call(env, 'POST', things.v1, { body: thing(things.group, 'x', 'x') })).status,
      ).toBe(201);
      const stream = await watch(
        env,
        `${things.v2}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&resourceVersion=`,
      );
      try {
        const events = await stream.until((event) => event.type === 'BOOKMARK', 10_000);
        expect(events[0]).toMatchObject({
          type: 'ADDED',
          object: { apiVersion: `${things.group}/v2`, spec: { tags: ['x'] } },
        });
        expect(events.at(-1)?.object.metadata.annotations).toEqual({
          'k8s.io/initial-events-end': 'true',
        });
      } finally {
        stream.close();
      }
    } finally {
      await things.remove();
    }
  });
});
