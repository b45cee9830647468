// Entry point of the protobuf body decoder: `k8s\0` + runtime.Unknown -> the JSON object a JSON client would
// have sent for the same Go object (k8s.io/apimachinery/pkg/runtime/serializer/protobuf, read for behaviour).
import { typeDefinitionFor } from '../types/index.ts';
import { readEnvelope } from './envelope.ts';
import { decodeMessage, setNestedObjectDecoder } from './message-decoder.ts';
import { ProtobufDecodeError, ProtobufUnknownKindError } from './protobuf-decode-error.ts';

/** The media type of Kubernetes protobuf bodies. */
export const protobufMediaType = 'application/vnd.kubernetes.protobuf';

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

function decodeObject(body: Uint8Array, depth: number): Record<string, unknown> {
  const envelope = readEnvelope(body);
  const kind = { apiVersion: envelope.apiVersion, kind: envelope.kind };
  if (envelope.contentEncoding !== '') {
    throw new ProtobufDecodeError(`unsupported content encoding "${envelope.contentEncoding}"`, {
      envelope: kind,
    });
  }
  const { group, version } = splitApiVersion(envelope.apiVersion);
  const definition = typeDefinitionFor(group, version, envelope.kind);
  if (definition === undefined) throw new ProtobufUnknownKindError(kind);
  let decoded: Record<string, unknown>;
  try {
    decoded = decodeMessage(envelope.raw, definition, depth);
  } catch (error) {
    if (error instanceof ProtobufDecodeError && error.envelope === undefined) {
      throw new ProtobufDecodeError(error.message, { envelope: kind, cause: error });
    }
    throw error;
  }
  return { apiVersion: envelope.apiVersion, kind: envelope.kind, ...decoded };
}

setNestedObjectDecoder(decodeObject);

/**
 * Decode a Kubernetes protobuf request body (`application/vnd.kubernetes.protobuf`) into the JSON object
 * kubectl would have sent as JSON: Go's omitempty rules, sorted map keys, base64 bytes, RFC 3339 times and the
 * JSON forms of Quantity, IntOrString, Duration and RawExtension.
 *
 * Throws {@link ProtobufDecodeError} for a malformed body and {@link ProtobufUnknownKindError} when the
 * envelope names a kind the type table does not describe. A ConfigMap body comes back as
 * `{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {...}, data: {...} }`.
 */
export function decodeProtobufObject(body: Uint8Array): Record<string, unknown> {
  return decodeObject(body, 0);
}
