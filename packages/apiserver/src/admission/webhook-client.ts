// One HTTPS POST of a review to a webhook, as kube-apiserver's webhook client makes it: the URL with
// `?timeout=Ns` appended, the configuration's caBundle as the only trusted CA (the system roots without one),
// a deadline of timeoutSeconds, and the answer read up to a bound. Only `clientConfig.url` is reachable
// from an in-process server: a `service` reference would need the cluster's network.
import https from 'node:https';
import type { Clock } from '@lasso/core';
import { isRecord } from '../apimachinery/objects.ts';
import { decodeWebhookAnswer } from './response-decoding.ts';

/** The most of a webhook's answer read (kube's webhook client reads the whole body; 3 MiB bounds it here). */
export const maxWebhookResponseBytes = 3 * 1024 * 1024;

/** Where and how to call one webhook. */
export interface WebhookTarget {
  url: string;
  /** PEM, already base64-decoded from `clientConfig.caBundle`; undefined: the system roots. */
  caPem: string | undefined;
  timeoutSeconds: number;
}

/** The URL of a webhook's clientConfig, or an Error naming why it cannot be called. */
export function targetOf(hook: Record<string, unknown>): WebhookTarget | Error {
  const client = isRecord(hook.clientConfig) ? hook.clientConfig : {};
  const timeoutSeconds = typeof hook.timeoutSeconds === 'number' ? hook.timeoutSeconds : 10;
  if (typeof client.url !== 'string') {
    return new Error(
      'webhook clientConfig.service is not supported by the in-process API server: give clientConfig.url',
    );
  }
  const caPem =
    typeof client.caBundle === 'string' && client.caBundle !== ''
      ? Buffer.from(client.caBundle, 'base64').toString('utf8')
      : undefined;
  return { url: client.url, caPem, timeoutSeconds };
}

/** The URL as called: kube's REST client adds the request timeout as a query parameter. */
export function callUrl(target: WebhookTarget): URL {
  const url = new URL(target.url);
  url.searchParams.set('timeout', `${target.timeoutSeconds}s`);
  return url;
}

/**
 * POST `review` and answer the parsed JSON body. Throws an Error whose message follows kube's
 * `failed to call webhook: ...` / `received invalid webhook response: ...` shapes; it never holds a body.
 * `signal` (the server's stop) cancels the call at once, as kube's request context does.
 */
export function postReview(
  clock: Clock,
  target: WebhookTarget,
  review: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  const url = callUrl(target);
  const shown = `Post "${url.toString()}"`;
  const payload = Buffer.from(JSON.stringify(review));
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, value?: unknown): void => {
      if (settled) return;
      settled = true;
      timer.cancel();
      signal?.removeEventListener('abort', cancel);
      if (error !== undefined) reject(error);
      else resolve(value);
    };
    const request = https.request(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, */*',
          'Content-Length': payload.length,
        },
        ...(target.caPem === undefined ? {} : { ca: target.caPem }),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxWebhookResponseBytes) {
            request.destroy();
            finish(
              new Error(
                `failed to call webhook: ${shown}: the response is larger than ${maxWebhookResponseBytes} bytes`,
              ),
            );
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', (error) =>
          finish(new Error(`failed to call webhook: ${shown}: ${error.message}`)),
        );
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const code = response.statusCode ?? 0;
          if (code < 200 || code > 299) {
            finish(
              new Error(
                `failed to call webhook: the server responded with the status code ${code} but did not return more information`,
              ),
            );
            return;
          }
          decodeWebhookAnswer(text, String(response.headers['content-type'] ?? '')).then(
            (decoded) =>
              decoded instanceof Error
                ? finish(new Error(`failed to call webhook: ${decoded.message}`))
                : finish(undefined, decoded),
            (error: unknown) =>
              finish(
                new Error(
                  `failed to call webhook: ${error instanceof Error ? error.message : 'undecodable response'}`,
                ),
              ),
          );
        });
      },
    );
    const timer = clock.schedule(target.timeoutSeconds * 1000, () => {
      request.destroy();
      finish(new Error(`failed to call webhook: ${shown}: context deadline exceeded`));
    });
    // A stopping server does not wait out a hanging webhook's timeout (kube's context canceled).
    const cancel = (): void => {
      request.destroy();
      finish(new Error(`failed to call webhook: ${shown}: context canceled`));
    };
    request.on('error', (error) =>
      finish(new Error(`failed to call webhook: ${shown}: ${goNetworkError(error, url)}`)),
    );
    if (signal?.aborted) cancel();
    else {
      signal?.addEventListener('abort', cancel, { once: true });
      request.end(payload);
    }
  });
}

const unknownAuthority = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/**
 * A Node socket or TLS error in the words of Go's net/http and crypto/x509, as kube-apiserver prints
 * them; an error with no Go counterpart keeps Node's message.
 */
export function goNetworkError(error: Error, url: URL): string {
  const code = (error as { code?: unknown }).code;
  const port = url.port === '' ? '443' : url.port;
  const address = `${url.hostname}:${port}`;
  if (code === 'ECONNREFUSED') return `dial tcp ${address}: connect: connection refused`;
  if (code === 'EHOSTUNREACH') return `dial tcp ${address}: connect: no route to host`;
  if (code === 'ENETUNREACH') return `dial tcp ${address}: connect: network is unreachable`;
  if (code === 'ENOTFOUND') return `dial tcp: lookup ${url.hostname}: no such host`;
  if (code === 'ECONNRESET' && error.message === 'socket hang up') return 'EOF';
  if (typeof code === 'string' && unknownAuthority.has(code)) {
    return 'x509: certificate signed by unknown authority';
  }
  return error.message;
}
