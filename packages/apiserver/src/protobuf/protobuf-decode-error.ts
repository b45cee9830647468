// The failures of reading a Kubernetes protobuf body, with the text gogo-protobuf's generated Unmarshal uses, so
// the 400 the request layer builds from them reads like kube-apiserver's.

/** The type a `runtime.Unknown` envelope names. */
export interface EnvelopeKind {
  apiVersion: string;
  kind: string;
}

/**
 * A body that is not a well-formed Kubernetes protobuf message. `message` is the bare cause as Go prints it
 * (`unexpected EOF`); the request layer wraps it in kube-apiserver's 400 wording. `envelope` is set once the
 * envelope was read, i.e. when the object inside it is what failed.
 */
export class ProtobufDecodeError extends Error {
  readonly envelope: EnvelopeKind | undefined;
  constructor(message: string, options: { envelope?: EnvelopeKind; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProtobufDecodeError';
    this.envelope = options.envelope;
  }
}

/** The envelope names a kind this server has no message definition for (kube-apiserver answers 415). */
export class ProtobufUnknownKindError extends Error {
  readonly envelope: EnvelopeKind;
  constructor(envelope: EnvelopeKind) {
    super(`no protobuf message is known for ${envelope.kind} in version "${envelope.apiVersion}"`);
    this.name = 'ProtobufUnknownKindError';
    this.envelope = envelope;
  }
}
