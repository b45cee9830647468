// A streaming list (KEP-3157, client-go's reflector watchList): one watch with sendInitialEvents=true sends the state
// as events up to the `k8s.io/initial-events-end` bookmark; the same watch then goes on as the reflector's watch.
import {
  ApiError,
  isApiError,
  type KubeObjectLike,
  type Status,
  type WatchEvent,
  type WatchOptions,
} from '@lasso/client';
import { abortReason, type Clock, LassoError, TimeoutError } from '@lasso/core';
import type { ListerWatcher } from './lister-watcher.ts';
import { metaNamespaceKeyFunc } from './store.ts';

/** The annotation of the bookmark that ends a streaming list's initial events. */
export const initialEventsEndAnnotation = 'k8s.io/initial-events-end';

/** @internal What a streaming list hands over: its state and the open watch, to be consumed as the next watch. */
export interface StreamedList<T extends KubeObjectLike> {
  items: T[];
  resourceVersion: string;
  /** The rest of the stream, after the initial-events-end bookmark. */
  stream: OpenWatch<T>;
}

/**
 * @internal An open watch request whose iteration a later consumer takes over: the rest of the stream, read as
 * {@link openWatchSteps} read it (a batched stream gives the events after the bookmark first).
 */
export interface OpenWatch<T extends KubeObjectLike> extends WatchSteps<T> {
  /** Aborting it releases the request. */
  controller: AbortController;
}

/** @internal A watch read a step at a time, as {@link openWatchSteps} gives it. */
export interface WatchSteps<T extends KubeObjectLike> {
  /** True: every step is a batch of events (`WatchEvent<T>[]`); false: every step is one `WatchEvent<T>`. */
  batched: boolean;
  steps: AsyncIterator<WatchEvent<T>[] | WatchEvent<T>>;
}

/**
 * @internal How the reflector's watch and the streaming list open a watch: through the lister-watcher's
 * `watchBatches` when it has one (the events of one body chunk per step, never an empty batch), else its `watch`,
 * one event per step. Nothing is put between the steps and their reader: an adapter making batches of one would
 * cost a promise per event to every lister-watcher without `watchBatches`.
 */
export function openWatchSteps<T extends KubeObjectLike>(
  listerWatcher: ListerWatcher<T>,
  options: WatchOptions,
): WatchSteps<T> {
  return listerWatcher.watchBatches !== undefined
    ? { batched: true, steps: listerWatcher.watchBatches(options)[Symbol.asyncIterator]() }
    : { batched: false, steps: listerWatcher.watch(options)[Symbol.asyncIterator]() };
}

/**
 * @internal Thrown when the server does not serve the streaming list as KEP-3157 says (it ended or stayed silent
 * before the initial-events-end bookmark): the reflector falls back to lists for good.
 */
export class StreamingUnsupportedError extends LassoError {
  constructor(message: string) {
    super('LASSO_WATCH_FAILED', message);
    this.name = 'StreamingUnsupportedError';
  }
}

/** @internal Options of {@link streamList}. */
export interface StreamListOptions<T extends KubeObjectLike> {
  listerWatcher: ListerWatcher<T>;
  /** `""` (a consistent read) or the last synced resourceVersion (not older than). */
  resourceVersion: string;
  timeoutSeconds: number;
  /** Give up when nothing but plain bookmarks arrived for this long before the initial-events-end bookmark. */
  silenceMs: number;
  clock: Clock;
  signal: AbortSignal;
  /**
   * Applied to each object as its event arrives: only the transformed copies are held until the bookmark (a raw
   * object from the wire is often three times its copy: `managedFields`). The items returned are transformed.
   */
  transform?: ((object: T) => T) | undefined;
}

/**
 * @internal Opens a streaming list and reads it up to the initial-events-end bookmark. Events before the bookmark
 * (ADDED for the state; kube-apiserver may also send changes committed meanwhile) build the state by key, as
 * client-go's temporary store does. Throws the watch's error (an `ApiError` for a refusal or an ERROR event), a
 * {@link StreamingUnsupportedError} when the stream ends or stays silent before the bookmark, or the abort
 * reason; the request is released on every throw.
 */
export async function streamList<T extends KubeObjectLike>(
  options: StreamListOptions<T>,
): Promise<StreamedList<T>> {
  const { clock, signal, silenceMs, transform } = options;
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  // A lazy silence deadline, as the reflector's watch keeps one: events record their time, the one timer re-arms.
  let lastProgress = clock.monotonic();
  const check = (): void => {
    const silent = clock.monotonic() - lastProgress;
    if (silent < silenceMs) {
      timer = clock.schedule(silenceMs - silent, check);
      return;
    }
    controller.abort(
      new TimeoutError(
        `no initial event for ${silenceMs} ms before the initial-events-end bookmark`,
        silenceMs,
      ),
    );
  };
  let timer = clock.schedule(silenceMs, check);
  let rejectNext: ((reason: Error) => void) | undefined;
  const onStop = (): void => rejectNext?.(abortReason(controller.signal));
  controller.signal.addEventListener('abort', onStop, { once: true });
  const request: WatchOptions = {
    resourceVersion: options.resourceVersion,
    resourceVersionMatch: 'NotOlderThan',
    sendInitialEvents: true,
    allowWatchBookmarks: true,
    timeoutSeconds: options.timeoutSeconds,
    // The reflector's watch runs the inactivity deadline once it takes the stream over.
    inactivityTimeoutMs: 0,
    signal: controller.signal,
  };
  let watch: WatchSteps<T> | undefined;
  let pending = false;
  let handedOver = false;
  const state = new Map<string, T>();
  try {
    watch = openWatchSteps(options.listerWatcher, request);
    const source = watch;
    for (;;) {
      if (controller.signal.aborted) throw abortReason(controller.signal);
      pending = true;
      const result = await new Promise<IteratorResult<WatchEvent<T>[] | WatchEvent<T>>>(
        (resolve, reject) => {
          rejectNext = reject;
          source.steps.next().then(resolve, reject);
        },
      );
      pending = false;
      if (result.done) {
        throw new StreamingUnsupportedError(
          `the streaming list ended after ${state.size} objects without the ${initialEventsEndAnnotation} bookmark`,
        );
      }
      const batch = source.batched
        ? (result.value as WatchEvent<T>[])
        : [result.value as WatchEvent<T>];
      let progressed = false;
      for (let index = 0; index < batch.length; index++) {
        const event = batch[index] as { type?: unknown; object?: unknown };
        if (typeof event !== 'object' || event === null) {
          throw new LassoError('LASSO_WATCH_DECODE', 'watch event is not an object');
        }
        const { type } = event;
        if (type === 'ERROR' && typeof event.object === 'object' && event.object !== null) {
          throw ApiError.fromStatus(event.object as Status);
        }
        const object = event.object as T;
        if (typeof object !== 'object' || object === null) {
          throw new LassoError('LASSO_WATCH_DECODE', `watch event ${String(type)} has no object`);
        }
        switch (type) {
          case 'ADDED':
          case 'MODIFIED':
            state.set(
              metaNamespaceKeyFunc(object),
              transform === undefined ? object : transform(object),
            );
            break;
          case 'DELETED':
            state.delete(metaNamespaceKeyFunc(object));
            break;
          case 'BOOKMARK': {
            const annotations = object.metadata?.annotations;
            if (annotations?.[initialEventsEndAnnotation] !== 'true') continue; // not progress
            const resourceVersion = object.metadata?.resourceVersion;
            if (typeof resourceVersion !== 'string' || resourceVersion === '') {
              throw new LassoError(
                'LASSO_WATCH_DECODE',
                'the initial-events-end bookmark has no metadata.resourceVersion',
              );
            }
            handedOver = true;
            const items = [...state.values()];
            state.clear();
            return {
              items,
              resourceVersion,
              stream: {
                batched: source.batched,
                steps: source.batched
                  ? withLeftover(
                      source.steps as AsyncIterator<WatchEvent<T>[]>,
                      batch.slice(index + 1),
                    )
                  : source.steps,
                controller,
              },
            };
          }
          default:
            throw new LassoError(
              'LASSO_WATCH_DECODE',
              `unknown watch event type ${JSON.stringify(type)}`,
            );
        }
        progressed = true;
      }
      if (progressed) lastProgress = clock.monotonic();
    }
  } catch (error) {
    // The silence deadline aborted the request: say why, as a sign the server ignores sendInitialEvents.
    if (
      !signal.aborted &&
      controller.signal.aborted &&
      controller.signal.reason instanceof TimeoutError
    ) {
      throw new StreamingUnsupportedError(
        `${controller.signal.reason.message} (after ${state.size} objects)`,
      );
    }
    throw error;
  } finally {
    timer.cancel();
    signal.removeEventListener('abort', onAbort);
    controller.signal.removeEventListener('abort', onStop);
    if (!handedOver) {
      if (!controller.signal.aborted)
        controller.abort(new LassoError('LASSO_ABORTED', 'streaming list released'));
      const closing = Promise.resolve()
        .then(() => watch?.steps.return?.())
        .catch(() => {});
      if (!pending) await closing;
    }
  }
}

/**
 * @internal True when a streaming-list error says the server does not offer streaming lists for this resource:
 * an HTTP refusal (4xx other than 408, 409, 410, 429) or a stream that does not follow KEP-3157. Anything else
 * (network, 5xx, 429, timeouts) falls back to a list once and tries streaming again on the next list.
 */
export function isStreamingRefusal(error: unknown): boolean {
  if (error instanceof StreamingUnsupportedError) return true;
  if (!isApiError(error)) return false;
  const { status } = error;
  return status >= 400 && status < 500 && ![408, 409, 410, 429].includes(status);
}

/** `batches`, with `leftover` (the events after the end bookmark in its chunk) first. */
function withLeftover<T extends KubeObjectLike>(
  batches: AsyncIterator<WatchEvent<T>[]>,
  leftover: WatchEvent<T>[],
): AsyncIterator<WatchEvent<T>[]> {
  let first: WatchEvent<T>[] | undefined = leftover.length > 0 ? leftover : undefined;
  return {
    next: () => {
      if (first === undefined) return batches.next();
      const value = first;
      first = undefined;
      return Promise.resolve({ done: false, value });
    },
    return: async () => {
      await batches.return?.();
      return { done: true, value: undefined };
    },
  };
}

/**
 * @internal The rest of a streaming list's watch as the steps of the watch that takes it over: `options.signal`
 * (that watch's) releases the request; `return()` releases it too. Undefined, and the request released, when
 * `options` ask for another stream (a streaming list again) or carry no signal.
 */
export function resumeWatch<T extends KubeObjectLike>(
  open: OpenWatch<T>,
  options: WatchOptions,
): WatchSteps<T> | undefined {
  const { signal } = options;
  if (options.sendInitialEvents !== undefined || signal === undefined) {
    releaseWatch(open, 'streaming list not taken over');
    return undefined;
  }
  const { controller, steps } = open;
  const onAbort = (): void => controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const release = async (): Promise<IteratorReturnResult<undefined>> => {
    signal.removeEventListener('abort', onAbort);
    if (!controller.signal.aborted)
      controller.abort(new LassoError('LASSO_ABORTED', 'watch released'));
    await steps.return?.();
    return { done: true, value: undefined };
  };
  return { batched: open.batched, steps: { next: () => steps.next(), return: release } };
}

/** @internal Releases a streaming list's watch nobody takes over. */
export function releaseWatch<T extends KubeObjectLike>(open: OpenWatch<T>, why: string): void {
  open.controller.abort(new LassoError('LASSO_ABORTED', why));
  Promise.resolve()
    .then(() => open.steps.return?.())
    .catch(() => {});
}
