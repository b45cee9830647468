// Writes one whole answer with kube-apiserver's headers (Audit-Id, Cache-Control), honouring HEAD and an
// injected cut (the connection drops after some bytes).
import { randomUUID } from 'node:crypto';
import type * as http from 'node:http';

/** An answer to write. */
export interface ResponseContent {
  readonly code: number;
  readonly contentType: string;
  readonly body: string | Uint8Array;
  readonly headers: Record<string, string | string[]>;
}

/** Where an answer goes: the response, the request's method and the cut fault, if any. */
export interface ResponseTarget {
  readonly response: http.ServerResponse;
  readonly method: string;
  readonly cutAfter: number | undefined;
}

/** Write `content` (nothing when the response is gone; drop the connection when headers already went out). */
export function sendResponse(target: ResponseTarget, content: ResponseContent): void {
  const { response, method, cutAfter } = target;
  if (response.destroyed) return;
  // A failure after a watch's headers went out: nothing sensible can follow, so drop the connection.
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body =
    typeof content.body === 'string'
      ? Buffer.from(content.body, 'utf8')
      : Buffer.from(content.body);
  response.writeHead(content.code, {
    'Content-Type': content.contentType,
    'Content-Length': String(body.length),
    'Audit-Id': randomUUID(),
    'Cache-Control': 'no-cache, private',
    ...content.headers,
  });
  if (method === 'HEAD') {
    response.end();
    return;
  }
  if (cutAfter !== undefined && cutAfter < body.length) {
    response.write(body.subarray(0, cutAfter), () => response.destroy());
    return;
  }
  response.end(body);
}
