// One HTTPS POST of a review to a webhook, as kube-apiserver's webhook client makes it: the URL with
// `?timeout=Ns` appended, the configuration's caBundle as the only trusted CA (the system roots without one),
// a deadline of timeoutSeconds, and the answer read up to a bound. Only `clientConfig.url` is reachable
// from an in-process server: a `service` reference would need the cluster's network.
import https from 'node:https';
import type { Clock } from '@lasso/core';
import { isRecord } from '../apimachinery/objects.ts';

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
          try {
            finish(undefined, JSON.parse(text));
          } catch (error) {
            finish(
              new Error(
                `received invalid webhook response: ${error instanceof SyntaxError ? error.message : 'not JSON'}`,
              ),
            );
          }
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
      finish(new Error(`failed to call webhook: ${shown}: ${error.message}`)),
    );
    if (signal?.aborted) cancel();
    else {
      signal?.addEventListener('abort', cancel, { once: true });
      request.end(payload);
    }
  });
}
