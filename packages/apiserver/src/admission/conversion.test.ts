import { describe, expect, it } from 'vitest';
import { conversionKey, restoreMetadata } from './conversion.ts';

describe('conversion helpers', () => {
  it('keys a conversion by content, labels, annotations and target, not by the rest of metadata', () => {
    const object = {
      apiVersion: 'g/v1',
      kind: 'Thing',
      metadata: { name: 'a', resourceVersion: '1', labels: { x: 'y' } },
      spec: { message: 'hi' },
    };
    const newer = { ...object, metadata: { ...object.metadata, resourceVersion: '7' } };
    expect(conversionKey(newer, 'g/v2')).toBe(conversionKey(object, 'g/v2'));
    expect(conversionKey(object, 'g/v3')).not.toBe(conversionKey(object, 'g/v2'));
    const relabelled = { ...object, metadata: { ...object.metadata, labels: { x: 'z' } } };
    expect(conversionKey(relabelled, 'g/v2')).not.toBe(conversionKey(object, 'g/v2'));
  });

  it('keeps the original metadata but for the labels and annotations the webhook returned', () => {
    const original = {
      apiVersion: 'g/v1',
      kind: 'Thing',
      metadata: {
        name: 'a',
        uid: 'u',
        resourceVersion: '3',
        labels: { old: '1' },
        annotations: { a: 'b' },
      },
    };
    const converted = {
      apiVersion: 'g/v2',
      kind: 'Thing',
      metadata: { name: 'a', uid: 'changed', labels: { new: '2' } },
      spec: { tags: ['hi'] },
    };
    expect(restoreMetadata(original, converted)).toEqual({
      apiVersion: 'g/v2',
      kind: 'Thing',
      metadata: { name: 'a', uid: 'u', resourceVersion: '3', labels: { new: '2' } },
      spec: { tags: ['hi'] },
    });
  });
});
