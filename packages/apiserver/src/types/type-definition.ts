// The shape of one built-in API type, written once and read by two consumers: the protobuf body decoder
// (field numbers, Go pointer-ness) and the OpenAPI publisher (JSON names, patch metadata, descriptions).
// One table for both keeps kubectl's wire format and its schema from drifting apart.

/**
 * How one field is encoded. Scalars are named; `message` points at another {@link TypeDefinition} by its
 * OpenAPI definition name; `map` is Go's `map[string]V`, a repeated key/value entry on the wire.
 * `bytes` is base64 text in JSON; `quantity`, `intOrString`, `time`, `microTime`, `duration` and
 * `rawExtension` are the apimachinery types with their own wire messages and JSON forms.
 */
export type FieldType =
  | 'string'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'double'
  | 'bytes'
  | 'quantity'
  | 'intOrString'
  | 'time'
  | 'microTime'
  | 'duration'
  | 'rawExtension'
  | { message: string }
  | { map: FieldType };

/** One field of a {@link TypeDefinition}, as k8s.io/api declares it (generated.proto and the Go tags). */
export interface FieldDefinition {
  /** The JSON name. */
  json: string;
  /** The protobuf field number from the API's published generated.proto. */
  number: number;
  type: FieldType;
  /**
   * A Go struct embedded with `json:",inline"` (a `Volume`'s `VolumeSource`, a `Probe`'s `ProbeHandler`): one
   * message field on the wire whose members sit directly in the parent's JSON object. `json` is empty.
   */
  inline?: boolean;
  /** A Go slice: repeated on the wire, an array in JSON. */
  repeated?: boolean;
  /**
   * A Go pointer (or a JSON tag without omitempty): a zero value that arrives on the wire is kept in the
   * decoded JSON. Without it a zero value is dropped, as Go's omitempty would drop it.
   */
  keepZero?: boolean;
  required?: boolean;
  description?: string;
  /** `x-kubernetes-patch-strategy`, read by strategic merge patch and kubectl's three-way merge. */
  patchStrategy?: 'merge' | 'retainKeys' | 'merge,retainKeys';
  /** `x-kubernetes-patch-merge-key`. */
  patchMergeKey?: string;
  /** `x-kubernetes-list-type`, read by server-side apply. */
  listType?: 'atomic' | 'set' | 'map';
  /** `x-kubernetes-list-map-keys`. */
  listMapKeys?: string[];
  /** `x-kubernetes-map-type`. */
  mapType?: 'atomic' | 'granular';
  /** Allowed values, when the API documents a closed set. */
  enum?: string[];
}

/** One API type: a top-level kind (with `gvk`) or a nested struct. */
export interface TypeDefinition {
  /** The OpenAPI definition name, e.g. `io.k8s.api.core.v1.ConfigMap`. */
  name: string;
  description?: string;
  fields: FieldDefinition[];
  /** Set for top-level kinds: the `x-kubernetes-group-version-kind` they are served as. */
  gvk?: { group: string; version: string; kind: string };
}
