// Watches: what a watch request streams (initial state or the history after a resourceVersion, then
// every commit that matches), and the registry of open watches so a removed resource can end them.
import { errorMessage } from '@lasso/core';
import { ConvertedEvents } from '../admission/watch-conversion.ts';
import { type Json, truthy } from '../apimachinery/objects.ts';
import { integerOptions } from '../apimachinery/query-integers.ts';
import { failure } from '../apimachinery/status.ts';
import {
  checkResourceVersion,
  matches,
  requireReached,
  selectorsOf,
  shardSelectorOf,
  validateListOptions,
} from '../endpoints/list-options.ts';
import { toVersion } from '../registry/generic-registry.ts';
import type { ServerContext } from '../registry/server-context.ts';
import { apiVersionOf, type ResourceInfo, storageKey } from '../resources/builtin-resources.ts';
import { CompactedError, type HistoryEvent, type KubeObject } from './store.ts';

/** A running watch: stop it, or ask it to send a bookmark now. */
export interface WatchControl {
  stop(): void;
  bookmark(): void;
}

/** What a watch request streams. */
export interface WatchPlan {
  timeoutMs: number | undefined;
  bookmarks: boolean;
  /** Storage key watched (watches end when their CRD is deleted). */
  key: string;
  start(send: (event: unknown) => void, end: () => void): WatchControl;
}

/** The open watches of one server. */
export class WatchFanout {
  readonly #watches = new Set<{ key: string; end: () => void }>();

  /** End every watch of storage key `key` (its resource is no longer served). */
  endAll(key: string): void {
    for (const watch of [...this.#watches]) if (watch.key === key) watch.end();
  }

  /**
   * Validate a watch request and plan it; the transport starts it. `name` watches one object (the
   * deprecated /watch/ path).
   */
  plan(
    context: ServerContext,
    info: ResourceInfo,
    namespace: string | undefined,
    query: URLSearchParams,
    name: string | undefined,
  ): WatchPlan {
    const selectors = selectorsOf(info, query, name);
    validateListOptions(query, true);
    // The registry store reads shardSelector before storage reads resourceVersion.
    selectors.shard = shardSelectorOf(context, query);
    const rvText = query.get('resourceVersion') ?? '';
    checkResourceVersion(rvText);
    // ListOptions decode timeoutSeconds before limit (which a watch ignores, but must parse).
    const timeoutSeconds = integerOptions(query, ['timeoutSeconds', 'limit']).get('timeoutSeconds');
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
    const key = storageKey(info);
    const { store } = context;
    const watches = this.#watches;
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
        const emit = (type: string, object: KubeObject): void => {
          if (converted !== undefined) converted.push(type, object);
          else send({ type, object: toVersion(context, info, object) });
        };
        const bookmark = (annotations?: Record<string, string>): void => {
          const metadata: Json = { resourceVersion: String(store.currentRv()) };
          if (annotations !== undefined) metadata.annotations = annotations;
          (converted === undefined ? send : (event: unknown) => converted.pass(event))({
            type: 'BOOKMARK',
            object: { kind: info.kind, apiVersion: apiVersionOf(info), metadata },
          });
        };
        const deliver = (event: HistoryEvent): void => {
          try {
            route(event);
          } catch (error) {
            // Never let one watch break the commit that notified it: end this watch with an error.
            send({ type: 'ERROR', object: failure(500, 'InternalError', errorMessage(error)) });
            end();
          }
        };
        const route = (event: HistoryEvent): void => {
          if (event.key !== key) return;
          if (namespace !== undefined && event.namespace !== namespace) return;
          const now = matches(info, selectors, event.object);
          if (event.type === 'ADDED') {
            if (now) emit('ADDED', event.object);
            return;
          }
          if (event.type === 'DELETED') {
            const before =
              event.previous === undefined ? now : matches(info, selectors, event.previous);
            if (before) emit('DELETED', event.object);
            return;
          }
          const before =
            event.previous === undefined ? false : matches(info, selectors, event.previous);
          if (before && now) emit('MODIFIED', event.object);
          else if (now) emit('ADDED', event.object);
          else if (before) emit('DELETED', event.object);
        };
        let backlog: HistoryEvent[] = [];
        if (fromNow) {
          // Nothing before now: only what is committed from here on.
        } else if (rvText === '' || rvText === '0' || sendInitialEvents) {
          // emit copies each object: read the stored ones in place.
          for (const object of store.snapshot(key).objects(namespace)) {
            if (matches(info, selectors, object)) emit('ADDED', object);
          }
          if (sendInitialEvents && bookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
        } else {
          try {
            backlog = store.eventsAfter(Number(rvText));
          } catch (error) {
            if (!(error instanceof CompactedError)) throw error;
            send({
              type: 'ERROR',
              object: failure(
                410,
                'Expired',
                `too old resource version: ${error.requested} (${error.oldest})`,
              ),
            });
            end();
            return { stop: () => {}, bookmark: () => {} };
          }
        }
        for (const event of backlog) deliver(event);
        const unsubscribe = store.subscribe(deliver);
        const entry = { key, end };
        watches.add(entry);
        return {
          stop: () => {
            converted?.stop();
            unsubscribe();
            watches.delete(entry);
          },
          bookmark: () => {
            if (bookmarks) bookmark();
          },
        };
      },
    };
  }
}
