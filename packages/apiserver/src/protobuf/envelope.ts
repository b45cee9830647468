// The `k8s\0` framing and `runtime.Unknown` envelope every Kubernetes protobuf body starts with
// (k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go and runtime/generated.proto).
import { type BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { ProtobufDecodeError } from './protobuf-decode-error.ts';
import { readWire } from './wire-reader.ts';

/** The four bytes `k8s\0` that open every Kubernetes protobuf body. */
export const protobufMagic: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** A decoded `runtime.Unknown`: the object's type and its still-encoded message. */
export interface ProtobufEnvelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

/** Whether `body` starts with the Kubernetes protobuf magic. */
export function hasProtobufMagic(body: Uint8Array): boolean {
  return protobufMagic.every((byte, index) => body[index] === byte);
}

/**
 * Read the magic and the `runtime.Unknown` envelope. Throws {@link ProtobufDecodeError} with the
 * serializer's wording for an empty body, a missing magic, or a malformed envelope.
 */
export function readEnvelope(body: Uint8Array): ProtobufEnvelope {
  if (body.length === 0) throw new ProtobufDecodeError('empty data');
  if (body.length < protobufMagic.length || !hasProtobufMagic(body)) {
    throw new ProtobufDecodeError(
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    );
  }
  if (body.length === protobufMagic.length) throw new ProtobufDecodeError('empty body');
  const envelope: ProtobufEnvelope = {
    apiVersion: '',
    kind: '',
    raw: new Uint8Array(),
    contentEncoding: '',
    contentType: '',
  };
  readWire(body.subarray(protobufMagic.length), 'Unknown', (reader, number, wireType) => {
    switch (number) {
      case 1: {
        const typeMeta = expectBytes(reader, wireType, 'TypeMeta');
        readWire(typeMeta, 'TypeMeta', (inner, innerNumber, innerWireType) => {
          if (innerNumber === 1)
            envelope.apiVersion = decodeString(inner, innerWireType, 'APIVersion');
          else if (innerNumber === 2) envelope.kind = decodeString(inner, innerWireType, 'Kind');
          else return false;
          return true;
        });
        return true;
      }
      case 2:
        envelope.raw = expectBytes(reader, wireType, 'Raw');
        return true;
      case 3:
        envelope.contentEncoding = decodeString(reader, wireType, 'ContentEncoding');
        return true;
      case 4:
        envelope.contentType = decodeString(reader, wireType, 'ContentType');
        return true;
      default:
        return false;
    }
  });
  return envelope;
}

function expectBytes(reader: BinaryReader, wireType: WireType, field: string): Uint8Array {
  if (wireType !== WireType.LengthDelimited) {
    throw new ProtobufDecodeError(`proto: wrong wireType = ${wireType} for field ${field}`);
  }
  return reader.bytes();
}

function decodeString(reader: BinaryReader, wireType: WireType, field: string): string {
  return new TextDecoder().decode(expectBytes(reader, wireType, field));
}
