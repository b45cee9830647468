// The request body, read whole before authentication as kube-apiserver's body limit does: a declared or
// actual size over the limit is its 413.
import { entityTooLarge } from '../apimachinery/status.ts';
import type { Filter } from './chain.ts';

/** kube-apiserver's request body limit for JSON bodies. */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

/** Reads the body into `exchange.body`; 413 past `limit` bytes. */
export function withRequestBody(limit = maxRequestBodyBytes): Filter {
  return (next) => async (exchange) => {
    const { request } = exchange;
    const declared = Number(request.headers['content-length'] ?? '0');
    if (declared > limit) throw entityTooLarge(limit);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > limit) throw entityTooLarge(limit);
      chunks.push(buffer);
    }
    exchange.body = Buffer.concat(chunks);
    await next(exchange);
  };
}
