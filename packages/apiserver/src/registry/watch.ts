// WATCH at the registry: the request's list options checked, its selection predicate built, and storage's
// watch (storage/watch-fanout.ts) started from the point the options ask for, with each event in the
// requested version (through a CRD's conversion webhook when it has one) and bookmarks of this kind.

import { type Json, truthy } from '../apimachinery/objects.ts';
import { integerOptions } from '../apimachinery/query-integers.ts';
import { apiVersionOf, type ResourceInfo, storageKey } from '../resources/builtin-resources.ts';
import {
  checkResourceVersion,
  requireReached,
  validateListOptions,
} from '../selection/list-options.ts';
import { matches, selectorsOf, shardSelectorOf } from '../selection/predicate.ts';
import type { KubeObject } from '../storage/store.ts';
import type { WatchPlan } from '../storage/watch-fanout.ts';
import { toVersion } from './generic-registry.ts';
import type { ServerContext } from './server-context.ts';
import { ConvertedEvents } from './watch-conversion.ts';

/**
 * Validate a watch request and plan it; the transport starts it. `name` watches one object (the
 * deprecated /watch/ path).
 */
export function planWatch(
  context: ServerContext,
  info: ResourceInfo,
  namespace: string | undefined,
  query: URLSearchParams,
  name: string | undefined,
): WatchPlan {
  const selectors = selectorsOf(info, query, name);
  // ListOptions decode timeoutSeconds before limit (which a watch ignores, but must parse), a 400 before
  // ValidateListOptions and the registry store see the options.
  const timeoutSeconds = integerOptions(query, ['timeoutSeconds', 'limit']).get('timeoutSeconds');
  validateListOptions(query, true);
  // The registry store reads shardSelector before storage reads resourceVersion.
  selectors.shard = shardSelectorOf(context, query);
  const rvText = query.get('resourceVersion') ?? '';
  checkResourceVersion(rvText);
  const bookmarks = truthy(query.get('allowWatchBookmarks'));
  const initialEventsOption = query.get('sendInitialEvents');
  const sendInitialEvents = truthy(initialEventsOption);
  // A streaming list is a not-older-than read: the state (and its end bookmark) must be at least as new as
  // resourceVersion. kube-apiserver's watch cache waits up to 3 s for it, then answers 504 with cause
  // ResourceVersionTooLarge; a single in-process store never catches up, so this answers at once.
  if (sendInitialEvents) requireReached(context, rvText);
  // sendInitialEvents defaults to true from resourceVersion "" or "0" (the state, then changes); set to
  // false there, the watch starts at the current resourceVersion with no initial events (KEP-3157).
  const fromNow =
    initialEventsOption !== null && !sendInitialEvents && (rvText === '' || rvText === '0');
  const from = fromNow
    ? 'now'
    : rvText === '' || rvText === '0' || sendInitialEvents
      ? 'state'
      : Number(rvText);
  const key = storageKey(info);
  const { store } = context;
  return {
    timeoutMs:
      // kube arms a timer for any other value: a negative one ends the watch at once.
      timeoutSeconds === undefined || timeoutSeconds === 0
        ? undefined
        : Math.max(0, timeoutSeconds) * 1000,
    bookmarks,
    key,
    start: (send, end) => {
      // Through a CRD's conversion webhook, events wait for their conversion and bookmarks for them.
      const converted =
        context.convertEvents === undefined
          ? undefined
          : new ConvertedEvents({
              convert: context.convertEvents,
              send,
              end,
              finish: (object) => toVersion(context, info, object),
            });
      const bookmark = (annotations?: Record<string, string>): void => {
        const metadata: Json = { resourceVersion: String(store.currentRv()) };
        if (annotations !== undefined) metadata.annotations = annotations;
        (converted === undefined ? send : (event: unknown) => converted.pass(event))({
          type: 'BOOKMARK',
          object: { kind: info.kind, apiVersion: apiVersionOf(info), metadata },
        });
      };
      const watch = context.watches.open(
        store,
        {
          key,
          namespace,
          from,
          matches: (object) => matches(info, selectors, object),
        },
        {
          emit: (type: string, object: KubeObject): void => {
            if (converted !== undefined) converted.push(type, object);
            else send({ type, object: toVersion(context, info, object) });
          },
          send,
          end,
          stateSent: () => {
            if (sendInitialEvents && bookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
          },
        },
      );
      if (watch === undefined) return { stop: () => {}, bookmark: () => {} };
      return {
        stop: () => {
          converted?.stop();
          watch.stop();
        },
        bookmark: () => {
          if (bookmarks) bookmark();
        },
      };
    },
  };
}
