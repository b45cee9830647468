// Conformance: a custom object is validated by its CRD's structural schema (bounds, lengths, patterns,
// formats, counts, combinators, nullable, int-or-string, list types), defaulted, and checked by CEL rules,
// with kube's messages and cause fields; CRDs with invalid defaults or rules are refused.

import { type Environment, startEnvironment } from '@lasso/envtest';
import { call, unique } from '@lasso-internal/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, serverVersion, skipBefore } from './gates.ts';

let env: Environment;
let ns: string;
const group = `${unique('valid')}.lasso.example.com`;
const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const installed: string[] = [];

const gadgetSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', minimum: 1, maximum: 10, multipleOf: 2, default: 2 },
        ratio: {
          type: 'number',
          minimum: 0,
          exclusiveMinimum: true,
          maximum: 1,
          exclusiveMaximum: true,
        },
        name: { type: 'string', minLength: 2, maxLength: 4, pattern: '^[a-z]+$' },
        mode: { type: 'string', enum: ['fast', 'slow'], default: 'slow' },
        email: { type: 'string', format: 'email' },
        address: { type: 'string', format: 'ipv4' },
        id: { type: 'string', format: 'uuid' },
        when: { type: 'string', format: 'date-time' },
        tags: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } },
        labels: {
          type: 'object',
          minProperties: 1,
          maxProperties: 2,
          additionalProperties: { type: 'string', maxLength: 3 },
        },
        port: { 'x-kubernetes-int-or-string': true },
        note: { type: 'string', nullable: true, default: 'none' },
        level: { type: 'integer', anyOf: [{ minimum: 5 }, { maximum: 1 }] },
        choice: { type: 'integer', oneOf: [{ minimum: 5 }, { minimum: 7 }] },
        set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string' },
              number: { type: 'integer', minimum: 1, default: 80 },
            },
          },
        },
        owner: { type: 'object', required: ['team'], properties: { team: { type: 'string' } } },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
      },
    },
  },
};

function definition(plural: string, kind: string, schema: unknown): any {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  };
}

async function install(body: any): Promise<void> {
  const created = await call(env, 'POST', crdsPath, { body });
  expect(created.status, created.text).toBe(201);
  installed.push(body.metadata.name);
  const path = `/apis/${group}/v1/namespaces/${ns}/${body.spec.names.plural}`;
  await eventually(async () => (await call(env, 'GET', path)).status === 200, 30_000);
}

function gadgets(): string {
  return `/apis/${group}/v1/namespaces/${ns}/gadgets`;
}

async function createGadget(spec: Record<string, unknown>): Promise<any> {
  const body = { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: unique('g') }, spec };
  return call(env, 'POST', gadgets(), { body });
}

/** The release whose wording a reply is held to (the built-in server's is the newest released one). */
async function releaseOf(): Promise<number> {
  return (await serverVersion(env)).minor;
}

function causesOf(reply: any): Array<{ reason: string; message: string; field: string }> {
  return reply.body?.details?.causes ?? [];
}

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  ns = env.namespace;
  await install(definition('gadgets', 'Gadget', gadgetSchema));
}, 60_000);

afterAll(async () => {
  for (const name of installed) await call(env, 'DELETE', `${crdsPath}/${name}`);
  await env?.stop();
});

describe('custom object validation', () => {
  it.for([
    {
      name: 'maximum',
      spec: { replicas: 12 },
      field: 'spec.replicas',
      message: 'Invalid value: 12: spec.replicas in body should be less than or equal to 10',
    },
    {
      name: 'minimum',
      spec: { replicas: 0 },
      field: 'spec.replicas',
      message: 'Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
    },
    {
      name: 'multipleOf',
      spec: { replicas: 3 },
      field: 'spec.replicas',
      message: 'Invalid value: 3: spec.replicas in body should be a multiple of 2',
    },
    {
      name: 'exclusiveMinimum',
      spec: { ratio: 0 },
      field: 'spec.ratio',
      message: 'Invalid value: 0: spec.ratio in body should be greater than 0',
    },
    {
      name: 'exclusiveMaximum',
      spec: { ratio: 1 },
      field: 'spec.ratio',
      message: 'Invalid value: 1: spec.ratio in body should be less than 1',
    },
    {
      name: 'minLength',
      spec: { name: 'a' },
      field: 'spec.name',
      message: 'Invalid value: "a": spec.name in body should be at least 2 chars long',
    },
    {
      name: 'pattern',
      spec: { name: 'AB' },
      field: 'spec.name',
      message: `Invalid value: "AB": spec.name in body should match '^[a-z]+$'`,
    },
    {
      name: 'enum',
      spec: { mode: 'warp' },
      field: 'spec.mode',
      message: 'Unsupported value: "warp": supported values: "fast", "slow"',
    },
    {
      name: 'email format',
      spec: { email: 'nobody' },
      field: 'spec.email',
      message: 'Invalid value: "nobody": spec.email in body must be of type email: "nobody"',
    },
    {
      name: 'ipv4 format',
      spec: { address: '1.2.3' },
      field: 'spec.address',
      message: 'Invalid value: "1.2.3": spec.address in body must be of type ipv4: "1.2.3"',
    },
    {
      name: 'uuid format',
      spec: { id: 'nope' },
      field: 'spec.id',
      message: 'Invalid value: "nope": spec.id in body must be of type uuid: "nope"',
    },
    {
      name: 'date-time format',
      spec: { when: 'yesterday' },
      field: 'spec.when',
      message:
        'Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
    },
    {
      name: 'required',
      spec: { owner: {} },
      field: 'spec.owner.team',
      message: 'Required value',
    },
    {
      name: 'a duplicate in a set list',
      spec: { set: ['a', 'b', 'a'] },
      field: 'spec.set[2]',
      message: 'Duplicate value: "a"',
    },
    {
      name: 'a duplicate key in a map list',
      spec: { ports: [{ name: 'http' }, { name: 'http', number: 8080 }] },
      field: 'spec.ports[1]',
      message: 'Duplicate value: map[string]interface {}{"name":"http"}',
    },
  ])('answers 422 with kube’s message for $name', async ({ spec, field, message }) => {
    const reply = await createGadget(spec);
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.reason).toBe('Invalid');
    expect(causesOf(reply)).toContainEqual(expect.objectContaining({ field, message }));
  });

  it('requires apiVersion and kind of an embedded resource', async () => {
    const reply = await createGadget({ template: { metadata: { name: 'x' } } });
    expect(reply.status).toBe(422);
    expect(causesOf(reply)).toEqual([
      {
        reason: 'FieldValueRequired',
        message: 'Required value: must not be empty',
        field: 'spec.template.apiVersion',
      },
      {
        reason: 'FieldValueRequired',
        message: 'Required value: must not be empty',
        field: 'spec.template.kind',
      },
    ]);
  });

  it('reports anyOf and oneOf failures with kube’s <nil> field', async () => {
    const anyOf = await createGadget({ level: 3 });
    expect(anyOf.status).toBe(422);
    expect(causesOf(anyOf)).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "": "spec.level" must validate at least one schema (anyOf)',
        field: '<nil>',
      },
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: 3: spec.level in body should be greater than or equal to 5',
        field: 'spec.level',
      },
    ]);
    const oneOf = await createGadget({ choice: 8 });
    expect(causesOf(oneOf)).toEqual([
      {
        reason: 'FieldValueInvalid',
        message:
          'Invalid value: "": "spec.choice" must validate one and only one schema (oneOf). Found 2 valid alternatives',
        field: '<nil>',
      },
    ]);
  });

  // Wording by release: each row lists what each release answers, newest first, `since` the first minor
  // that answers so (the row's oldest entry answers for 1.20 up to the next one, 1.20.2 measured). The
  // built-in server answers as the newest released kube-apiserver (1.37), not as a release yet to ship.
  it.for([
    {
      name: 'maxLength: TooLong in bytes from 1.32, TooLong 1.24-1.31, Invalid before',
      spec: { name: 'abcde' },
      field: 'spec.name',
      wordings: [
        // kubernetes#128553 merged TooLongMaxLength into TooLong, which counts bytes in its words.
        {
          since: 32,
          reason: 'FieldValueTooLong',
          message: 'Too long: may not be more than 4 bytes',
        },
        // kubernetes#108996 (kube-openapi bump) mapped kube-openapi's too-long failure to TooLongMaxLength.
        { since: 24, reason: 'FieldValueTooLong', message: 'Too long: may not be longer than 4' },
        {
          since: 20,
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "abcde": spec.name in body should be at most 4 chars long',
        },
      ],
    },
    {
      name: 'maxItems: TooMany from 1.24, Invalid before',
      spec: { tags: ['a', 'b', 'c'] },
      field: 'spec.tags',
      wordings: [
        // kubernetes#108996 mapped kube-openapi's max-items failure to field.TooMany.
        {
          since: 24,
          reason: 'FieldValueTooMany',
          message: 'Too many: 3: must have at most 2 items',
        },
        {
          since: 20,
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 3: spec.tags in body should have at most 2 items',
        },
      ],
    },
    {
      name: 'maxProperties: TooMany with the count from 1.24, Invalid with the bound before',
      spec: { labels: { a: 'x', b: 'y', c: 'z' } },
      field: 'spec.labels',
      wordings: [
        // kubernetes#108996 mapped it to field.TooMany; kube-openapi#297 (vendored there) made the value
        // the property count.
        {
          since: 24,
          reason: 'FieldValueTooMany',
          message: 'Too many: 3: must have at most 2 items',
        },
        {
          since: 20,
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 2: spec.labels in body should have at most 2 properties',
        },
      ],
    },
    {
      name: 'minItems: TooFew from 1.38, Invalid with the count before',
      spec: { tags: [] },
      field: 'spec.tags',
      wordings: [
        // kubernetes#141641 (merged for 1.38, which ships 2026-12-16) maps it to field.TooFew.
        { since: 38, reason: 'FieldValueTooFew', message: 'Too few: 0: must have at least 1 item' },
        {
          since: 20,
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 0: spec.tags in body should have at least 1 items',
        },
      ],
    },
    {
      name: 'minProperties: TooFew from 1.38, Invalid with the count 1.24-1.37, with the bound before',
      spec: { labels: {} },
      field: 'spec.labels',
      wordings: [
        // kubernetes#141641 maps it to field.TooFew (1.38, not released yet).
        { since: 38, reason: 'FieldValueTooFew', message: 'Too few: 0: must have at least 1 item' },
        // kube-openapi#297 (vendored by kubernetes#108996) made the value the property count.
        {
          since: 24,
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 0: spec.labels in body should have at least 1 properties',
        },
        {
          since: 20,
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 1: spec.labels in body should have at least 1 properties',
        },
      ],
    },
    {
      name: 'a wrong type: TypeInvalid from 1.24, Invalid before',
      spec: { replicas: 'two' },
      field: 'spec.replicas',
      wordings: [
        // kubernetes#108996 mapped kube-openapi's type failure to field.TypeInvalid (same text).
        {
          since: 24,
          reason: 'FieldValueTypeInvalid',
          message:
            'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
        },
        {
          since: 20,
          reason: 'FieldValueInvalid',
          message:
            'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
        },
      ],
    },
    {
      name: 'int-or-string given a boolean: TypeInvalid from 1.24, Invalid before',
      spec: { port: true },
      field: 'spec.port',
      wordings: [
        // kubernetes#108996, as for any wrong type.
        {
          since: 24,
          reason: 'FieldValueTypeInvalid',
          message:
            'Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
        },
        {
          since: 20,
          reason: 'FieldValueInvalid',
          message:
            'Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
        },
      ],
    },
  ])('answers 422 for $name', async ({ spec, field, wordings }) => {
    const release = await releaseOf();
    const wording = wordings.find((candidate) => candidate.since <= release);
    const reply = await createGadget(spec);
    expect(reply.status).toBe(422);
    const cause = causesOf(reply).find((candidate) => candidate.field === field);
    expect([cause?.reason, cause?.message]).toEqual([wording?.reason, wording?.message]);
  });

  it('validates the fields of an object over maxProperties from 1.28 (stops at the count before)', async () => {
    const reply = await createGadget({ labels: { a: 'x', b: 'y', c: 'long' } });
    expect(reply.status).toBe(422);
    const seen = causesOf(reply).map((cause) => [cause.field, cause.reason]);
    // kube-openapi#412 (vendored with CRD validation ratcheting, kubernetes#118990) stopped the short cut.
    if ((await releaseOf()) >= 28) {
      expect(seen).toEqual([
        ['spec.labels', 'FieldValueTooMany'],
        ['spec.labels.c', 'FieldValueTooLong'],
      ]);
    } else {
      expect(seen).toEqual([
        ['spec.labels', (await releaseOf()) >= 24 ? 'FieldValueTooMany' : 'FieldValueInvalid'],
      ]);
    }
  });

  it('names list items by index from 1.24 (the list only before)', async () => {
    const reply = await createGadget({ ports: [{ name: 'a', number: 0 }] });
    expect(reply.status).toBe(422);
    const fields = causesOf(reply).map((cause) => cause.field);
    // kube-openapi#273 put the index in the path (JSONPath brackets); 1.24 is the first release vendoring it.
    const indexed = (await releaseOf()) >= 24;
    expect(fields).toEqual([indexed ? 'spec.ports[0].number' : 'spec.ports.number']);
  });

  it('accepts a valid object, int-or-string either way, and a null for a nullable field', async () => {
    for (const port of [8080, 'http']) {
      const reply = await createGadget({
        replicas: 4,
        ratio: 0.5,
        name: 'ab',
        email: 'a@b.example',
        address: '10.0.0.1',
        id: '123e4567-e89b-12d3-a456-426614174000',
        when: '2024-01-02T03:04:05Z',
        tags: ['x'],
        labels: { a: 'b' },
        port,
        note: null,
        set: ['a', 'b'],
        ports: [{ name: 'http' }, { name: 'https', number: 443 }],
      });
      expect(reply.status, reply.text).toBe(201);
      expect(reply.body.spec.note).toBeNull();
    }
  });
});

describe('custom object defaulting', () => {
  it('applies defaults on create, inside list items, and for non-nullable nulls', async () => {
    const reply = await createGadget({ mode: null, ports: [{ name: 'http' }] });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body.spec).toEqual({
      replicas: 2,
      mode: 'slow',
      note: 'none',
      ports: [{ name: 'http', number: 80 }],
    });
  });

  it('applies defaults on update', async () => {
    const created = await createGadget({ replicas: 4 });
    const object = created.body;
    object.spec = { ports: [{ name: 'web' }] };
    const updated = await call(env, 'PUT', `${gadgets()}/${object.metadata.name}`, {
      body: object,
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.spec).toEqual({
      replicas: 2,
      mode: 'slow',
      note: 'none',
      ports: [{ name: 'web', number: 80 }],
    });
  });
  it('applies a default added to the CRD later when the object is read, without writing it', async () => {
    const schema = {
      type: 'object',
      properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
    };
    const body = definition('latecomers', 'Latecomer', schema);
    await install(body);
    const path = `/apis/${group}/v1/namespaces/${ns}/latecomers`;
    const created = await call(env, 'POST', path, {
      body: { apiVersion: `${group}/v1`, kind: 'Latecomer', metadata: { name: 'late' }, spec: {} },
    });
    expect(created.status, created.text).toBe(201);
    const crd = (await call(env, 'GET', `${crdsPath}/${body.metadata.name}`)).body;
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.default = 3;
    const updated = await call(env, 'PUT', `${crdsPath}/${body.metadata.name}`, { body: crd });
    expect(updated.status, updated.text).toBe(200);
    await eventually(async () => (await call(env, 'GET', `${path}/late`)).body?.spec?.size === 3);
    const read = await call(env, 'GET', `${path}/late`);
    expect(read.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    const list = await call(env, 'GET', path);
    expect(list.body.items.map((item: any) => item.spec)).toEqual([{ size: 3 }]);
  });
});

describe('CustomResourceDefinition schema checks', () => {
  it('refuses defaults that do not validate or are pruned, naming each default', async () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            size: { type: 'integer', maximum: 10, default: 50 },
            kind: { type: 'integer', default: 'five' },
            nested: {
              type: 'object',
              properties: { q: { type: 'string' } },
              default: { q: 'x', extra: 2 },
            },
          },
        },
      },
    };
    const reply = await call(env, 'POST', crdsPath, {
      body: definition('badones', 'BadOne', schema),
    });
    expect(reply.status).toBe(422);
    const base = 'spec.validation.openAPIV3Schema.properties[spec].properties';
    // Go walks properties in map order: compare as a set.
    expect(
      causesOf(reply)
        .map((cause) => `${cause.field} ${cause.message}`)
        .sort(),
    ).toEqual(
      [
        `${base}[kind].default Invalid value: "string":  in body must be of type integer: "string"`,
        `${base}[nested].default Invalid value: map[string]interface {}{"extra":2, "q":"x"}: must not have unknown fields`,
        `${base}[size].default Invalid value: 50:  in body should be less than or equal to 10`,
      ].sort(),
    );
  });

  it('refuses structural-schema violations in kube’s words', async () => {
    const schema = {
      type: 'object',
      properties: {
        untyped: { properties: { x: { type: 'string' } } },
        list: { type: 'array' },
        keyed: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object' } },
      },
    };
    const reply = await call(env, 'POST', crdsPath, {
      body: definition('unstructureds', 'Unstructured', schema),
    });
    expect(reply.status).toBe(422);
    const base = 'spec.validation.openAPIV3Schema.properties';
    expect(
      causesOf(reply)
        .map((cause) => `${cause.reason} ${cause.field}: ${cause.message}`)
        .sort(),
    ).toEqual(
      [
        `FieldValueRequired ${base}[untyped].type: Required value: must not be empty for specified object fields`,
        `FieldValueRequired ${base}[list].items: Required value: must be specified`,
        `FieldValueRequired ${base}[keyed].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      ].sort(),
    );
  });

  it('refuses metadata schemas beyond name and generateName, and defaults in metadata', async () => {
    const schema = {
      type: 'object',
      properties: {
        metadata: {
          type: 'object',
          properties: {
            labels: {
              type: 'object',
              additionalProperties: { type: 'string' },
              default: { a: 'b' },
            },
          },
        },
      },
    };
    const reply = await call(env, 'POST', crdsPath, { body: definition('metas', 'Meta', schema) });
    expect(reply.status).toBe(422);
    const base = 'spec.validation.openAPIV3Schema.properties[metadata]';
    expect(
      causesOf(reply)
        .map((cause) => `${cause.field}: ${cause.message}`)
        .sort(),
    ).toEqual(
      [
        `${base}.properties[labels].default: Forbidden: must not be set in top-level metadata`,
        `${base}: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      ].sort(),
    );
  });

  it('refuses uniqueItems', async () => {
    const schema = {
      type: 'object',
      properties: { spec: { type: 'array', uniqueItems: true, items: { type: 'string' } } },
    };
    const reply = await call(env, 'POST', crdsPath, {
      body: definition('uniques', 'Unique', schema),
    });
    expect(reply.status).toBe(422);
    expect(causesOf(reply)).toEqual([
      {
        reason: 'FieldValueForbidden',
        message:
          'Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
        field: 'spec.validation.openAPIV3Schema.properties[spec].uniqueItems',
      },
    ]);
  });
});

describe('x-kubernetes-validations', () => {
  const ruleSchema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [
          {
            rule: 'self.minReplicas <= self.maxReplicas',
            message: 'minReplicas must not exceed maxReplicas',
          },
          {
            rule: "!has(self.mode) || self.mode != 'off'",
            reason: 'FieldValueForbidden',
            fieldPath: '.mode',
          },
        ],
        properties: {
          minReplicas: { type: 'integer' },
          maxReplicas: { type: 'integer' },
          mode: { type: 'string' },
          tags: {
            type: 'array',
            items: { type: 'string' },
            'x-kubernetes-validations': [{ rule: 'self.all(t, t.size() <= 3)' }],
          },
          size: {
            type: 'integer',
            'x-kubernetes-validations': [
              { rule: 'self >= oldSelf', message: 'size may not shrink' },
            ],
          },
        },
      },
    },
  };

  /**
   * Whether a failed rule's message shows the value it failed on (`Invalid value: 3: ...`, nothing for an
   * object or a list: `Invalid value: ...`), as kubernetes#132798 and #133832 made it in 1.35; 1.25-1.34
   * show the schema's type (`Invalid value: "object": ...`).
   */
  async function showsValue(): Promise<boolean> {
    return (await releaseOf()) >= 35;
  }

  async function createRuled(spec: Record<string, unknown>): Promise<any> {
    const body = {
      apiVersion: `${group}/v1`,
      kind: 'Ruled',
      metadata: { name: unique('r') },
      spec,
    };
    return call(env, 'POST', `/apis/${group}/v1/namespaces/${ns}/ruleds`, { body });
  }

  it('evaluates rules with message, reason and fieldPath (1.28+; the value shown from 1.35, the schema type before)', async ({
    skip,
  }) => {
    // A rule's `reason` and `fieldPath` came in 1.28 (kubernetes#118041); 1.25-1.27 drop them, and the
    // cause would then be FieldValueInvalid at the rule's own path.
    await skipBefore(env, skip, 28);
    if (!installed.includes(`ruleds.${group}`))
      await install(definition('ruleds', 'Ruled', ruleSchema));
    const reply = await createRuled({
      minReplicas: 3,
      maxReplicas: 2,
      mode: 'off',
      tags: ['long'],
    });
    expect(reply.status).toBe(422);
    const since35 = await showsValue();
    expect(causesOf(reply)).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: since35
          ? 'Invalid value: minReplicas must not exceed maxReplicas'
          : 'Invalid value: "object": minReplicas must not exceed maxReplicas',
        field: 'spec',
      },
      {
        reason: 'FieldValueForbidden',
        message: "Forbidden: failed rule: !has(self.mode) || self.mode != 'off'",
        field: 'spec.mode',
      },
      {
        reason: 'FieldValueInvalid',
        message: since35
          ? 'Invalid value: failed rule: self.all(t, t.size() <= 3)'
          : 'Invalid value: "array": failed rule: self.all(t, t.size() <= 3)',
        field: 'spec.tags',
      },
    ]);
    const ok = await createRuled({ minReplicas: 1, maxReplicas: 2, tags: ['a'] });
    expect(ok.status, ok.text).toBe(201);
  });

  it('evaluates transition rules only on update, against the old value (1.25+; the value shown from 1.35, the schema type before)', async ({
    skip,
  }) => {
    await skipBefore(env, skip, 25);
    if (!installed.includes(`ruleds.${group}`))
      await install(definition('ruleds', 'Ruled', ruleSchema));
    const created = await createRuled({ minReplicas: 1, maxReplicas: 2, size: 5 });
    expect(created.status, created.text).toBe(201);
    const object = created.body;
    object.spec.size = 3;
    const path = `/apis/${group}/v1/namespaces/${ns}/ruleds/${object.metadata.name}`;
    const shrunk = await call(env, 'PUT', path, { body: object });
    expect(shrunk.status).toBe(422);
    expect(causesOf(shrunk)).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: (await showsValue())
          ? 'Invalid value: 3: size may not shrink'
          : 'Invalid value: "integer": size may not shrink',
        field: 'spec.size',
      },
    ]);
    object.spec.size = 7;
    expect((await call(env, 'PUT', path, { body: object })).status).toBe(200);
  });

  it('refuses a CRD whose rule does not compile (1.25+)', async ({ skip }) => {
    await skipBefore(env, skip, 25);
    const schema = {
      type: 'object',
      properties: {
        spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a +' }] },
      },
    };
    const reply = await call(env, 'POST', crdsPath, {
      body: definition('broken', 'Broken', schema),
    });
    expect(reply.status).toBe(422);
    const [cause] = causesOf(reply);
    expect(cause?.field).toBe(
      'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
    );
    expect(cause?.message).toContain('compilation failed: ERROR: <input>:1:');
  });
});
