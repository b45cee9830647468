// A fake exchange for the filters' unit tests: a request whose body is given chunks, with headers and a
// socket as node:http would set them, and a response that records what a filter writes.
import type * as http from 'node:http';
import { Readable } from 'node:stream';
import { anonymousUser } from '../../authentication/authenticate.ts';
import type { Exchange, ExchangeHandler } from '../chain.ts';

/** What a filter wrote to the fake response. */
export interface RecordedResponse {
  status: number | undefined;
  headers: Record<string, unknown>;
  body: Buffer;
  ended: boolean;
  destroyed: boolean;
}

export interface FakeExchangeOptions {
  method?: string;
  /** The request target (path and query). */
  target?: string;
  /** Request headers; repeated ones as arrays. */
  headers?: Record<string, string | string[]>;
  /** Body chunks the request streams. */
  chunks?: Buffer[];
  /** The TLS socket's view of a client certificate: authorized with this subject. */
  certificate?: { CN?: string | string[]; O?: string | string[] };
}

/** An exchange as the server builds it before the chain runs, and what its response recorded. */
export function fakeExchange(options: FakeExchangeOptions = {}): {
  exchange: Exchange;
  response: RecordedResponse;
  resumed: () => boolean;
} {
  const headers: Record<string, string | string[]> = {};
  const headersDistinct: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    headers[name.toLowerCase()] = value;
    headersDistinct[name.toLowerCase()] = Array.isArray(value) ? value : [value];
  }
  const socket =
    options.certificate === undefined
      ? { destroyed: false }
      : {
          destroyed: false,
          authorized: true,
          getPeerCertificate: () => ({ subject: options.certificate }),
        };
  let resumed = false;
  const stream = Readable.from(options.chunks ?? []);
  const request = Object.assign(stream, {
    headers,
    headersDistinct,
    socket,
    resume() {
      resumed = true;
      return stream;
    },
  }) as unknown as http.IncomingMessage;
  const recorded: RecordedResponse = {
    status: undefined,
    headers: {},
    body: Buffer.alloc(0),
    ended: false,
    destroyed: false,
  };
  const response = {
    get destroyed() {
      return recorded.destroyed;
    },
    get headersSent() {
      return recorded.status !== undefined;
    },
    writeHead(status: number, values: Record<string, unknown>) {
      recorded.status = status;
      recorded.headers = values;
      return response;
    },
    write(chunk: Buffer, done?: () => void) {
      recorded.body = Buffer.concat([recorded.body, chunk]);
      done?.();
      return true;
    },
    end(chunk?: Buffer) {
      if (chunk !== undefined) recorded.body = Buffer.concat([recorded.body, chunk]);
      recorded.ended = true;
    },
    destroy() {
      recorded.destroyed = true;
    },
  } as unknown as http.ServerResponse;
  const url = new URL(options.target ?? '/', 'https://127.0.0.1');
  const exchange: Exchange = {
    request,
    response,
    method: (options.method ?? 'GET').toUpperCase(),
    url,
    cutAfter: undefined,
    body: Buffer.alloc(0),
    user: anonymousUser,
    info: undefined,
  };
  return { exchange, response: recorded, resumed: () => resumed };
}

/** The handler after a filter: records the exchanges it was called with. */
export function recordingNext(): ExchangeHandler & { calls: Exchange[] } {
  const calls: Exchange[] = [];
  const next = async (exchange: Exchange): Promise<void> => {
    calls.push(exchange);
  };
  return Object.assign(next, { calls });
}
