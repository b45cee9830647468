// The body of Client.watch: one watch request read as newline-delimited events, within the event bound and
// the inactivity deadline (client-go's StreamWatcher over a rest.Request).
import {
  abortReason,
  anySignal,
  type Clock,
  errorMessage,
  isLassoError,
  LassoError,
  TimeoutError,
} from '@lasso/core';
import type { Impersonation } from './config/rest-config.ts';
import { InactivityTimer } from './inactivity-timer.ts';
import { describeRequest, tooLargeError } from './transport/response-body.ts';
import type { RestRequest } from './transport/rest-request.ts';
import type { RestTransport } from './transport.ts';
import type { KubeObjectLike, WatchEvent, WatchOptions } from './types.ts';
import { decodeWatchEvent, decodeWatchTail, LineDecoder } from './watch.ts';

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
 * whenever the generator ends.
 */
export async function* watchStream<T extends KubeObjectLike>(
  init: WatchStreamInit<T>,
): AsyncGenerator<WatchEvent<T>> {
  const { options, clock, resource } = init;
  const inactivityMs =
    options.inactivityTimeoutMs ??
    (options.timeoutSeconds !== undefined ? options.timeoutSeconds * 1000 + 30_000 : 0);
  const stop = new AbortController();
  const combined = anySignal([options.signal, stop.signal]);
  const request: RestRequest = {
    method: 'GET',
    path: init.path,
    query: {
      watch: 'true',
      resourceVersion: options.resourceVersion,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      timeoutSeconds: options.timeoutSeconds,
      allowWatchBookmarks: options.allowWatchBookmarks ? true : undefined,
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
    onExpire: () =>
      stop.abort(
        new TimeoutError(`watch ${resource}: no data for ${inactivityMs} ms`, inactivityMs),
      ),
  });
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
        for (const line of bounded(() => decoder.push(chunk))) {
          if (line === '') continue;
          const event = decodeWatchEvent<T>(line);
          init.fill(event.object);
          deadline.hold();
          try {
            yield event;
          } finally {
            deadline.release();
          }
        }
      }
      const tail = decodeWatchTail<T>(
        bounded(() => decoder.end()),
        describeRequest(request),
      );
      if (tail !== undefined) {
        init.fill(tail.object);
        yield tail;
      }
    } catch (error) {
      if (combined.signal.aborted) throw abortReason(combined.signal);
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
    combined.dispose();
    body?.destroy();
  }
}
