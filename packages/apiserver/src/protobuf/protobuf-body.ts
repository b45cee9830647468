// A protobuf request body turned into the object the handlers work on, or into the Status kube-apiserver
// answers for it (transformDecodeError's 400 wording; 415 for a kind without a protobuf message here).
import {
  badRequest,
  cannotHandleKind,
  unrecognizedBody,
  unsupportedMediaType,
} from '../apimachinery/status.ts';
import { decodeProtobufObject } from './decode-protobuf-object.ts';
import { readEnvelope } from './envelope.ts';
import { ProtobufDecodeError, ProtobufUnknownKindError } from './protobuf-decode-error.ts';

/** What a client may send for a kind this server cannot read as protobuf. */
const nonProtobufMediaTypes: readonly string[] = ['application/json', 'application/yaml'];

/**
 * Decode a protobuf create/update body sent to an endpoint taking `kind` (undefined where the caller checks
 * the body's kind itself). Throws StatusError: 400 `the object provided is unrecognized (must be of type
 * ConfigMap): unexpected EOF (<hex>)` for a malformed envelope; 400 `ConfigMap in version "v1" cannot be
 * handled as a ConfigMap: <cause>` for a malformed object; 415 when the table has no message for the kind.
 * An envelope naming another kind yields `{ apiVersion, kind }` alone, which checkKind refuses in kube's words.
 */
export function decodeProtobufBody(body: Buffer, kind?: string): Record<string, unknown> {
  try {
    return decodeProtobufObject(body);
  } catch (error) {
    if (error instanceof ProtobufUnknownKindError) {
      const sent = error.envelope;
      if (kind !== undefined && sent.kind !== '' && sent.kind !== kind) return { ...sent };
      throw unsupportedMediaType([...nonProtobufMediaTypes]);
    }
    if (!(error instanceof ProtobufDecodeError)) throw error;
    if (kind === undefined) throw badRequest(error.message);
    const sent = error.envelope;
    if (sent === undefined) throw unrecognizedBody(kind, error.message, body);
    const version = sent.apiVersion.slice(sent.apiVersion.indexOf('/') + 1);
    throw cannotHandleKind({ kind: sent.kind, version }, kind, error.message);
  }
}

/**
 * Refuse a protobuf body sent for a custom resource, as kube-apiserver does: it reads the envelope, then
 * cannot type the empty unstructured object it would decode into (400 `Gadget in version "v1" cannot be
 * handled as a Gadget: Object 'Kind' is missing in 'object has no kind field '`).
 */
export function refuseCustomResourceProtobuf(body: Buffer, kind: string): never {
  let envelope: ReturnType<typeof readEnvelope>;
  try {
    envelope = readEnvelope(body);
  } catch (error) {
    if (error instanceof ProtobufDecodeError) throw unrecognizedBody(kind, error.message, body);
    throw error;
  }
  const version = envelope.apiVersion.slice(envelope.apiVersion.indexOf('/') + 1);
  throw cannotHandleKind(
    { kind: envelope.kind, version },
    kind,
    "Object 'Kind' is missing in 'object has no kind field '",
  );
}
