import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { describe, expect, it } from 'vitest';
import { protobufMagic, readEnvelope } from './envelope.ts';

function withMagic(bytes: Uint8Array): Uint8Array {
  return Uint8Array.from([...protobufMagic, ...bytes]);
}

describe('readEnvelope()', () => {
  it('reads typeMeta, raw, contentEncoding and contentType', () => {
    const typeMeta = new BinaryWriter()
      .tag(1, WireType.LengthDelimited)
      .string('apps/v1')
      .tag(2, WireType.LengthDelimited)
      .string('Deployment')
      .finish();
    const body = new BinaryWriter()
      .tag(1, WireType.LengthDelimited)
      .bytes(typeMeta)
      .tag(2, WireType.LengthDelimited)
      .bytes(Uint8Array.of(1, 2))
      .tag(3, WireType.LengthDelimited)
      .string('')
      .tag(4, WireType.LengthDelimited)
      .string('application/vnd.kubernetes.protobuf')
      .tag(9, WireType.Varint)
      .int32(1)
      .finish();
    expect(readEnvelope(withMagic(body))).toStrictEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      raw: Uint8Array.of(1, 2),
      contentEncoding: '',
      contentType: 'application/vnd.kubernetes.protobuf',
    });
  });

  it.for([
    { name: 'an empty body', body: new Uint8Array(), message: 'empty data' },
    {
      name: 'a body without the magic',
      body: Buffer.from('{}'),
      message:
        'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    },
    { name: 'the magic alone', body: protobufMagic, message: 'empty body' },
    {
      name: 'a truncated envelope',
      body: withMagic(Uint8Array.of(0x0a, 0x10, 0x0a)),
      message: 'unexpected EOF',
    },
  ])('refuses $name with the serializer wording', ({ body, message }) => {
    expect(() => readEnvelope(body)).toThrow(message);
  });
});
