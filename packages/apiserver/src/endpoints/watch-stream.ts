// Watch answers on the wire: a chunked JSON stream of events, ended by timeoutSeconds (30 minutes without
// it), with periodic BOOKMARKs when the client allows them; the server's fault API can end every stream or
// send a bookmark on all of them at once.
import { randomUUID } from 'node:crypto';
import type * as http from 'node:http';
import type { Clock, TimerHandle } from '@lasso/core';
import type { WatchPlan } from '../storage/watch-fanout.ts';

/** Watches without `timeoutSeconds` end after this long (kube-apiserver picks 30 to 60 minutes). */
const defaultWatchTimeoutMs = 30 * 60_000;

interface ActiveWatch {
  end(): void;
  bookmark(): void;
}

/** The open watch streams of one server. */
export class WatchStreams {
  readonly #clock: Clock;
  readonly #bookmarkIntervalMs: number;
  readonly #active = new Set<ActiveWatch>();

  constructor(options: { clock: Clock; bookmarkIntervalMs: number }) {
    this.#clock = options.clock;
    this.#bookmarkIntervalMs = options.bookmarkIntervalMs;
  }

  /** End every open stream cleanly (the client sees the response end). */
  endAll(): void {
    for (const watch of [...this.#active]) watch.end();
  }

  /** Send a BOOKMARK on every stream that allows them. */
  bookmarkAll(): void {
    for (const watch of [...this.#active]) watch.bookmark();
  }

  /** Stream `plan`'s events on `response`; `cutAfter` drops the connection after that many bytes. */
  serve(plan: WatchPlan, response: http.ServerResponse, cutAfter: number | undefined): void {
    response.writeHead(200, {
      'Content-Type': 'application/json',
      'Transfer-Encoding': 'chunked',
      'Audit-Id': randomUUID(),
      'Cache-Control': 'no-cache, private',
    });
    response.flushHeaders();
    let ended = false;
    let written = 0;
    let control: { stop(): void; bookmark(): void } | undefined;
    const timers: TimerHandle[] = [];
    const cleanup = (): void => {
      ended = true;
      for (const timer of timers) timer.cancel();
      control?.stop();
      this.#active.delete(active);
    };
    const end = (): void => {
      if (ended) return;
      cleanup();
      response.end();
    };
    const send = (event: unknown): void => {
      if (ended) return;
      const chunk = Buffer.from(`${JSON.stringify(event)}\n`, 'utf8');
      if (cutAfter !== undefined && written + chunk.length >= cutAfter) {
        const partial = chunk.subarray(0, Math.max(0, cutAfter - written));
        cleanup();
        response.write(partial, () => response.destroy());
        return;
      }
      written += chunk.length;
      response.write(chunk);
    };
    const active: ActiveWatch = { end, bookmark: () => control?.bookmark() };
    this.#active.add(active);
    response.on('close', cleanup);
    control = plan.start(send, end);
    if (ended) {
      control.stop();
      return;
    }
    timers.push(this.#clock.schedule(plan.timeoutMs ?? defaultWatchTimeoutMs, end));
    if (plan.bookmarks) {
      const scheduleBookmark = (): void => {
        const timer = this.#clock.schedule(this.#bookmarkIntervalMs, () => {
          if (ended) return;
          control?.bookmark();
          timers.splice(timers.indexOf(timer), 1);
          scheduleBookmark();
        });
        timers.push(timer);
      };
      scheduleBookmark();
    }
  }
}
