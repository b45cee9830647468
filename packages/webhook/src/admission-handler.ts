// Serving one AdmissionReview: the handler's request built from the decoded review, its time bound, and the
// response kube-apiserver reads (verdict, JSON Patch, warnings, or a thrown error as code 500).
import type { KubeObjectLike } from '@lasso/client';
import {
  anySignal,
  type Clock,
  errorMessage,
  type Logger,
  raceSignal,
  timeoutSignal,
} from '@lasso/core';
import { createJsonPatch, type JsonValue } from './json-patch.ts';
import type { WebhookSeries } from './metrics.ts';
import type { AdmissionRegistration } from './registrations.ts';
import {
  type AdmissionResponseBody,
  admissionReviewResponse,
  type DecodedAdmissionRequest,
  decodeAdmissionReview,
} from './review.ts';
import { type AdmissionRequest, isAdmissionVerdict } from './types.ts';

/** @internal What a request handler needs of its server. */
export interface HandlerDeps {
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * @internal Decode `body` as an AdmissionReview for `registration`, run its handler within `timeoutMs` and the
 * `signals`, and return the AdmissionReview to answer with. Throws a MalformedReviewError for a malformed review.
 */
export async function serveAdmission(
  deps: HandlerDeps,
  registration: AdmissionRegistration,
  body: unknown,
  series: WebhookSeries,
  signals: AbortSignal[],
  timeoutMs: number,
): Promise<object> {
  const decoded = decodeAdmissionReview(body);
  const kind = registration.kind;
  const logger = deps.logger.child({ webhook: registration.name, uid: decoded.uid });
  if (
    decoded.kind.group !== kind.group ||
    decoded.kind.version !== kind.version ||
    decoded.kind.kind !== kind.kind
  ) {
    series.errors.inc();
    const message = `webhook ${registration.name} serves ${kind.apiVersion} ${kind.kind}, not ${
      decoded.kind.group === '' ? '' : `${decoded.kind.group}/`
    }${decoded.kind.version} ${decoded.kind.kind}`;
    logger.error('admission request for another kind', { error: message });
    return admissionReviewResponse({
      uid: decoded.uid,
      allowed: false,
      status: { code: 400, message },
    });
  }
  const warnings: string[] = [];
  const timeout = timeoutSignal(
    deps.clock,
    timeoutMs,
    `webhook ${registration.name} timed out after ${timeoutMs} ms`,
  );
  const combined = anySignal([...signals, timeout.signal]);
  // A mutating handler changes its own copy; the request's object stays as sent, to diff against.
  const object =
    registration.type === 'mutating' && decoded.object !== undefined
      ? structuredClone(decoded.object)
      : decoded.object;
  const request = makeRequest(decoded, object, combined.signal, warnings);
  try {
    const result = await raceSignal(
      Promise.resolve().then(() =>
        (registration.handler as (r: AdmissionRequest<KubeObjectLike>) => unknown)(request),
      ),
      combined.signal,
    );
    // A mutating handler that returns nothing may have changed its copy in place: that copy is its answer.
    const outcome = result === undefined && registration.type === 'mutating' ? object : result;
    return admissionReviewResponse(
      answer(registration, decoded, outcome, warnings, series, logger),
    );
  } catch (error) {
    series.errors.inc();
    const message = errorMessage(error);
    logger.error('admission handler failed', { operation: decoded.operation, error: message });
    return admissionReviewResponse({
      uid: decoded.uid,
      allowed: false,
      status: { code: 500, message },
      ...(warnings.length > 0 ? { warnings } : {}),
    });
  } finally {
    timeout.clear();
    combined.dispose();
  }
}

function answer(
  registration: AdmissionRegistration,
  decoded: DecodedAdmissionRequest,
  result: unknown,
  warnings: string[],
  series: WebhookSeries,
  logger: Logger,
): AdmissionResponseBody {
  const uid = decoded.uid;
  if (isAdmissionVerdict(result)) {
    const allWarnings = [...warnings, ...result.warnings];
    const withWarnings = allWarnings.length > 0 ? { warnings: allWarnings } : {};
    if (!result.allowed) {
      series.denials.inc();
      logger.debug('admission denied', { operation: decoded.operation, message: result.message });
      const status: { code: number; message?: string; reason?: string } = {
        code: result.code ?? 403,
      };
      if (result.message !== undefined) status.message = result.message;
      if (result.reason !== undefined) status.reason = result.reason;
      return { uid, allowed: false, status, ...withWarnings };
    }
    return { uid, allowed: true, ...withWarnings };
  }
  const withWarnings = warnings.length > 0 ? { warnings } : {};
  if (result === undefined || registration.type === 'validating') {
    if (result !== undefined) {
      throw new TypeError('a validating handler must return nothing, allow() or deny(...)');
    }
    return { uid, allowed: true, ...withWarnings };
  }
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    throw new TypeError('a mutating handler must return the object, nothing, allow() or deny(...)');
  }
  if (decoded.object === undefined) {
    throw new TypeError(
      `a mutating handler returned an object for a ${decoded.operation} without one`,
    );
  }
  // JSON's view of the result: undefined members dropped, Dates as strings, as the API server would store it.
  const changed = JSON.parse(JSON.stringify(result)) as JsonValue;
  const patch = createJsonPatch(decoded.object, changed);
  if (patch.length === 0) return { uid, allowed: true, ...withWarnings };
  return {
    uid,
    allowed: true,
    patchType: 'JSONPatch',
    patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
    ...withWarnings,
  };
}

function makeRequest(
  decoded: DecodedAdmissionRequest,
  object: DecodedAdmissionRequest['object'],
  signal: AbortSignal,
  warnings: string[],
): AdmissionRequest<KubeObjectLike> {
  return {
    uid: decoded.uid,
    kind: decoded.kind,
    resource: decoded.resource,
    subResource: decoded.subResource,
    requestKind: decoded.requestKind,
    requestResource: decoded.requestResource,
    requestSubResource: decoded.requestSubResource,
    name: decoded.name,
    namespace: decoded.namespace,
    operation: decoded.operation,
    userInfo: decoded.userInfo,
    object: object as KubeObjectLike | undefined,
    oldObject: decoded.oldObject as KubeObjectLike | undefined,
    dryRun: decoded.dryRun,
    options: decoded.options,
    signal,
    warn(message: string): void {
      if (typeof message !== 'string' || message === '') {
        throw new TypeError('AdmissionRequest.warn: message must be a non-empty string');
      }
      warnings.push(message);
    },
  };
}
