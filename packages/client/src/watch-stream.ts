// The body of Client.watch: one watch request read as newline-delimited events, within the event bound and
// the inactivity deadline (client-go's StreamWatcher over a rest.Request).
import {
  abortReason,
  anySignal,
  type Clock,
  errorMessage,
  isLassoError,
  LassoError,
} from '@lasso/core';
import type { Impersonation } from './config/rest-config.ts';
import { InactivityTimer } from './inactivity-timer.ts';
import { SlowResponseError, ThroughputFloor, WATCH_EVENT_WINDOW_MS } from './throughput-floor.ts';
import { RequestTimeoutError, watchInactivityMs } from './timeout-policy.ts';
import { requestInfoFor } from './transport/request-info.ts';
import { describeRequest, tooLargeError } from './transport/response-body.ts';
import type { RestRequest } from './transport/rest-request.ts';
import type { RestTransport } from './transport.ts';
import type { KubeObjectLike, WatchEvent, WatchOptions } from './types.ts';
import { decodeWatchEvent, decodeWatchTail, LineDecoder } from './watch.ts';

/**
 * @internal Throws a TypeError naming the options when a watch's streaming-list options form a combination
 * kube-apiserver refuses (its ValidateListOptions for watches): `sendInitialEvents` without
 * `resourceVersionMatch: 'NotOlderThan'`, `resourceVersionMatch` without `sendInitialEvents` or with another value.
 */
export function validateWatchOptions(options: WatchOptions): void {
  const { sendInitialEvents, resourceVersionMatch } = options;
  if (sendInitialEvents !== undefined && typeof sendInitialEvents !== 'boolean') {
    throw new TypeError(
      `Client.watch: sendInitialEvents must be true, false or undefined, got ${JSON.stringify(sendInitialEvents)}`,
    );
  }
  if (resourceVersionMatch !== undefined && resourceVersionMatch !== 'NotOlderThan') {
    throw new TypeError(
      `Client.watch: resourceVersionMatch must be 'NotOlderThan' on a watch, got ${JSON.stringify(resourceVersionMatch)}`,
    );
  }
  if (sendInitialEvents !== undefined && resourceVersionMatch === undefined) {
    throw new TypeError(
      "Client.watch: sendInitialEvents requires resourceVersionMatch: 'NotOlderThan'",
    );
  }
  if (resourceVersionMatch !== undefined && sendInitialEvents === undefined) {
    throw new TypeError(
      'Client.watch: resourceVersionMatch is only allowed on a watch with sendInitialEvents',
    );
  }
}

const NEWLINE = 0x0a;

/** @internal What {@link watchStream} needs of its Client. */
export interface WatchStreamInit<T> {
  transport: RestTransport;
  path: string;
  options: WatchOptions;
  clock: Clock;
  /** The plural resource, for messages. */
  resource: string;
  maxWatchEventBytes: number;
  userAgent: string | undefined;
  impersonation: Impersonation | undefined;
  /** Fills apiVersion and kind into an event's object. */
  fill: (object: T) => T;
}

/**
 * @internal The events of one watch request. An HTTP error answer throws its ApiError from the first
 * `next()`; a line over `maxWatchEventBytes` throws `LASSO_RESPONSE_TOO_LARGE`; a malformed line
 * `LASSO_WATCH_DECODE`; a stream ending inside an event `LASSO_WATCH_TRUNCATED`; no bytes for the
 * inactivity timeout a TimeoutError; a cut connection `LASSO_CONNECTION_FAILED`. The body is destroyed
 * whenever the generator ends. {@link watchBatchStream} gives the same events chunk by chunk.
 */
export function watchStream<T extends KubeObjectLike>(
  init: WatchStreamInit<T>,
): AsyncGenerator<WatchEvent<T>> {
  return eventsOf(watchBatches(init));
}

/**
 * @internal The events of one watch request, one array per body chunk, in order, never empty: a consumer that
 * applies every event of a chunk synchronously pays one promise turn per chunk instead of one per event. Errors
 * and their order are {@link watchStream}'s: the events decoded before a malformed line, an ERROR event or an
 * oversized line are yielded as one batch, and the error is thrown by the next call. `return()` releases the
 * request.
 */
export function watchBatchStream<T extends KubeObjectLike>(
  init: WatchStreamInit<T>,
): AsyncGenerator<WatchEvent<T>[]> {
  return watchBatches(init);
}

/** The events of `batches` one by one; ending early (return, throw) ends `batches`, which releases the body. */
async function* eventsOf<T extends KubeObjectLike>(
  batches: AsyncGenerator<WatchEvent<T>[]>,
): AsyncGenerator<WatchEvent<T>> {
  try {
    for (;;) {
      const result = await batches.next();
      if (result.done === true) return;
      for (const event of result.value) yield event;
    }
  } finally {
    await batches.return(undefined);
  }
}

/** The events of one watch request, one array per body chunk (see {@link watchStream}). */
async function* watchBatches<T extends KubeObjectLike>(
  init: WatchStreamInit<T>,
): AsyncGenerator<WatchEvent<T>[]> {
  const { options, clock, resource } = init;
  const inactivityMs = watchInactivityMs(options);
  const stop = new AbortController();
  const combined = anySignal([options.signal, stop.signal]);
  // Tested instead of `combined.signal.aborted` once the body fails, with the reason taken when it aborted: an
  // aborted AbortSignal has another hidden class than a live one, and reading it here deoptimized this generator at
  // every stop (V8 then compiled it again for the next watch).
  let abortedBy: Error | undefined = combined.signal.aborted
    ? abortReason(combined.signal)
    : undefined;
  if (abortedBy === undefined) {
    combined.signal.addEventListener(
      'abort',
      () => {
        abortedBy = abortReason(combined.signal);
      },
      { once: true },
    );
  }
  const request: RestRequest = {
    method: 'GET',
    path: init.path,
    query: {
      watch: 'true',
      resourceVersion: options.resourceVersion,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      shardSelector: options.shardSelector,
      timeoutSeconds: options.timeoutSeconds,
      allowWatchBookmarks: options.allowWatchBookmarks ? true : undefined,
      sendInitialEvents: options.sendInitialEvents,
      resourceVersionMatch: options.resourceVersionMatch,
    },
    // Each event's object is one PartialObjectMetadata (client-go's metadata client watches with this type).
    accept:
      options.asMetadata === true
        ? 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1'
        : undefined,
  };
  // Bytes count as activity, and time the consumer spends holding an event does not count.
  const deadline = new InactivityTimer({
    clock,
    timeoutMs: inactivityMs,
    onExpire: () => stop.abort(RequestTimeoutError.of(request, 'inactivity', inactivityMs)),
  });
  // Beside it, the throughput floor, on a started event only: an idle watch (no events, bookmarks now and then)
  // owes nothing, but once an event line began, it must bring the floor's bytes per window until its newline
  // (a server dripping an event a few bytes at a time resets the inactivity deadline with every byte).
  const sent = clock.monotonic();
  let received = 0;
  const floor = new ThroughputFloor({
    clock,
    windowMs: WATCH_EVENT_WINDOW_MS,
    onTooSlow: (windowBytes, windowMs) =>
      stop.abort(
        new SlowResponseError({
          method: request.method,
          request: requestInfoFor(request.method, request.path, request.query),
          part: 'watch event',
          receivedBytes: received,
          elapsedMs: clock.monotonic() - sent,
          windowBytes,
          windowMs,
        }),
      ),
  });
  // Whether the decoder holds the start of a line: the bytes after a chunk's last newline.
  let partial = false;
  let body: { destroy(): unknown } | undefined;
  try {
    const response = await init.transport.stream({
      ...request,
      signal: combined.signal,
      userAgent: init.userAgent,
      impersonation: init.impersonation,
    });
    body = response.body;
    const limit = init.maxWatchEventBytes;
    const decoder = new LineDecoder({ maxLineBytes: limit });
    // The decoder's bound error, said of this request.
    const bounded = <R>(decode: () => R): R => {
      try {
        return decode();
      } catch (error) {
        if (!isLassoError(error, 'LASSO_RESPONSE_TOO_LARGE')) throw error;
        throw tooLargeError(request, 'a watch event', 'maxWatchEventBytes', limit);
      }
    };
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        deadline.touch();
        received += chunk.byteLength;
        if (chunk.byteLength > 0) partial = chunk[chunk.byteLength - 1] !== NEWLINE;
        if (partial) floor.begin();
        else floor.end();
        floor.add(chunk.byteLength);
        // Every whole event of the chunk, decoded before it is handed over; the first failure (an oversized, a
        // malformed line, an ERROR event) is thrown after the events before it, as one event at a time would.
        const batch: WatchEvent<T>[] = [];
        let failure: { error: unknown } | undefined;
        let lines: string[] = [];
        try {
          lines = bounded(() => decoder.push(chunk));
          for (const line of lines) {
            if (line === '') continue;
            const event = decodeWatchEvent<T>(line);
            init.fill(event.object);
            batch.push(event);
          }
        } catch (error) {
          failure = { error };
        }
        // Emptied once read: V8 may allocate these arrays in the old generation (they often outlive a scavenge),
        // and a dead old array still keeps what it points to alive through every scavenge until a full GC, which
        // would promote every event's objects (a heap several times larger).
        lines.length = 0;
        if (batch.length > 0) {
          deadline.hold();
          floor.hold();
          try {
            yield batch;
          } finally {
            deadline.release();
            floor.release();
            batch.length = 0;
          }
        }
        if (failure !== undefined) throw failure.error;
      }
      const tail = decodeWatchTail<T>(
        bounded(() => decoder.end()),
        describeRequest(request),
      );
      if (tail !== undefined) {
        init.fill(tail.object);
        yield [tail];
      }
    } catch (error) {
      if (abortedBy !== undefined) throw abortedBy;
      if (isLassoError(error)) throw error;
      const code = (error as { code?: unknown } | null)?.code;
      throw new LassoError(
        'LASSO_CONNECTION_FAILED',
        `watch ${resource}: connection failed${typeof code === 'string' ? ` (${code})` : ''}: ${errorMessage(error)}`,
        { cause: error },
      );
    }
  } finally {
    deadline.cancel();
    floor.cancel();
    combined.dispose();
    body?.destroy();
  }
}
