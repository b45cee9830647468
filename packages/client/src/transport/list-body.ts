// A list answer decoded as its body arrives: each element of the top-level `items` array is parsed (and handed to
// the caller's function) as soon as its last byte is in, so a list of 100,000 objects never exists as one body, one
// string and 100,000 raw objects at once (W5 on kube-apiserver 1.20.2: a 1 GiB peak for ~164 MiB of cached
// objects). The rest of the body (kind, apiVersion, metadata) is kept and parsed at the end.
import { LassoError } from '@lasso/core';
import {
  type BodyRequest,
  type BodySource,
  describeRequest,
  tooLargeError,
} from './response-body.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/** Where the scan is: outside `items`, between its elements, or inside one. */
const SKELETON = 0;
const BETWEEN = 1;
const ITEM = 2;

const itemsKey = /"items"\s*:\s*$/;

/**
 * @internal Splits a JSON list body into its `items` elements as chunks arrive. `push` each chunk, then `end()`
 * returns the list with `items` holding what `onItem` returned for each element, in order. Strings are skipped
 * with `indexOf` (most of a Kubernetes object's bytes are in strings); the structure outside strings is read a
 * byte at a time. Errors never quote the body (it may hold Secret data).
 */
export class ListBodyDecoder {
  readonly #onItem: (item: unknown) => unknown;
  readonly #invalid: (what: string) => Error;
  readonly #items: unknown[] = [];
  #skeleton: Buffer[] = [];
  #itemParts: Buffer[] = [];
  #mode = SKELETON;
  #depth = 0;
  #inString = false;
  #escape = false;
  #sawItems = false;

  constructor(onItem: (item: unknown) => unknown, invalid: (what: string) => Error) {
    this.#onItem = onItem;
    this.#invalid = invalid;
  }

  push(chunk: Buffer): void {
    const length = chunk.length;
    // Start of the part of this chunk that belongs to the skeleton (SKELETON) or to the current item (ITEM).
    let start = 0;
    let nextBackslash = -2; // not searched yet in this chunk
    let depth = this.#depth;
    let mode = this.#mode;
    let i = 0;
    while (i < length) {
      if (this.#inString) {
        if (this.#escape) {
          this.#escape = false;
          i++;
          continue;
        }
        const quote = chunk.indexOf(QUOTE, i);
        if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = chunk.indexOf(BACKSLASH, i);
        if (nextBackslash !== -1 && (quote === -1 || nextBackslash < quote)) {
          this.#escape = true;
          i = nextBackslash + 1;
          continue;
        }
        if (quote === -1) break; // the string goes on in the next chunk
        this.#inString = false;
        i = quote + 1;
        continue;
      }
      const c = chunk[i] as number;
      if (c === QUOTE) {
        if (mode === BETWEEN) throw this.#invalid('a list whose items are not all objects');
        this.#inString = true;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (mode === BETWEEN) {
          if (c !== OPEN_BRACE) throw this.#invalid('a list whose items are not all objects');
          mode = ITEM;
          start = i;
        } else if (
          mode === SKELETON &&
          depth === 1 &&
          c === OPEN_BRACKET &&
          !this.#sawItems &&
          this.#endsWithItemsKey(chunk, start, i)
        ) {
          this.#skeleton.push(chunk.subarray(start, i + 1));
          this.#sawItems = true;
          mode = BETWEEN;
        }
        depth++;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (mode === ITEM && depth === 2) {
          this.#emit(chunk, start, i + 1);
          mode = BETWEEN;
        } else if (mode === BETWEEN) {
          if (c !== CLOSE_BRACKET) throw this.#invalid('a body that is not JSON');
          mode = SKELETON;
          start = i;
        }
        if (depth < 0) throw this.#invalid('a body that is not JSON');
      } else if (
        mode === BETWEEN &&
        c !== COMMA &&
        c !== 0x20 &&
        c !== 0x0a &&
        c !== 0x0d &&
        c !== 0x09
      ) {
        throw this.#invalid('a list whose items are not all objects');
      }
      i++;
    }
    if (mode === SKELETON) {
      if (start < length) this.#skeleton.push(chunk.subarray(start));
    } else if (mode === ITEM) {
      this.#itemParts.push(chunk.subarray(start));
    }
    this.#depth = depth;
    this.#mode = mode;
  }

  /** The list, once every chunk was pushed. */
  end(): unknown {
    if (this.#mode !== SKELETON || this.#inString || this.#depth !== 0) {
      throw this.#invalid('a JSON body cut short (ending inside a value)');
    }
    const text = Buffer.concat(this.#skeleton).toString('utf8');
    this.#skeleton = [];
    let list: unknown;
    try {
      list = JSON.parse(text);
    } catch {
      throw this.#invalid('a body that is not JSON');
    }
    if (this.#sawItems && typeof list === 'object' && list !== null && !Array.isArray(list)) {
      (list as { items?: unknown }).items = this.#items;
    }
    return list;
  }

  /** True when the skeleton so far, up to `chunk[end]`, ends with the `"items":` key of the top-level object. */
  #endsWithItemsKey(chunk: Buffer, start: number, end: number): boolean {
    let tail = chunk.toString('latin1', Math.max(start, end - 64), end);
    for (let k = this.#skeleton.length - 1; k >= 0 && tail.length < 64; k--) {
      const part = this.#skeleton[k] as Buffer;
      tail = part.toString('latin1', Math.max(0, part.length - 64)) + tail;
    }
    return itemsKey.test(tail);
  }

  #emit(chunk: Buffer, start: number, end: number): void {
    let text: string;
    if (this.#itemParts.length === 0) {
      text = chunk.toString('utf8', start, end);
    } else {
      this.#itemParts.push(chunk.subarray(start, end));
      text = Buffer.concat(this.#itemParts).toString('utf8');
      this.#itemParts = [];
    }
    let item: unknown;
    try {
      item = JSON.parse(text);
    } catch {
      throw this.#invalid('a list item that is not JSON');
    }
    let result: unknown;
    try {
      result = this.#onItem(item);
    } catch (error) {
      throw new ItemTransformFailure(error);
    }
    this.#items.push(result);
  }
}

/**
 * @internal The caller's item function threw: a LassoError so the transport neither retries the request nor
 * reports a broken connection; `Client.list` throws its `cause`, the error as thrown.
 */
export class ItemTransformFailure extends LassoError {
  constructor(cause: unknown) {
    super('LASSO_RESPONSE_INVALID', 'the list item function threw', { cause });
    this.name = 'ItemTransformFailure';
  }
}

/**
 * @internal Read a 2xx list body (identity encoding) at most `limit` bytes, decoding its items as they arrive
 * (see {@link ListBodyDecoder}). Past `limit` the body is destroyed and `LASSO_RESPONSE_TOO_LARGE` thrown, as for a
 * body read whole; an `onItem` that throws destroys the body and throws its error.
 */
export async function readListBody(
  body: BodySource,
  limit: number,
  request: BodyRequest,
  statusCode: number,
  onItem: (item: unknown) => unknown,
  onChunk?: (bytes: number) => void,
): Promise<unknown> {
  const decoder = new ListBodyDecoder(
    onItem,
    (what) =>
      new LassoError(
        'LASSO_RESPONSE_INVALID',
        `${describeRequest(request)}: the server answered ${statusCode} with ${what}`,
      ),
  );
  let received = 0;
  try {
    for await (const chunk of body) {
      onChunk?.(chunk.byteLength);
      received += chunk.byteLength;
      if (received > limit) {
        throw tooLargeError(request, 'the response body', 'maxResponseBytes', limit);
      }
      decoder.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    }
  } catch (error) {
    body.destroy();
    throw error;
  }
  if (received === 0) return undefined;
  return decoder.end();
}

/** @internal A list decoded whole (a gzip answer), with `onItem` applied to each element of its `items`. */
export function decodeItemsOf(list: unknown, onItem: (item: unknown) => unknown): unknown {
  const items = (list as { items?: unknown } | null | undefined)?.items;
  if (Array.isArray(items)) {
    for (let index = 0; index < items.length; index++) items[index] = onItem(items[index]);
  }
  return list;
}
