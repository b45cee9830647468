// Watch events of a custom resource whose CRD converts through a webhook. kube-apiserver (1.20) keeps one
// watch cache per served version and converts each object as it decodes it from etcd into that cache
// (customresource_handler.go: the storage codec decodes to the served version); a conversion that fails
// there makes the etcd watcher send an error the cacher's reflector stops on, and the cacher then ends
// every watch of that version (terminateAllWatchers): the client sees its stream end, with no ERROR event.
// Here events stay in their stored version and each watch converts them in order before sending them:
// what the client sees is the same, events in commit order, in its version, or a stream that ends.
import { StatusError } from '../apimachinery/status.ts';
import type { KubeObject } from '../storage/store.ts';

/**
 * Converts stored objects to a watch's version; a StatusError when the webhook fails (the converter logs
 * it: the watch only ends).
 */
export type EventConverter = (
  objects: KubeObject[],
  signal: AbortSignal,
) => Promise<KubeObject[] | StatusError>;

/** The most objects of one ConversionReview a watch sends (a burst, as the initial events, is batched). */
export const maxWatchConversionBatch = 500;

type Entry = { type: string; object: KubeObject } | { event: unknown };

/** The events of one watch, converted in order through its CRD's webhook before they are sent. */
export class ConvertedEvents {
  readonly #convert: EventConverter;
  readonly #send: (event: unknown) => void;
  readonly #end: () => void;
  readonly #finish: (object: KubeObject) => KubeObject;
  readonly #abort = new AbortController();
  #pending: Entry[] = [];
  #draining = false;
  #stopped = false;

  constructor(options: {
    convert: EventConverter;
    send: (event: unknown) => void;
    end: () => void;
    /** The converted object as the watch's version shows it (defaults, kind). */
    finish: (object: KubeObject) => KubeObject;
  }) {
    this.#convert = options.convert;
    this.#send = options.send;
    this.#end = options.end;
    this.#finish = options.finish;
  }

  /** Queue an object event; `object` is copied (the store's objects are read in place). */
  push(type: string, object: KubeObject): void {
    if (this.#stopped) return;
    this.#pending.push({ type, object: structuredClone(object) });
    this.#drainSoon();
  }

  /** Send an event that needs no conversion (a bookmark), after the events queued before it. */
  pass(event: unknown): void {
    if (this.#stopped) return;
    if (!this.#draining && this.#pending.length === 0) this.#send(event);
    else this.#pending.push({ event });
  }

  /** The watch ended: drop what is queued and cancel a conversion in flight. */
  stop(): void {
    this.#stopped = true;
    this.#pending = [];
    this.#abort.abort();
  }

  #drainSoon(): void {
    if (this.#draining) return;
    this.#draining = true;
    // Start after the current tick so the events queued together (the initial state) share one review.
    queueMicrotask(() => {
      this.#drain().then(
        () => {
          this.#draining = false;
        },
        () => this.#fail(),
      );
    });
  }

  async #drain(): Promise<void> {
    while (!this.#stopped && this.#pending.length > 0) {
      const head = this.#pending[0] as Entry;
      if ('event' in head) {
        this.#pending.shift();
        this.#send(head.event);
        continue;
      }
      let count = 0;
      while (count < this.#pending.length && count < maxWatchConversionBatch) {
        if ('event' in (this.#pending[count] as Entry)) break;
        count++;
      }
      const batch = this.#pending.slice(0, count) as { type: string; object: KubeObject }[];
      const converted = await this.#convert(
        batch.map((entry) => entry.object),
        this.#abort.signal,
      );
      if (this.#stopped) return;
      if (converted instanceof StatusError) {
        this.#fail();
        return;
      }
      this.#pending.splice(0, count);
      batch.forEach((entry, index) => {
        if (this.#stopped) return;
        this.#send({ type: entry.type, object: this.#finish(converted[index] as KubeObject) });
      });
    }
  }

  #fail(): void {
    if (this.#stopped) return;
    this.stop();
    this.#end();
  }
}
