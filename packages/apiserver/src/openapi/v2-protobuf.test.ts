import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { describe, expect, it } from 'vitest';
import { encodeV2Document } from './v2-protobuf.ts';

/** Fields of one message: number -> raw values (bytes for length-delimited, numbers otherwise). */
function fields(bytes: Uint8Array): Map<number, unknown[]> {
  const reader = new BinaryReader(bytes);
  const result = new Map<number, unknown[]>();
  while (reader.pos < reader.len) {
    const [number, type] = reader.tag();
    let value: unknown;
    if (type === WireType.LengthDelimited) value = reader.bytes();
    else if (type === WireType.Varint) value = reader.uint64();
    else if (type === WireType.Bit64) value = reader.double();
    else throw new Error(`unexpected wire type ${type}`);
    result.set(number, [...(result.get(number) ?? []), value]);
  }
  return result;
}

const decoder = new TextDecoder();
const textOf = (value: unknown): string => decoder.decode(value as Uint8Array);

describe('encodeV2Document', () => {
  const bytes = encodeV2Document({
    swagger: '2.0',
    info: { title: 'Kubernetes', version: 'v1.33.0' },
    definitions: {
      'io.k8s.api.core.v1.PodSpec': {
        type: 'object',
        required: ['containers'],
        properties: {
          containers: {
            type: 'array',
            items: { $ref: '#/definitions/io.k8s.api.core.v1.Container' },
            'x-kubernetes-patch-merge-key': 'name',
          },
        },
      },
    },
    paths: {
      '/api/v1/pods': {
        patch: {
          operationId: 'patchPod',
          parameters: [{ name: 'fieldValidation', in: 'query', type: 'string', uniqueItems: true }],
          'x-kubernetes-group-version-kind': { group: '', version: 'v1', kind: 'Pod' },
        },
      },
    },
  });

  it('writes the document fields gnostic numbers them with', () => {
    const document = fields(bytes);
    expect(textOf(document.get(1)![0])).toBe('2.0');
    const info = fields(document.get(2)![0] as Uint8Array);
    expect(textOf(info.get(1)![0])).toBe('Kubernetes');
    expect(textOf(info.get(2)![0])).toBe('v1.33.0');
  });

  it('writes definitions as named schemas with type, required, properties and vendor extensions', () => {
    const definitions = fields(fields(bytes).get(9)![0] as Uint8Array);
    const entry = fields(definitions.get(1)![0] as Uint8Array);
    expect(textOf(entry.get(1)![0])).toBe('io.k8s.api.core.v1.PodSpec');
    const podSpec = fields(entry.get(2)![0] as Uint8Array);
    expect(textOf(fields(podSpec.get(22)![0] as Uint8Array).get(1)![0])).toBe('object');
    expect(textOf(podSpec.get(19)![0])).toBe('containers');
    const property = fields(fields(podSpec.get(25)![0] as Uint8Array).get(1)![0] as Uint8Array);
    expect(textOf(property.get(1)![0])).toBe('containers');
    const containers = fields(property.get(2)![0] as Uint8Array);
    const items = fields(containers.get(23)![0] as Uint8Array);
    expect(textOf(fields(items.get(1)![0] as Uint8Array).get(1)![0])).toBe(
      '#/definitions/io.k8s.api.core.v1.Container',
    );
    const extension = fields(containers.get(31)![0] as Uint8Array);
    expect(textOf(extension.get(1)![0])).toBe('x-kubernetes-patch-merge-key');
    expect(textOf(fields(extension.get(2)![0] as Uint8Array).get(2)![0])).toBe('"name"');
  });

  it('writes a PATCH operation with its query parameter and GVK extension', () => {
    const paths = fields(fields(bytes).get(8)![0] as Uint8Array);
    const item = fields(paths.get(2)![0] as Uint8Array);
    expect(textOf(item.get(1)![0])).toBe('/api/v1/pods');
    const patch = fields(fields(item.get(2)![0] as Uint8Array).get(8)![0] as Uint8Array);
    expect(textOf(patch.get(5)![0])).toBe('patchPod');
    const parameter = fields(patch.get(8)![0] as Uint8Array);
    const nonBody = fields(fields(parameter.get(1)![0] as Uint8Array).get(2)![0] as Uint8Array);
    const query = fields(nonBody.get(3)![0] as Uint8Array);
    expect(textOf(query.get(4)![0])).toBe('fieldValidation');
    expect(textOf(query.get(2)![0])).toBe('query');
    const extension = fields(patch.get(13)![0] as Uint8Array);
    expect(textOf(extension.get(1)![0])).toBe('x-kubernetes-group-version-kind');
  });
});
