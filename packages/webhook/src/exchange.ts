// One HTTP exchange of the webhook server: routing by path, the checks before a body is read (method, media type,
// declared length), the bounded body read, and the answer; every failure is a metav1.Status with its HTTP code.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock, Logger } from '@lasso/core';
import { errorMessage } from '@lasso/core';
import { serveAdmission } from './admission-handler.ts';
import type { Conversion } from './conversion.ts';
import { serveConversion } from './conversion-handler.ts';
import { parseGoDuration } from './duration.ts';
import { MalformedReviewError } from './errors.ts';
import type { WebhookMetrics } from './metrics.ts';
import type { AdmissionRegistration } from './registrations.ts';

/** The path conversion webhooks are served at (controller-runtime's). */
export const conversionPath = '/convert';

/** @internal What an exchange needs of its server. */
export interface ExchangeDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: WebhookMetrics;
  readonly maxRequestBytes: number;
  readonly defaultTimeoutMs: number;
  readonly admission: ReadonlyMap<string, AdmissionRegistration>;
  readonly conversions: ReadonlyMap<string, Conversion>;
  nextRequestId(): number;
}

class HttpError {
  readonly status: number;
  readonly reason: string;
  readonly message: string;
  constructor(status: number, reason: string, message: string) {
    this.status = status;
    this.reason = reason;
    this.message = message;
  }
}

/** @internal Serve one request; never throws (a failure is an answer). `inFlight` names it until it ends. */
export function serveExchange(
  deps: ExchangeDeps,
  request: IncomingMessage,
  response: ServerResponse,
  inFlight: Map<number, string>,
  hardStop: AbortSignal,
): void {
  const path = (request.url ?? '/').split('?')[0] ?? '/';
  const isConversion = path === conversionPath && deps.conversions.size > 0;
  const registration = deps.admission.get(path);
  const label = isConversion || registration !== undefined ? path : 'unmatched';
  const series = deps.metrics.for(label);
  const id = deps.nextRequestId();
  inFlight.set(id, `${request.method ?? '?'} ${path}`);
  series.inFlight.inc();
  let finished = false;
  const finish = (status: number, body: object, started: number | undefined): void => {
    if (finished) return;
    finished = true;
    inFlight.delete(id);
    series.inFlight.dec();
    series.requests(status).inc();
    if (started !== undefined) series.latency.observe((deps.clock.monotonic() - started) / 1000);
    if (response.writableEnded || response.destroyed) return;
    const text = JSON.stringify(body);
    response.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...(status === 405 ? { allow: 'POST' } : {}),
      ...(status === 413 ? { connection: 'close' } : {}),
    });
    response.end(text);
  };
  const fail = (error: HttpError): void => {
    if (error.status >= 500)
      deps.logger.error('webhook request failed', { path, error: error.message });
    else
      deps.logger.warn('webhook request refused', {
        path,
        status: error.status,
        error: error.message,
      });
    finish(
      error.status,
      {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        message: error.message,
        reason: error.reason,
        code: error.status,
      },
      undefined,
    );
    if (error.status === 413) request.resume();
  };
  // The request closed before an answer (kube-apiserver timed out or went away): the handler's signal aborts.
  const disconnect = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) disconnect.abort(new Error('the caller closed the connection'));
    if (!finished) {
      finished = true;
      inFlight.delete(id);
      series.inFlight.dec();
      series.requests(499).inc();
    }
  });
  try {
    if (!isConversion && registration === undefined) {
      throw new HttpError(404, 'NotFound', `no webhook is served at ${path}`);
    }
    if (request.method !== 'POST') {
      throw new HttpError(
        405,
        'MethodNotAllowed',
        `${request.method ?? 'this method'} is not allowed; webhooks take POST`,
      );
    }
    const mediaType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (mediaType !== 'application/json') {
      throw new HttpError(
        415,
        'UnsupportedMediaType',
        `content type ${JSON.stringify(request.headers['content-type'] ?? '')} is not supported; send application/json`,
      );
    }
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > deps.maxRequestBytes) {
      throw new HttpError(
        413,
        'RequestEntityTooLarge',
        `the body of ${declared} bytes exceeds the limit of ${deps.maxRequestBytes}`,
      );
    }
  } catch (error) {
    fail(error as HttpError);
    return;
  }
  readBody(request, deps.maxRequestBytes)
    .then(async (raw) => {
      const started = deps.clock.monotonic();
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch (error) {
        throw new HttpError(400, 'BadRequest', `the body is not JSON: ${errorMessage(error)}`);
      }
      const timeoutMs = timeoutOf(request.url ?? '', deps.defaultTimeoutMs);
      if (isConversion) {
        const answer = await serveConversion(
          deps,
          body,
          series,
          [disconnect.signal, hardStop],
          timeoutMs,
        );
        finish(200, answer, started);
      } else {
        const answer = await serveAdmission(
          deps,
          registration as AdmissionRegistration,
          body,
          series,
          [disconnect.signal, hardStop],
          timeoutMs,
        );
        finish(200, answer, started);
      }
    })
    .catch((error: unknown) => {
      if (error instanceof HttpError) fail(error);
      else if (error instanceof MalformedReviewError)
        fail(new HttpError(400, 'BadRequest', error.message));
      else
        fail(
          new HttpError(500, 'InternalError', `serving the request failed: ${errorMessage(error)}`),
        );
    });
}

function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    request.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        reject(
          new HttpError(
            413,
            'RequestEntityTooLarge',
            `the body exceeds the limit of ${limit} bytes`,
          ),
        );
        return;
      }
      chunks.push(chunk);
    });
    request.once('end', () => {
      if (!over) resolve(Buffer.concat(chunks));
    });
    request.once('error', (error) =>
      reject(new HttpError(400, 'BadRequest', `reading the body failed: ${errorMessage(error)}`)),
    );
  });
}

// kube-apiserver adds `?timeout=<timeoutSeconds>s`; a missing or unreadable one gets the default, and one above
// the 30 s admissionregistration allows is capped there.
function timeoutOf(url: string, defaultTimeoutMs: number): number {
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  const text = new URLSearchParams(query).get('timeout');
  const parsed = text === null ? undefined : parseGoDuration(text);
  if (parsed === undefined || parsed <= 0) return defaultTimeoutMs;
  return Math.min(parsed, 30_000);
}
