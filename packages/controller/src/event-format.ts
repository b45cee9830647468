// The pieces of an events.k8s.io/v1 Event that do not depend on the recorder's state: MicroTime stamps, the
// note limit and object references (client-go tools/events event_recorder.go, tools/reference). Internal.
import type { KubeObjectLike } from '@lasso/client';
import type { ObjectReference } from 'kubernetes-types/core/v1.js';

/** Kube refuses notes longer than this many bytes (apis/core/validation NoteLengthLimit). */
export const maxNoteBytes = 1024;
/** Kube's limit on `reason` and `action` (ReasonLengthLimit, ActionLengthLimit) and `reportingInstance`. */
export const maxEventFieldLength = 128;

const truncationSuffix = ' ...';
const encoder = new TextEncoder();

/**
 * `note` cut to {@link maxNoteBytes} bytes of UTF-8 with a ` ...` suffix, as kube's components truncate
 * their messages (the scheduler's truncateMessage); never splits a character.
 */
export function truncateNote(note: string): string {
  if (note.length * 3 <= maxNoteBytes || encoder.encode(note).length <= maxNoteBytes) return note;
  const budget = maxNoteBytes - truncationSuffix.length;
  let bytes = 0;
  let end = 0;
  for (const character of note) {
    const size = encoder.encode(character).length;
    if (bytes + size > budget) break;
    bytes += size;
    end += character.length;
  }
  return note.slice(0, end) + truncationSuffix;
}

/**
 * A `metav1.MicroTime` for epoch ms `epochMs`: RFC 3339 with exactly six fractional digits, which the API
 * server requires for `eventTime` and `series.lastObservedTime`.
 */
export function microTime(epochMs: number): string {
  const wholeMs = Math.floor(epochMs);
  const micros = (wholeMs % 1000) * 1000 + Math.floor((epochMs - wholeMs) * 1000);
  return `${new Date(wholeMs).toISOString().slice(0, 19)}.${String(micros).padStart(6, '0')}Z`;
}

/**
 * A reference to `object` (client-go tools/reference GetReference): `undefined` when it has no kind or no
 * name, which an Event cannot point at.
 */
export function objectReference(object: KubeObjectLike | undefined): ObjectReference | undefined {
  if (typeof object !== 'object' || object === null) return undefined;
  const { kind, apiVersion, metadata } = object;
  if (typeof kind !== 'string' || kind === '' || !metadata?.name) return undefined;
  const reference: ObjectReference = { kind, name: metadata.name };
  if (apiVersion) reference.apiVersion = apiVersion;
  if (metadata.namespace) reference.namespace = metadata.namespace;
  if (metadata.uid) reference.uid = metadata.uid;
  if (metadata.resourceVersion) reference.resourceVersion = metadata.resourceVersion;
  return reference;
}

/**
 * The identity of a reference for event aggregation: everything but `resourceVersion`, so events about an
 * object whose status keeps changing still aggregate (client-go keys on the whole reference).
 */
export function referenceIdentity(reference: ObjectReference | undefined): unknown[] {
  if (reference === undefined) return [];
  return [
    reference.apiVersion ?? '',
    reference.kind ?? '',
    reference.namespace ?? '',
    reference.name ?? '',
    reference.uid ?? '',
  ];
}
