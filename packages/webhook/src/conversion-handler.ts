// Serving one ConversionReview: each object through the conversion registered for its group and kind, within the
// request's time bound; any failure answers the whole review with result Failure (kube-apiserver converts all or none).
import type { KubeObject } from '@lasso/client';
import { anySignal, errorMessage, raceSignal, timeoutSignal } from '@lasso/core';
import type { HandlerDeps } from './admission-handler.ts';
import type { Conversion } from './conversion.ts';
import type { JsonValue } from './json-patch.ts';
import type { WebhookSeries } from './metrics.ts';
import { conversionReviewResponse, decodeConversionReview } from './review.ts';

/**
 * @internal Decode `body` as a ConversionReview, convert its objects and return the ConversionReview to answer
 * with. Throws a MalformedReviewError for a malformed review.
 */
export async function serveConversion(
  deps: HandlerDeps & { readonly conversions: ReadonlyMap<string, Conversion> },
  body: unknown,
  series: WebhookSeries,
  signals: AbortSignal[],
  timeoutMs: number,
): Promise<object> {
  const decoded = decodeConversionReview(body);
  const timeout = timeoutSignal(
    deps.clock,
    timeoutMs,
    `conversion timed out after ${timeoutMs} ms`,
  );
  const combined = anySignal([...signals, timeout.signal]);
  try {
    const converted = await raceSignal(
      Promise.all(
        decoded.objects.map((object) => {
          const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
          const group = apiVersion.includes('/')
            ? apiVersion.slice(0, apiVersion.lastIndexOf('/'))
            : '';
          const conversion = deps.conversions.get(`${group}/${String(object.kind)}`);
          if (conversion === undefined) {
            throw new TypeError(
              `no conversion is registered for ${String(object.kind)} ${apiVersion}`,
            );
          }
          return conversion.convert(object as KubeObject, decoded.desiredAPIVersion);
        }),
      ),
      combined.signal,
    );
    return conversionReviewResponse({
      uid: decoded.uid,
      convertedObjects: converted as unknown as JsonValue[],
      result: { status: 'Success' },
    });
  } catch (error) {
    series.errors.inc();
    const message = errorMessage(error);
    deps.logger.error('conversion failed', {
      uid: decoded.uid,
      desiredAPIVersion: decoded.desiredAPIVersion,
      error: message,
    });
    return conversionReviewResponse({
      uid: decoded.uid,
      convertedObjects: [],
      result: { status: 'Failure', message },
    });
  } finally {
    timeout.clear();
    combined.dispose();
  }
}
