// Conformance: the metav1.Status bodies kube-apiserver sends (message, reason, details, causes, code) for the
// failures a client meets every day, and the key order of what it stores (Go writes maps sorted).

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, configMap, crd, deployment, unique } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually, skipBefore } from './gates.ts';

let env: Environment;
let ns: string;
let cms: string;

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  cms = `/api/v1/namespaces/${ns}/configmaps`;
});

afterAll(async () => {
  await env?.stop();
});

const status = (code: number, reason: string | undefined, message: string, details?: unknown) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  ...(reason === undefined ? {} : { reason }),
  ...(details === undefined ? {} : { details }),
  code,
});

describe('NotFound, AlreadyExists and Conflict', () => {
  it('names the group-qualified resource and puts the resource in details.kind', async () => {
    expect((await call(env, 'GET', `${cms}/missing`)).body).toEqual(
      status(404, 'NotFound', 'configmaps "missing" not found', {
        name: 'missing',
        kind: 'configmaps',
      }),
    );
    const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
    expect((await call(env, 'GET', `${deployments}/missing`)).body).toEqual(
      status(404, 'NotFound', 'deployments.apps "missing" not found', {
        name: 'missing',
        group: 'apps',
        kind: 'deployments',
      }),
    );
    const name = unique('twice');
    await call(env, 'POST', cms, { body: configMap(name) });
    expect((await call(env, 'POST', cms, { body: configMap(name) })).body).toEqual(
      status(409, 'AlreadyExists', `configmaps "${name}" already exists`, {
        name,
        kind: 'configmaps',
      }),
    );
  });

  it('words a stale resourceVersion and a failed update UID precondition as storage does', async () => {
    const name = unique('stale');
    const created = (await call(env, 'POST', cms, { body: configMap(name, { a: '1' }) })).body;
    await call(env, 'PUT', `${cms}/${name}`, { body: { ...created, data: { a: '2' } } });
    expect((await call(env, 'PUT', `${cms}/${name}`, { body: created })).body).toEqual(
      status(
        409,
        'Conflict',
        `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        { name, kind: 'configmaps' },
      ),
    );
    const wrongUid = structuredClone(created);
    wrongUid.metadata.uid = 'not-the-uid';
    delete wrongUid.metadata.resourceVersion;
    const reply = await call(env, 'PUT', `${cms}/${name}`, { body: wrongUid });
    expect(reply.body).toMatchObject({
      code: 409,
      reason: 'Conflict',
      details: { name, kind: 'configmaps' },
    });
    expect(reply.body.message).toMatch(
      new RegExp(
        `^Operation cannot be fulfilled on configmaps "${name}": StorageError: invalid object, Code: 4, Key: .*${name}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${created.metadata.uid}$`,
      ),
    );
  });

  it('names the kind, not the resource, when a DELETE precondition fails (rest.BeforeDelete)', async () => {
    const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const name = unique('web');
    const created = (await call(env, 'POST', deployments, { body: deployment(name) })).body;
    const reply = await call(env, 'DELETE', `${deployments}/${name}`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } },
    });
    expect(reply.body).toEqual(
      status(
        409,
        'Conflict',
        `Operation cannot be fulfilled on Deployment.apps "${name}": the UID in the precondition (not-the-uid) does not match the UID in record (${created.metadata.uid}). The object might have been deleted and then recreated`,
        { name, group: 'apps', kind: 'Deployment' },
      ),
    );
  });
});

describe('Invalid', () => {
  it('lists several causes in brackets, each once, with kube field paths', async () => {
    const reply = await call(env, 'POST', cms, {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'Bad_Name', labels: { 'bad key!': 'x', ok: 'bad value!' } },
      },
    });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({
      reason: 'Invalid',
      details: { name: 'Bad_Name', kind: 'ConfigMap' },
    });
    const causes: Array<{ field: string; message: string }> = reply.body.details.causes;
    expect(causes.map((cause) => cause.field)).toEqual([
      'metadata.name',
      'metadata.labels',
      'metadata.labels',
    ]);
    // Go walks the labels map in random order: the two label causes come either way round.
    const listed = causes.map((cause) => `${cause.field}: ${cause.message}`).join(', ');
    expect(reply.body.message).toBe(`ConfigMap "Bad_Name" is invalid: [${listed}]`);
    expect(causes[0]!.message).toMatch(/^Invalid value: "Bad_Name": /);
    expect(
      causes
        .slice(1)
        .map((cause) => cause.message.split(':')[1])
        .sort(),
    ).toEqual([' "bad key!"', ' "bad value!"']);
  });

  it('answers a missing name as ValidateObjectMeta does', async () => {
    const reply = await call(env, 'POST', cms, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} },
    });
    expect(reply.body).toEqual(
      status(
        422,
        'Invalid',
        'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
        {
          kind: 'ConfigMap',
          causes: [
            {
              reason: 'FieldValueRequired',
              message: 'Required value: name or generateName is required',
              field: 'metadata.name',
            },
          ],
        },
      ),
    );
  });

  it('lists "nil" among the propagation policies DeleteOptions supports', async () => {
    const name = unique('policy');
    await call(env, 'POST', cms, { body: configMap(name) });
    const reply = await call(env, 'DELETE', `${cms}/${name}`, {
      body: { propagationPolicy: 'Sideways' },
    });
    expect(reply.body.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
  });
});

describe('field selectors', () => {
  const refused = async (path: string): Promise<string> => {
    const reply = await call(env, 'GET', path);
    expect(reply.status).toBe(400);
    expect(reply.body.reason).toBe('BadRequest');
    expect(reply.body.details).toBeUndefined();
    return reply.body.message;
  };

  it("words a label each kind's conversion refuses", async () => {
    expect(await refused(`${cms}?fieldSelector=spec.nothing%3Dx`)).toBe(
      '"spec.nothing" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    expect(await refused(`/api/v1/namespaces/${ns}/secrets?fieldSelector=spec.nothing%3Dx`)).toBe(
      'field label not supported: spec.nothing',
    );
    expect(
      await refused(`/apis/batch/v1/namespaces/${ns}/jobs?fieldSelector=spec.nothing%3Dx`),
    ).toBe('field label "spec.nothing" not supported for batchv1.Job');
    // The Namespace conversion does not list metadata.namespace.
    expect(await refused('/api/v1/namespaces?fieldSelector=metadata.namespace%3Dx')).toBe(
      'field label not supported: metadata.namespace',
    );
    expect(
      (
        await call(
          env,
          'GET',
          `/apis/batch/v1/namespaces/${ns}/jobs?fieldSelector=status.successful%3D1`,
        )
      ).status,
    ).toBe(200);
  });

  it('selects Services on spec.type since kube-apiserver 1.31', async ({ skip }) => {
    await skipBefore(env, skip, 31);
    const reply = await call(
      env,
      'GET',
      `/api/v1/namespaces/${ns}/services?fieldSelector=spec.type%3DClusterIP`,
    );
    expect(reply.status).toBe(200);
    expect(await refused(`/api/v1/namespaces/${ns}/services?fieldSelector=spec.nothing%3Dx`)).toBe(
      'field label not supported: spec.nothing',
    );
  });
});

describe('bodies that do not decode', () => {
  it('says which kind the body must be and summarizes it', async () => {
    const array = await call(env, 'POST', cms, { body: '[1]' });
    expect(array.body).toEqual(
      status(
        400,
        'BadRequest',
        'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b315d)',
      ),
    );
    const truncated = await call(env, 'POST', cms, { body: '{"apiVersion": "v1", "kind": ' });
    expect(truncated.status).toBe(400);
    expect(truncated.body.message).toMatch(
      /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: .* \(\{"apiVersion": "v1", "kind": \)$/,
    );
  });

  it('fails to convert a known kind of another type', async () => {
    const reply = await call(env, 'POST', cms, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrong-kind' } },
    });
    expect(reply.body).toEqual(
      status(
        400,
        'BadRequest',
        'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
      ),
    );
  });
});

describe('routing and negotiation', () => {
  it('answers 405 with the router generic message and empty details', async () => {
    const expected = status(
      405,
      'MethodNotAllowed',
      'the server does not allow this method on the requested resource',
      {},
    );
    expect((await call(env, 'PUT', cms, { body: configMap('x') })).body).toEqual(expected);
    expect((await call(env, 'POST', `${cms}/x`, { body: configMap('x') })).body).toEqual(expected);
  });

  it('answers 415 from negotiation for a create and from the router for a built-in PATCH', async () => {
    expect((await call(env, 'POST', cms, { body: 'x', contentType: 'text/plain' })).body).toEqual(
      status(
        415,
        'UnsupportedMediaType',
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      ),
    );
    const name = unique('patched');
    await call(env, 'POST', cms, { body: configMap(name) });
    const patch = await call(env, 'PATCH', `${cms}/${name}`, {
      body: '{}',
      contentType: 'text/plain',
    });
    expect(patch.body).toEqual(
      status(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {}),
    );
  });

  it('answers a JSON patch that does not apply with the generic 422 and no cause', async () => {
    const name = unique('tested');
    await call(env, 'POST', cms, { body: configMap(name, { k: 'v' }) });
    const reply = await call(env, 'PATCH', `${cms}/${name}`, {
      body: '[{"op":"test","path":"/data/k","value":"nope"}]',
      contentType: 'application/json-patch+json',
    });
    expect(reply.body).toEqual(
      status(422, 'Invalid', 'the server rejected our request due to an error in our request', {}),
    );
  });

  it('answers a read at a resourceVersion not reached yet with 504 and Retry-After', async () => {
    const reply = await call(
      env,
      'GET',
      `${cms}?resourceVersion=99999999&resourceVersionMatch=NotOlderThan`,
    );
    expect(reply.status).toBe(504);
    expect(reply.headers['retry-after']).toBe('1');
    expect(reply.body).toMatchObject({
      reason: 'Timeout',
      details: {
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        retryAfterSeconds: 1,
      },
    });
    expect(reply.body.message).toMatch(
      /^Timeout: Too large resource version: 99999999, current: \d+$/,
    );
  });
});

describe('list options', () => {
  it('words a continue token that does not decode as storage does', async () => {
    expect((await call(env, 'GET', `${cms}?limit=1&continue=abc`)).body).toEqual(
      status(
        400,
        'BadRequest',
        "invalid continue token: continue key is not valid: invalid character 'i' looking for beginning of value",
      ),
    );
  });
});

describe('namespace termination', () => {
  it('refuses new content with the NamespaceTerminating cause', async () => {
    const terminating = unique('ending');
    await call(env, 'POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: terminating } },
    });
    const held = `/api/v1/namespaces/${terminating}/configmaps`;
    await call(env, 'POST', held, {
      body: { ...configMap('hold'), metadata: { name: 'hold', finalizers: ['example.com/hold'] } },
    });
    await call(env, 'DELETE', `/api/v1/namespaces/${terminating}`);
    const reply = await call(env, 'POST', held, { body: configMap('late') });
    expect(reply.body).toEqual(
      status(
        403,
        'Forbidden',
        `configmaps "late" is forbidden: unable to create new content in namespace ${terminating} because it is being terminated`,
        {
          name: 'late',
          kind: 'configmaps',
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${terminating} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      ),
    );
    const hold = (await call(env, 'GET', `${held}/hold`)).body;
    hold.metadata.finalizers = [];
    await call(env, 'PUT', `${held}/hold`, { body: hold });
  });
});

describe('generated names', () => {
  it('answers a name collision on every generated attempt with NewGenerateNameConflict', async ({
    skip,
  }) => {
    // Only the in-process server's name generator can be made to collide on demand.
    if (env.server === undefined) skip('a real server generates its own names');
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } };
    // Every draw picks the alphabet's first letter: the first create takes gen-bbbbb, the second's eight
    // attempts all collide with it.
    const random = vi.spyOn(Math, 'random').mockReturnValue(0);
    try {
      const first = await call(env, 'POST', cms, { body });
      expect(first.body.metadata.name).toBe('gen-bbbbb');
      const reply = await call(env, 'POST', cms, { body });
      expect(reply.body).toEqual(
        status(
          409,
          'AlreadyExists',
          'configmaps "gen-bbbbb" already exists, the server was not able to generate a unique name for the object',
          { name: 'gen-bbbbb', kind: 'configmaps', retryAfterSeconds: 1 },
        ),
      );
    } finally {
      random.mockRestore();
    }
  });
});

describe('key order of stored objects', () => {
  it('sorts map keys (data, labels, annotations) as Go writes them, keeping struct fields in place', async () => {
    const name = unique('ordered');
    const created = await call(env, 'POST', cms, {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, labels: { z: '1', a: '2' }, annotations: { zz: 'x', aa: 'y' } },
        data: { b: '1', a: '2', C: '3' },
      },
    });
    expect(Object.keys(created.body)).toEqual(['kind', 'apiVersion', 'metadata', 'data']);
    expect(Object.keys(created.body.metadata.labels)).toEqual(['a', 'z']);
    expect(Object.keys(created.body.metadata.annotations)).toEqual(['aa', 'zz']);
    expect(Object.keys(created.body.data)).toEqual(['C', 'a', 'b']);
    expect(Object.keys(created.body.metadata).slice(0, 5)).toEqual([
      'name',
      'namespace',
      'uid',
      'resourceVersion',
      'creationTimestamp',
    ]);
    const patched = await call(env, 'PATCH', `${cms}/${name}`, {
      body: { data: { zz: 'y', B: 'x' }, metadata: { labels: { m: 'k' } } },
      contentType: 'application/merge-patch+json',
    });
    expect(Object.keys(patched.body.data)).toEqual(['B', 'C', 'a', 'b', 'zz']);
    expect(Object.keys(patched.body.metadata.labels)).toEqual(['a', 'm', 'z']);
    const read = await call(env, 'GET', `${cms}/${name}`);
    expect(Object.keys(read.body.data)).toEqual(['B', 'C', 'a', 'b', 'zz']);
  });

  it('sorts every key of a custom resource, at every depth', async () => {
    const group = `${unique('order')}.example.com`;
    const definition = crd({ group, plural: 'widgets', kind: 'Widget' });
    definition.spec.versions[0].schema.openAPIV3Schema.properties.spec[
      'x-kubernetes-preserve-unknown-fields'
    ] = true;
    expect(
      (
        await call(env, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
          body: definition,
        })
      ).status,
    ).toBe(201);
    const widgets = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    await eventually(async () => (await call(env, 'GET', widgets)).status === 200, 20_000);
    let created: any;
    await eventually(async () => {
      created = await call(env, 'POST', widgets, {
        body: {
          kind: 'Widget',
          apiVersion: `${group}/v1`,
          spec: { zeta: 1, message: 'hi', alpha: { y: 1, b: [{ d: 1, c: 2 }] } },
          metadata: { name: 'w', labels: { z: '1', a: '2' } },
        },
      });
      return created.status === 201;
    }, 20_000);
    expect(Object.keys(created.body)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    const metadataKeys = Object.keys(created.body.metadata);
    expect(metadataKeys).toEqual([...metadataKeys].sort());
    expect(Object.keys(created.body.spec)).toEqual(['alpha', 'message', 'zeta']);
    expect(Object.keys(created.body.spec.alpha)).toEqual(['b', 'y']);
    expect(Object.keys(created.body.spec.alpha.b[0])).toEqual(['c', 'd']);
    // An update without resourceVersion: store.go puts the resource where the kind belongs.
    const put = await call(env, 'PUT', `${widgets}/w`, {
      body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: {} },
    });
    expect(put.body).toEqual(
      status(
        422,
        'Invalid',
        `widgets.${group} "w" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
        {
          name: 'w',
          group,
          kind: 'widgets',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: 0x0: must be specified for an update',
              field: 'metadata.resourceVersion',
            },
          ],
        },
      ),
    );
    await call(
      env,
      'DELETE',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`,
    );
  }, 45_000);
});
