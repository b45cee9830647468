// Decodes one Kubernetes protobuf message into the JSON object Go's encoding/json would write for the same Go
// struct, driven by the shared type table (server/types): field numbers pick the field, the Go tags decide
// which zero values survive (omitempty drops a non-pointer zero, a pointer or a tag without omitempty keeps it).
import { type BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { typeDefinitions } from '../types/index.ts';
import type { FieldDefinition, FieldType, TypeDefinition } from '../types/type-definition.ts';
import { base64Of, formatDuration, formatMicroTime, formatTime } from './go-json.ts';
import { ProtobufDecodeError } from './protobuf-decode-error.ts';
import { readWire } from './wire-reader.ts';

/** Nesting deeper than this is refused, as the JSON decoder refuses deep bodies. */
const maxDepth = 100;

const fieldIndexes = new WeakMap<TypeDefinition, Map<number, FieldDefinition>>();

function fieldsByNumber(definition: TypeDefinition): Map<number, FieldDefinition> {
  let index = fieldIndexes.get(definition);
  if (index === undefined) {
    index = new Map(definition.fields.map((field) => [field.number, field]));
    fieldIndexes.set(definition, index);
  }
  return index;
}

function definitionOf(name: string): TypeDefinition {
  const definition = typeDefinitions.get(name);
  // The table is closed over its references (types.test.ts checks it): a miss is a bug here, not bad input.
  if (definition === undefined) throw new TypeError(`no type definition named ${name}`);
  return definition;
}

/** Go struct-valued types: encoding/json writes them even when empty, omitempty notwithstanding. */
function isStructType(type: FieldType): boolean {
  return (
    typeof type === 'object' ||
    type === 'quantity' ||
    type === 'intOrString' ||
    type === 'time' ||
    type === 'microTime' ||
    type === 'duration' ||
    type === 'rawExtension'
  );
}

function isZero(value: unknown): boolean {
  return value === '' || value === 0 || value === false;
}

function expectWireType(actual: WireType, expected: WireType, field: string): void {
  if (actual !== expected) {
    throw new ProtobufDecodeError(`proto: wrong wireType = ${actual} for field ${field}`);
  }
}

/** A fresh 64-bit integer as a JSON number (Kubernetes int64 fields stay far below 2^53 in practice). */
function int64Of(value: bigint | string): number {
  return Number(value);
}

function readScalar(
  reader: BinaryReader,
  wireType: WireType,
  type: FieldType,
  fieldName: string,
): unknown {
  switch (type) {
    case 'string':
      expectWireType(wireType, WireType.LengthDelimited, fieldName);
      return new TextDecoder().decode(reader.bytes());
    case 'bytes':
      expectWireType(wireType, WireType.LengthDelimited, fieldName);
      return base64Of(reader.bytes());
    case 'bool':
      expectWireType(wireType, WireType.Varint, fieldName);
      return reader.bool();
    case 'int32':
      expectWireType(wireType, WireType.Varint, fieldName);
      return reader.int32();
    case 'int64':
      expectWireType(wireType, WireType.Varint, fieldName);
      return int64Of(reader.int64());
    case 'double':
      expectWireType(wireType, WireType.Bit64, fieldName);
      return reader.double();
    default:
      throw new TypeError(`not a scalar type: ${JSON.stringify(type)}`);
  }
}

function readSpecial(bytes: Uint8Array, type: FieldType, depth: number): unknown {
  switch (type) {
    case 'time':
    case 'microTime': {
      // metav1.Time marshals the zero time as an empty message; Go's JSON for it is null.
      if (bytes.length === 0) return null;
      let seconds = 0n;
      let nanos = 0;
      readWire(bytes, 'Timestamp', (reader, number, wireType) => {
        if (number === 1)
          seconds = BigInt(readScalar(reader, wireType, 'int64', 'Seconds') as number);
        else if (number === 2) nanos = readScalar(reader, wireType, 'int32', 'Nanos') as number;
        else return false;
        return true;
      });
      return type === 'time' ? formatTime(seconds, nanos) : formatMicroTime(seconds, nanos);
    }
    case 'duration': {
      let nanoseconds = 0n;
      readWire(bytes, 'Duration', (reader, number, wireType) => {
        if (number !== 1) return false;
        expectWireType(wireType, WireType.Varint, 'Duration');
        nanoseconds = BigInt(reader.int64());
        return true;
      });
      return formatDuration(nanoseconds);
    }
    case 'quantity': {
      let text = '';
      readWire(bytes, 'Quantity', (reader, number, wireType) => {
        if (number !== 1) return false;
        text = readScalar(reader, wireType, 'string', 'String_') as string;
        return true;
      });
      // resource.Quantity's JSON for the zero value.
      return text === '' ? '0' : text;
    }
    case 'intOrString': {
      let kind = 0;
      let intValue = 0;
      let stringValue = '';
      readWire(bytes, 'IntOrString', (reader, number, wireType) => {
        if (number === 1) kind = readScalar(reader, wireType, 'int64', 'Type') as number;
        else if (number === 2) intValue = readScalar(reader, wireType, 'int32', 'IntVal') as number;
        else if (number === 3)
          stringValue = readScalar(reader, wireType, 'string', 'StrVal') as string;
        else return false;
        return true;
      });
      return kind === 1 ? stringValue : intValue;
    }
    case 'rawExtension': {
      let raw: Uint8Array | undefined;
      readWire(bytes, 'RawExtension', (reader, number, wireType) => {
        if (number !== 1) return false;
        expectWireType(wireType, WireType.LengthDelimited, 'Raw');
        raw = reader.bytes();
        return true;
      });
      return rawToJson(raw, depth);
    }
    default:
      throw new TypeError(`not a special type: ${JSON.stringify(type)}`);
  }
}

/** RawExtension / FieldsV1 bytes: JSON text in practice; a nested protobuf object is decoded too. */
function rawToJson(raw: Uint8Array | undefined, depth: number): unknown {
  if (raw === undefined) return null;
  if (
    nestedObjectDecoder !== undefined &&
    raw[0] === 0x6b &&
    raw[1] === 0x38 &&
    raw[2] === 0x73 &&
    raw[3] === 0
  ) {
    return nestedObjectDecoder(raw, depth + 1);
  }
  try {
    return JSON.parse(new TextDecoder().decode(raw));
  } catch (error) {
    throw new ProtobufDecodeError(
      `couldn't decode embedded raw object: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

let nestedObjectDecoder: ((body: Uint8Array, depth: number) => unknown) | undefined;

/** Lets the object decoder handle a `k8s\0` body nested in a RawExtension (kept here to avoid an import cycle). */
export function setNestedObjectDecoder(
  decoder: (body: Uint8Array, depth: number) => unknown,
): void {
  nestedObjectDecoder = decoder;
}

/** One value of `type` read from the reader (a message, special type or scalar). */
function readValue(
  reader: BinaryReader,
  wireType: WireType,
  type: FieldType,
  fieldName: string,
  depth: number,
): unknown {
  if (typeof type === 'object' && 'message' in type) {
    expectWireType(wireType, WireType.LengthDelimited, fieldName);
    return decodeMessage(reader.bytes(), definitionOf(type.message), depth + 1);
  }
  if (typeof type === 'object') throw new TypeError('map values cannot nest maps');
  if (isStructType(type)) {
    expectWireType(wireType, WireType.LengthDelimited, fieldName);
    return readSpecial(reader.bytes(), type, depth + 1);
  }
  return readScalar(reader, wireType, type, fieldName);
}

/** The zero JSON of a map value type, for an entry that carries no value on the wire. */
function zeroOf(type: FieldType): unknown {
  if (typeof type === 'object') return {};
  switch (type) {
    case 'string':
    case 'bytes':
      return '';
    case 'bool':
      return false;
    case 'int32':
    case 'int64':
    case 'double':
    case 'intOrString':
      return 0;
    case 'quantity':
      return '0';
    case 'duration':
      return '0s';
    default:
      return null;
  }
}

function readMapEntry(
  reader: BinaryReader,
  wireType: WireType,
  valueType: FieldType,
  fieldName: string,
  depth: number,
): [string, unknown] {
  expectWireType(wireType, WireType.LengthDelimited, fieldName);
  let key = '';
  let value: unknown = zeroOf(valueType);
  readWire(reader.bytes(), `${fieldName}Entry`, (entry, number, entryWireType) => {
    if (number === 1) key = readScalar(entry, entryWireType, 'string', 'key') as string;
    else if (number === 2) value = readValue(entry, entryWireType, valueType, fieldName, depth);
    else return false;
    return true;
  });
  return [key, value];
}

function readRepeated(
  reader: BinaryReader,
  wireType: WireType,
  field: FieldDefinition,
  into: unknown[],
  depth: number,
): void {
  const packable =
    field.type === 'int32' ||
    field.type === 'int64' ||
    field.type === 'bool' ||
    field.type === 'double';
  if (packable && wireType === WireType.LengthDelimited) {
    // A packed run: one length-delimited record holding the elements back to back.
    readPacked(reader.bytes(), field, into);
    return;
  }
  into.push(readValue(reader, wireType, field.type, field.json, depth));
}

function readPacked(bytes: Uint8Array, field: FieldDefinition, into: unknown[]): void {
  const elementWireType = field.type === 'double' ? WireType.Bit64 : WireType.Varint;
  // A packed run is a sequence of untagged values: read them through a tag-free loop.
  let offset = 0;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  while (offset < bytes.length) {
    if (elementWireType === WireType.Bit64) {
      if (offset + 8 > bytes.length) throw new ProtobufDecodeError('unexpected EOF');
      into.push(view.getFloat64(offset, true));
      offset += 8;
      continue;
    }
    let value = 0n;
    let shift = 0n;
    for (;;) {
      if (offset >= bytes.length) throw new ProtobufDecodeError('unexpected EOF');
      const byte = bytes[offset++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) break;
      shift += 7n;
      if (shift > 63n) throw new ProtobufDecodeError('proto: integer overflow');
    }
    if (field.type === 'bool') into.push(value !== 0n);
    else if (field.type === 'int32') into.push(Number(BigInt.asIntN(32, value)));
    else into.push(Number(BigInt.asIntN(64, value)));
  }
}

/**
 * Decode the message in `bytes` as `definition` into Go's JSON object for it. Fields the table does not
 * know are skipped; map keys come out sorted, as Go writes them.
 */
export function decodeMessage(
  bytes: Uint8Array,
  definition: TypeDefinition,
  depth = 0,
): Record<string, unknown> {
  if (depth > maxDepth) throw new ProtobufDecodeError('proto: exceeded maximum nesting depth');
  const fields = fieldsByNumber(definition);
  const result: Record<string, unknown> = {};
  const shortName = definition.name.slice(definition.name.lastIndexOf('.') + 1);
  readWire(bytes, shortName, (reader, number, wireType) => {
    const field = fields.get(number);
    if (field === undefined) return false;
    if (field.inline === true) {
      expectWireType(wireType, WireType.LengthDelimited, field.json);
      Object.assign(result, readValue(reader, wireType, field.type, field.json, depth));
      return true;
    }
    if (typeof field.type === 'object' && 'map' in field.type) {
      const map = (result[field.json] ?? {}) as Record<string, unknown>;
      const [key, value] = readMapEntry(reader, wireType, field.type.map, field.json, depth);
      map[key] = value;
      result[field.json] = map;
      return true;
    }
    if (field.repeated === true) {
      const list = (result[field.json] ?? []) as unknown[];
      readRepeated(reader, wireType, field, list, depth);
      result[field.json] = list;
      return true;
    }
    const value = readValue(reader, wireType, field.type, field.json, depth);
    if (!isStructType(field.type) && field.keepZero !== true && isZero(value)) {
      // omitempty on a non-pointer: Go's JSON leaves the zero value out.
      delete result[field.json];
      return true;
    }
    result[field.json] = value;
    return true;
  });
  for (const field of definition.fields) {
    const value = result[field.json];
    const isMap = typeof field.type === 'object' && 'map' in field.type;
    if (isMap && value !== undefined) {
      result[field.json] = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
          a < b ? -1 : a > b ? 1 : 0,
        ),
      );
    }
    // A slice or map tagged without omitempty is null in Go's JSON when it is empty.
    if ((isMap || field.repeated === true) && field.keepZero === true && value === undefined) {
      result[field.json] = null;
    }
  }
  return result;
}
