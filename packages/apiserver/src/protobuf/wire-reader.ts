// A guarded loop over one protobuf message's fields on @bufbuild/protobuf's BinaryReader: reads past the end
// and malformed tags become ProtobufDecodeError with gogo-protobuf's wording, unknown fields are skipped.
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { ProtobufDecodeError } from './protobuf-decode-error.ts';

/**
 * Called once per field; returns false for a field it does not know, which is then skipped (an older or newer
 * peer may send fields this table lacks, as protobuf intends).
 */
export type FieldVisitor = (reader: BinaryReader, number: number, wireType: WireType) => boolean;

/**
 * Visit every field of the message in `bytes`. Throws {@link ProtobufDecodeError}: `unexpected EOF` for a
 * truncated message, `proto: <message>: illegal tag 0 (wire type 0)` for a zero field number.
 */
export function readWire(bytes: Uint8Array, message: string, visit: FieldVisitor): void {
  const reader = new BinaryReader(bytes);
  try {
    while (reader.pos < reader.len) {
      const [number, wireType] = reader.tag();
      if (wireType === WireType.EndGroup || wireType === WireType.StartGroup) {
        throw new ProtobufDecodeError(`proto: ${message}: wiretype end group for non-group`);
      }
      if (!visit(reader, number, wireType)) reader.skip(wireType, number);
      // BinaryReader checks lengths lazily: a length that runs past the end leaves pos beyond len.
      if (reader.pos > reader.len) throw new ProtobufDecodeError('unexpected EOF');
    }
  } catch (error) {
    if (error instanceof ProtobufDecodeError) throw error;
    // premature EOF, varint overflow, invalid wire type: the reader's own errors all mean a malformed body.
    const text = error instanceof Error ? error.message : String(error);
    const illegal = /field no (\d+) wire type (\d+)/.exec(text);
    const cause = illegal
      ? Number(illegal[2]) > 5
        ? `proto: illegal wireType ${illegal[2]}`
        : `proto: ${message}: illegal tag ${illegal[1]} (wire type ${illegal[2]})`
      : /premature EOF/.test(text)
        ? 'unexpected EOF'
        : `proto: ${message}: ${text}`;
    throw new ProtobufDecodeError(cause, { cause: error });
  }
}
