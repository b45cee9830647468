// The failure of reading a Kubernetes protobuf body, with the text gogo-protobuf's generated Unmarshal uses, so
// the 400 the router builds from it reads like kube-apiserver's.

/**
 * A body that is not a well-formed Kubernetes protobuf message. `message` is the bare cause as Go prints it
 * (`unexpected EOF`); the request layer wraps it in kube-apiserver's 400 wording.
 */
export class ProtobufDecodeError extends Error {
  /** Whether the `runtime.Unknown` envelope was read (so its kind is known) before the failure. */
  readonly envelopeRead: boolean;
  constructor(message: string, options: { envelopeRead?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProtobufDecodeError';
    this.envelopeRead = options.envelopeRead ?? false;
  }
}

/** The envelope names a kind this server has no message definition for (kube-apiserver answers 415). */
export class ProtobufUnknownKindError extends Error {
  readonly apiVersion: string;
  readonly kind: string;
  constructor(apiVersion: string, kind: string) {
    super(`no protobuf message is known for ${kind} in version "${apiVersion}"`);
    this.name = 'ProtobufUnknownKindError';
    this.apiVersion = apiVersion;
    this.kind = kind;
  }
}
