// CRD conversion through a webhook (`spec.conversion.strategy: Webhook`), as apiextensions-apiserver's
// webhook_converter.go does it (1.20+): one ConversionReview (apiextensions.k8s.io/v1 or v1beta1, the first
// the CRD lists) per batch of objects bound for one version, the answer checked (uid, count, group/version,
// kind, name, namespace, uid), and the original metadata kept but for the labels and annotations the
// webhook returns. A failure is kube's bare 500 (no reason) `conversion webhook for <group/version,
// Kind=kind> failed: ...`.
import { randomUUID } from 'node:crypto';
import { canonical, isRecord, type Json } from '../apimachinery/objects.ts';
import { failure, StatusError } from '../apimachinery/status.ts';
import type { ResourceInfo } from '../resources/builtin-resources.ts';
import type { KubeObject } from '../storage/store.ts';
import { postReview } from './webhook-client.ts';
import type { AdmissionEnvironment } from './webhook-dispatch.ts';

/** kube answers a failed conversion with a bare 500: no reason, the converter's error as the message. */
function conversionError(message: string): StatusError {
  return new StatusError(failure(500, '', message));
}

/** kube's conversion client has no timeout of its own: its REST client's 30 s (sent as `?timeout=30s`). */
const conversionTimeoutSeconds = 30;

/** The conversion webhook of a custom resource's CRD; undefined when it converts without one. */
export interface ConversionWebhook {
  readonly crd: string;
  readonly clientConfig: Json;
  readonly reviewVersion: 'v1' | 'v1beta1' | undefined;
}

/** The CRD's conversion webhook, read from storage (so an update of the CRD applies at once). */
export function conversionWebhookOf(
  environment: Pick<AdmissionEnvironment, 'store'>,
  info: ResourceInfo,
): ConversionWebhook | undefined {
  if (info.builtin) return undefined;
  const name = `${info.resource}.${info.group}`;
  const crd = environment.store.get('apiextensions.k8s.io/customresourcedefinitions', '', name);
  const spec = isRecord(crd?.spec) ? crd.spec : {};
  const conversion = isRecord(spec.conversion) ? spec.conversion : {};
  if (conversion.strategy !== 'Webhook') return undefined;
  const webhook = isRecord(conversion.webhook) ? conversion.webhook : {};
  const versions = Array.isArray(webhook.conversionReviewVersions)
    ? webhook.conversionReviewVersions
    : [];
  const reviewVersion = versions.find((version) => version === 'v1' || version === 'v1beta1') as
    | 'v1'
    | 'v1beta1'
    | undefined;
  return {
    crd: name,
    clientConfig: isRecord(webhook.clientConfig) ? webhook.clientConfig : {},
    reviewVersion,
  };
}

/** What a conversion depends on: everything but the metadata kube restores, and the target version. */
export function conversionKey(object: KubeObject, apiVersion: string): string {
  const { metadata, ...rest } = object;
  const meta = isRecord(metadata) ? metadata : {};
  return canonical({
    rest,
    labels: meta.labels ?? null,
    annotations: meta.annotations ?? null,
    apiVersion,
  });
}

/** `converted` with `original`'s metadata, but for the labels and annotations the webhook gave. */
export function restoreMetadata(original: KubeObject, converted: KubeObject): KubeObject {
  const given = isRecord(converted.metadata) ? converted.metadata : {};
  const metadata: Json = structuredClone(isRecord(original.metadata) ? original.metadata : {});
  for (const field of ['labels', 'annotations']) {
    if (given[field] === undefined || given[field] === null) delete metadata[field];
    else metadata[field] = given[field];
  }
  return { ...converted, metadata };
}

function gvkOf(object: KubeObject): string {
  const apiVersion = String(object.apiVersion ?? '');
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return `${group}/${version}, Kind=${String(object.kind ?? '')}`;
}

/**
 * Convert `objects` (all of one kind) to `apiVersion` through the webhook; a StatusError on failure.
 * `signal` cancels the call (a watch that ends); the server's stop always does.
 */
export async function convertThroughWebhook(
  environment: AdmissionEnvironment,
  webhook: ConversionWebhook,
  objects: readonly KubeObject[],
  apiVersion: string,
  signal: AbortSignal = environment.signal,
): Promise<KubeObject[] | StatusError> {
  const first = objects[0];
  if (first === undefined) return [];
  const failed = (reason: string): StatusError =>
    conversionError(`conversion webhook for ${gvkOf(first)} failed: ${reason}`);
  if (webhook.reviewVersion === undefined) {
    return failed('no supported conversionReviewVersions (v1, v1beta1)');
  }
  if (typeof webhook.clientConfig.url !== 'string') {
    return failed(
      'conversion webhook clientConfig.service is not supported by the in-process API server: give clientConfig.url',
    );
  }
  const caBundle = webhook.clientConfig.caBundle;
  const uid = randomUUID();
  const review = {
    kind: 'ConversionReview',
    apiVersion: `apiextensions.k8s.io/${webhook.reviewVersion}`,
    request: { uid, desiredAPIVersion: apiVersion, objects },
  };
  let body: unknown;
  try {
    body = await postReview(
      environment.clock,
      {
        url: webhook.clientConfig.url,
        caPem:
          typeof caBundle === 'string' && caBundle !== ''
            ? Buffer.from(caBundle, 'base64').toString('utf8')
            : undefined,
        timeoutSeconds: conversionTimeoutSeconds,
      },
      review,
      signal,
    );
  } catch (error) {
    // The client gets the failure (a 500, or its watch ends): the webhook's, not the server's.
    environment.logger.debug('conversion webhook failed', {
      crd: webhook.crd,
      error: error instanceof Error ? error.message : String(error),
    });
    return failed(error instanceof Error ? error.message : 'failed to call webhook');
  }
  const response = isRecord(body) && isRecord(body.response) ? body.response : undefined;
  if (webhook.reviewVersion === 'v1') {
    const kind = isRecord(body)
      ? `${String(body.apiVersion ?? '')}, Kind=${String(body.kind ?? '')}`
      : '';
    if (kind !== 'apiextensions.k8s.io/v1, Kind=ConversionReview') {
      return failed(
        `expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${kind}`,
      );
    }
  }
  if (response === undefined) return failed('no response provided');
  if (webhook.reviewVersion === 'v1' && response.uid !== uid) {
    return failed(
      `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`,
    );
  }
  const result = isRecord(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    const message = typeof result.message === 'string' ? result.message : '';
    return failed(
      message !== ''
        ? message
        : `response.result.status was '${String(result.status ?? '')}', not 'Success'`,
    );
  }
  const converted = Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
  if (converted.length !== objects.length) {
    return conversionError(
      `conversion webhook for ${gvkOf(first)} returned ${converted.length} objects, expected ${objects.length}`,
    );
  }
  const out: KubeObject[] = [];
  for (const [index, item] of converted.entries()) {
    const original = objects[index] as KubeObject;
    if (!isRecord(item)) {
      return conversionError(
        `conversion webhook for ${gvkOf(first)} returned invalid object at index ${index}: not an object`,
      );
    }
    if (item.apiVersion !== apiVersion || item.kind !== original.kind) {
      return conversionError(
        `conversion webhook for ${gvkOf(first)} returned invalid object at index ${index}: invalid groupVersion or kind (expected ${apiVersion}, Kind=${String(original.kind)}, received ${String(item.apiVersion)}, Kind=${String(item.kind)})`,
      );
    }
    const itemMeta = isRecord(item.metadata) ? item.metadata : {};
    const originalMeta = isRecord(original.metadata) ? original.metadata : {};
    for (const field of ['name', 'namespace', 'uid']) {
      if ((itemMeta[field] ?? '') !== (originalMeta[field] ?? '')) {
        return conversionError(
          `conversion webhook for ${gvkOf(first)} returned invalid object: must have the same ${field}: ${String(originalMeta[field] ?? '')} != ${String(itemMeta[field] ?? '')}`,
        );
      }
    }
    out.push(restoreMetadata(original, item as KubeObject));
  }
  return out;
}
