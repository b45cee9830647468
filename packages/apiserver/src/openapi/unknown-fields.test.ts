import { describe, expect, it } from 'vitest';
import { Registry } from '../resources/served-resources.ts';
import { testTypes } from './__fixtures__/types.ts';
import { OpenApiPublisher } from './documents.ts';
import { strictDecodingMessage, unknownFields } from './unknown-fields.ts';

describe('unknownFields', () => {
  const definitions = new Map([
    ['x.Item', { type: 'object', properties: { name: { type: 'string' } } }],
  ]);
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          items: { type: 'array', items: { $ref: 'x.Item' } },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          embedded: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            properties: { spec: { type: 'object' } },
          },
        },
      },
    },
  };

  it('reports undeclared fields with kube paths, in document order', () => {
    const object = {
      spec: {
        bogus: 1,
        items: [{ name: 'a' }, { name: 'b', extra: true }],
        labels: { anything: 'goes' },
        free: { anything: { at: 'all' } },
        embedded: { apiVersion: 'v1', kind: 'X', metadata: {}, spec: {}, other: 1 },
      },
      top: 'level',
    };
    expect(unknownFields(schema, object, definitions)).toEqual([
      'spec.bogus',
      'spec.items[1].extra',
      'spec.embedded.other',
      'top',
    ]);
  });

  it('finds nothing in an object its schema fully declares', () => {
    expect(unknownFields(schema, { spec: { items: [{ name: 'a' }] } }, definitions)).toEqual([]);
  });

  it('words the strict 400 as kube-apiserver does', () => {
    expect(strictDecodingMessage('ConfigMap', 'v1', ['bogus', 'metadata.x'])).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus", unknown field "metadata.x"',
    );
  });

  it('checks a built-in kind against the published schema, nested types and metadata included', () => {
    const publisher = new OpenApiPublisher({ types: testTypes, version: 'v1.33.0' });
    const source = { registry: new Registry(), crds: () => [] };
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', bogus: 1 },
      spec: { containers: [{ name: 'a', image: 'x', imagePullPolicy: 'Always' }] },
    };
    expect(publisher.unknownFields(source, { group: '', version: 'v1', kind: 'Pod' }, pod)).toEqual(
      ['metadata.bogus', 'spec.containers[0].imagePullPolicy'],
    );
    // Secret has no table entry in the fixture: published open, nothing is unknown.
    expect(
      publisher.unknownFields(source, { group: '', version: 'v1', kind: 'Secret' }, { x: 1 }),
    ).toEqual([]);
  });
});
