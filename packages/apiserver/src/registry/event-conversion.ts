// One storage for v1 Events and events.k8s.io/v1 Events, as kube-apiserver has: objects are stored in the
// v1 shape and converted field by field (k8s.io/kubernetes/pkg/apis/events/v1 conversion) at the API edge.
import type { KubeObject } from '../storage/store.ts';

/** v1 Event field -> events.k8s.io/v1 Event field, for the fields whose names differ. */
const renamed: ReadonlyArray<readonly [string, string]> = [
  ['message', 'note'],
  ['involvedObject', 'regarding'],
  ['reportingComponent', 'reportingController'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
];

function rename(object: KubeObject, pairs: ReadonlyArray<readonly [string, string]>): KubeObject {
  const out: KubeObject = {};
  const map = new Map(pairs);
  for (const [key, value] of Object.entries(object)) out[map.get(key) ?? key] = value;
  return out;
}

/** A stored v1 Event as events.k8s.io/v1 shows it (a new object; `object` is not changed). */
export function eventToEventsV1(object: KubeObject, apiVersion: string): KubeObject {
  const out = rename(object, renamed);
  out.apiVersion = apiVersion;
  out.kind = 'Event';
  return out;
}

/** An events.k8s.io/v1 Event in the v1 shape it is stored in (a new object). */
export function eventsV1ToEvent(object: KubeObject): KubeObject {
  const out = rename(
    object,
    renamed.map(([core, events]) => [events, core] as const),
  );
  out.apiVersion = 'v1';
  out.kind = 'Event';
  return out;
}
