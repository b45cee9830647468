import { describe, expect, it } from 'vitest';
import { decodeProtobufObject } from '../protobuf/decode-protobuf-object.ts';
import * as api from './index.ts';

describe('public API of @lasso/apiserver/testing', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "encodeProtobufEnvelope",
        "encodeProtobufMessage",
        "encodeProtobufObject",
      ]
    `);
  });

  it('encodes a body the server decodes back, and an envelope around given message bytes', () => {
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a' },
      data: { k: 'v' },
    };
    const message = api.encodeProtobufMessage(object);
    const body = api.encodeProtobufEnvelope('v1', 'ConfigMap', message);
    expect(body).toEqual(api.encodeProtobufObject(object));
    expect(decodeProtobufObject(body)).toMatchObject(object);
    expect(() =>
      api.encodeProtobufObject({ apiVersion: 'example.com/v1', kind: 'Widget' }),
    ).toThrow(new TypeError('no protobuf message for example.com/v1 Widget'));
  });
});
