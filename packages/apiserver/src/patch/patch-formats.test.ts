import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyJsonPatch } from './json-patch.ts';
import { applyMergePatch } from './merge-patch.ts';
import { PatchError } from './patch-error.ts';
import { applyStrategicMergePatch, strategicSchemaFor } from './strategic-merge-patch.ts';

function patchError(run: () => unknown): PatchError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PatchError);
    return error as PatchError;
  }
  throw new Error('expected a PatchError');
}

describe('applyJsonPatch', () => {
  const doc = () => ({
    metadata: { name: 'a', labels: { 'x/y': '1', 'm~n': '2' } },
    spec: { list: [1, 2, 3] },
  });

  it('applies add, remove, replace, move, copy and test in order', () => {
    const result = applyJsonPatch(doc(), [
      { op: 'test', path: '/metadata/name', value: 'a' },
      { op: 'add', path: '/metadata/labels/new', value: 'v' },
      { op: 'remove', path: '/metadata/labels/x~1y' },
      { op: 'replace', path: '/metadata/labels/m~0n', value: '3' },
      { op: 'add', path: '/spec/list/1', value: 9 },
      { op: 'add', path: '/spec/list/-', value: 4 },
      { op: 'move', from: '/spec/list/0', path: '/spec/first' },
      { op: 'copy', from: '/spec/first', path: '/spec/copy' },
    ]);
    expect(result).toEqual({
      metadata: { name: 'a', labels: { new: 'v', 'm~n': '3' } },
      spec: { list: [9, 2, 3, 4], first: 1, copy: 1 },
    });
  });

  it('does not modify the input document', () => {
    const input = doc();
    applyJsonPatch(input, [{ op: 'remove', path: '/metadata/labels' }]);
    expect(input).toEqual(doc());
  });

  it('fails a test operation with a 422 in kube wording', () => {
    const error = patchError(() =>
      applyJsonPatch(doc(), [{ op: 'test', path: '/metadata/name', value: 'b' }]),
    );
    expect(error.status).toBe(422);
    expect(error.message).toBe('testing value /metadata/name failed: test failed');
    expect(
      patchError(() =>
        applyJsonPatch(doc(), [{ op: 'test', path: '/metadata/missing', value: null }]),
      ).status,
    ).toBe(422);
  });

  it('compares test values structurally, ignoring key order', () => {
    expect(() =>
      applyJsonPatch({ a: { x: 1, y: [1, { z: 2 }] } }, [
        { op: 'test', path: '/a', value: { y: [1, { z: 2 }], x: 1 } },
      ]),
    ).not.toThrow();
  });

  it('reports missing paths and bad indexes as 422', () => {
    expect(
      patchError(() => applyJsonPatch(doc(), [{ op: 'remove', path: '/metadata/labels/nope' }]))
        .message,
    ).toBe(
      "error in remove for path: '/metadata/labels/nope': Unable to remove nonexistent key: nope: missing value",
    );
    expect(
      patchError(() => applyJsonPatch(doc(), [{ op: 'add', path: '/nope/deeper', value: 1 }]))
        .message,
    ).toBe('add operation does not apply: doc is missing path: "/nope/deeper": missing value');
    expect(
      patchError(() => applyJsonPatch(doc(), [{ op: 'replace', path: '/spec/nope', value: 1 }]))
        .message,
    ).toBe('replace operation does not apply: doc is missing key: /spec/nope: missing value');
    expect(
      patchError(() => applyJsonPatch(doc(), [{ op: 'add', path: '/spec/list/7', value: 1 }]))
        .message,
    ).toContain('Unable to access invalid index: 7');
    expect(
      patchError(() => applyJsonPatch(doc(), [{ op: 'remove', path: '/spec/list/3' }])).status,
    ).toBe(422);
    expect(
      patchError(() => applyJsonPatch(doc(), [{ op: 'add', path: '/spec/list/01', value: 1 }]))
        .status,
    ).toBe(422);
    expect(
      patchError(() => applyJsonPatch(doc(), [{ op: 'move', from: '/spec', path: '/spec/inner' }]))
        .status,
    ).toBe(422);
  });

  it('rejects an unknown op or a missing path or value with 422', () => {
    expect(patchError(() => applyJsonPatch(doc(), [{ op: 'frob', path: '/a' }])).message).toBe(
      'Unexpected kind: frob',
    );
    expect(patchError(() => applyJsonPatch(doc(), [{ path: '/a' }])).message).toBe(
      'Unexpected kind: unknown',
    );
    expect(patchError(() => applyJsonPatch(doc(), [{ op: 'add', value: 1 }])).status).toBe(422);
    expect(patchError(() => applyJsonPatch(doc(), [{ op: 'add', path: '/a' }])).status).toBe(422);
  });

  it('rejects a patch that is not a list of operations with 400', () => {
    const error = patchError(() => applyJsonPatch(doc(), { op: 'add' }));
    expect(error.status).toBe(400);
    expect(error.message).toBe(
      'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
    );
    expect(patchError(() => applyJsonPatch(doc(), [1])).status).toBe(400);
  });

  it('applies nothing when an operation fails midway (the caller keeps the original)', () => {
    const input = doc();
    patchError(() =>
      applyJsonPatch(input, [
        { op: 'add', path: '/metadata/labels/z', value: 'z' },
        { op: 'test', path: '/metadata/name', value: 'other' },
      ]),
    );
    expect(input.metadata.labels).not.toHaveProperty('z');
  });
});

describe('applyMergePatch', () => {
  it('merges objects, deletes null keys and replaces lists and scalars', () => {
    expect(
      applyMergePatch(
        { metadata: { labels: { a: '1', b: '2' } }, spec: { list: [1, 2], n: 1 } },
        { metadata: { labels: { a: null, c: '3' } }, spec: { list: [3], n: { deep: true } } },
      ),
    ).toEqual({ metadata: { labels: { b: '2', c: '3' } }, spec: { list: [3], n: { deep: true } } });
  });

  it('replaces the document with a non-object patch and ignores nulls inside new objects', () => {
    expect(applyMergePatch({ a: 1 }, [1, 2])).toEqual([1, 2]);
    expect(applyMergePatch({ a: 1 }, { b: { c: null, d: 1 } })).toEqual({ a: 1, b: { d: 1 } });
  });

  it('rejects a null patch with 400', () => {
    expect(patchError(() => applyMergePatch({}, null)).status).toBe(400);
  });

  it('is idempotent for generated documents and patches', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), json),
        fc.dictionary(fc.string(), json),
        (document, patch) => {
          const once = applyMergePatch(document, patch);
          expect(applyMergePatch(once, patch)).toEqual(once);
        },
      ),
      // Seeded: CI runs the same cases every time (a failure replays), instead of new random ones per run.
      { seed: 1 },
    );
  });
});

describe('strategicSchemaFor', () => {
  it('knows the built-in types and nothing else', () => {
    expect(strategicSchemaFor('v1', 'Pod')?.['spec.containers']).toEqual({
      mergeKey: 'name',
      strategy: 'merge',
    });
    expect(
      strategicSchemaFor('apps/v1', 'Deployment')?.['spec.template.spec.containers.env'],
    ).toEqual({
      mergeKey: 'name',
      strategy: 'merge',
    });
    expect(strategicSchemaFor('v1', 'Service')?.['spec.ports']).toEqual({
      mergeKey: 'port',
      strategy: 'merge',
    });
    for (const [apiVersion, kind] of [
      ['v1', 'ConfigMap'],
      ['v1', 'Secret'],
      ['v1', 'ServiceAccount'],
      ['v1', 'Namespace'],
      ['v1', 'Event'],
      ['coordination.k8s.io/v1', 'Lease'],
    ] as const) {
      expect(strategicSchemaFor(apiVersion, kind)?.['metadata.finalizers'], kind).toEqual({
        strategy: 'merge',
      });
    }
    expect(strategicSchemaFor('example.com/v1', 'Widget')).toBeUndefined();
    expect(strategicSchemaFor('v1', 'Widget')).toBeUndefined();
  });
});

describe('applyStrategicMergePatch', () => {
  const pod = () => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', finalizers: ['a/one'], labels: { app: 'x' } },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'app:1',
          env: [{ name: 'A', value: '1' }],
          ports: [{ containerPort: 80 }],
        },
        { name: 'sidecar', image: 'side:1' },
      ],
      tolerations: [{ key: 'k1' }],
    },
  });
  const schema = strategicSchemaFor('v1', 'Pod') ?? {};

  it('merges containers by name and their env by name', () => {
    const result = applyStrategicMergePatch(
      pod(),
      { spec: { containers: [{ name: 'app', image: 'app:2', env: [{ name: 'B', value: '2' }] }] } },
      schema,
    ) as ReturnType<typeof pod>;
    expect(result.spec.containers).toEqual([
      {
        name: 'app',
        image: 'app:2',
        // mergeSortedSlice: an item new to the list goes before the server-only items after it.
        env: [
          { name: 'B', value: '2' },
          { name: 'A', value: '1' },
        ],
        ports: [{ containerPort: 80 }],
      },
      { name: 'sidecar', image: 'side:1' },
    ]);
  });

  it('replaces lists without a patch strategy (tolerations) and deletes null fields', () => {
    const result = applyStrategicMergePatch(
      pod(),
      { metadata: { labels: { app: null } }, spec: { tolerations: [{ key: 'k2' }] } },
      schema,
    ) as ReturnType<typeof pod>;
    expect(result.spec.tolerations).toEqual([{ key: 'k2' }]);
    expect(result.metadata.labels).toEqual({});
  });

  it('unions finalizers, in patch order as kube does, and removes them with $deleteFromPrimitiveList', () => {
    const added = applyStrategicMergePatch(
      pod(),
      { metadata: { finalizers: ['b/two'] } },
      schema,
    ) as ReturnType<typeof pod>;
    expect(added.metadata.finalizers).toEqual(['b/two', 'a/one']);
    const reordered = applyStrategicMergePatch(
      pod(),
      { metadata: { finalizers: ['b/two', 'a/one'] } },
      schema,
    ) as ReturnType<typeof pod>;
    expect(reordered.metadata.finalizers).toEqual(['b/two', 'a/one']);
    const removed = applyStrategicMergePatch(
      added,
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['a/one'] } },
      schema,
    ) as ReturnType<typeof pod>;
    expect(removed.metadata.finalizers).toEqual(['b/two']);
  });

  it('deletes a list item with $patch: delete and replaces a list with $patch: replace', () => {
    const deleted = applyStrategicMergePatch(
      pod(),
      { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } },
      schema,
    ) as ReturnType<typeof pod>;
    expect(deleted.spec.containers.map((c) => c.name)).toEqual(['app']);
    const replaced = applyStrategicMergePatch(
      pod(),
      { spec: { containers: [{ name: 'only', image: 'o:1' }, { $patch: 'replace' }] } },
      schema,
    ) as ReturnType<typeof pod>;
    expect(replaced.spec.containers).toEqual([{ name: 'only', image: 'o:1' }]);
  });

  it('replaces a map with $patch: replace and empties it with $patch: delete', () => {
    const replaced = applyStrategicMergePatch(
      pod(),
      { metadata: { labels: { $patch: 'replace', b: '2' } } },
      schema,
    ) as {
      metadata: { labels: unknown };
    };
    expect(replaced.metadata.labels).toEqual({ b: '2' });
    const emptied = applyStrategicMergePatch(
      pod(),
      { metadata: { labels: { $patch: 'delete' } } },
      schema,
    ) as {
      metadata: { labels: unknown };
    };
    expect(emptied.metadata.labels).toEqual({});
  });

  it('drops keys not listed in $retainKeys', () => {
    const deployment = {
      spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } },
    };
    const result = applyStrategicMergePatch(
      deployment,
      { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      strategicSchemaFor('apps/v1', 'Deployment') ?? {},
    );
    expect(result).toEqual({ spec: { strategy: { type: 'Recreate' } } });
    const contradicting = patchError(() =>
      applyStrategicMergePatch(
        deployment,
        { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: {} } } },
        {},
      ),
    );
    expect([contradicting.status, contradicting.message]).toEqual([
      400,
      'invalid patch format of retainKeys',
    ]);
  });

  it('orders a merged list by $setElementOrder and keeps existing items in place otherwise', () => {
    const reordered = applyStrategicMergePatch(
      pod(),
      { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }] } },
      schema,
    ) as ReturnType<typeof pod>;
    expect(reordered.spec.containers.map((c) => c.name)).toEqual(['sidecar', 'app']);
    const appended = applyStrategicMergePatch(
      pod(),
      {
        spec: {
          containers: [
            { name: 'app', image: 'app:3' },
            { name: 'new', image: 'n:1' },
          ],
        },
      },
      schema,
    ) as ReturnType<typeof pod>;
    // strategicpatch's mergeSortedSlice: a server-only item goes first only when the live list had it
    // before the next patch item; a new item does not appear there, so it goes before.
    expect(appended.spec.containers.map((c) => c.name)).toEqual(['app', 'new', 'sidecar']);
    const newFirst = applyStrategicMergePatch(
      pod(),
      {
        spec: {
          containers: [
            { name: 'new', image: 'n:1' },
            { name: 'app', image: 'app:3' },
          ],
        },
      },
      schema,
    ) as ReturnType<typeof pod>;
    expect(newFirst.spec.containers.map((c) => c.name)).toEqual(['new', 'app', 'sidecar']);
  });

  it('rejects a list item without its merge key with 422 and a non-object patch with 400', () => {
    const missing = patchError(() =>
      applyStrategicMergePatch(pod(), { spec: { containers: [{ image: 'x' }] } }, schema),
    );
    expect(missing.status).toBe(422);
    expect(missing.message).toBe('map: map[image:x] does not contain declared merge key: name');
    expect(patchError(() => applyStrategicMergePatch(pod(), [], schema)).status).toBe(400);
    const unknown = patchError(() =>
      applyStrategicMergePatch(pod(), { metadata: { labels: { $patch: 'frob' } } }, schema),
    );
    expect(unknown.status).toBe(422);
    expect(unknown.message).toBe('unknown patch type: frob in map: map[$patch:frob]');
    expect(
      patchError(() =>
        applyStrategicMergePatch(
          pod(),
          { spec: { containers: [{ name: 'app', $patch: 'merge' }] } },
          schema,
        ),
      ).message,
    ).toBe('merging lists cannot yet be specified in the patch');
  });

  it('does not modify the input document', () => {
    const input = pod();
    applyStrategicMergePatch(
      input,
      { spec: { containers: [{ name: 'app', image: 'z' }] } },
      schema,
    );
    expect(input).toEqual(pod());
  });

  it('behaves as a merge patch when the schema is empty and lists hold no nulls', () => {
    // Unlike a merge patch, kube's strategic merge drops nulls inside lists it copies in.
    const json = fc.oneof(
      fc.constant(null),
      fc.jsonValue({ maxDepth: 3 }).filter((value) => !JSON.stringify(value).includes('null')),
    );
    const key = fc.string().filter((k) => !k.startsWith('$'));
    fc.assert(
      fc.property(fc.dictionary(key, json), fc.dictionary(key, json), (document, patch) => {
        expect(applyStrategicMergePatch(document, patch, {})).toEqual(
          applyMergePatch(document, patch),
        );
      }),
      { seed: 2 },
    );
  });
});
