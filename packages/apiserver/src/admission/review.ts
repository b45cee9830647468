// The AdmissionReview a webhook receives and what its answer means, as k8s.io/apiserver's
// admission/plugin/webhook/request/admissionreview.go builds and reads them (1.20): admission.k8s.io/v1
// or v1beta1 (the first of the webhook's admissionReviewVersions the server speaks), one uid per call.
import { randomUUID } from 'node:crypto';
import { isRecord, type Json } from '../apimachinery/objects.ts';

/** The versions of AdmissionReview this server sends, preferred first. */
export const supportedReviewVersions = ['v1', 'v1beta1'] as const;

/** The first of a webhook's admissionReviewVersions this server speaks; undefined: none. */
export function negotiateReviewVersion(versions: unknown): 'v1' | 'v1beta1' | undefined {
  if (!Array.isArray(versions)) return undefined;
  for (const version of versions) {
    if (version === 'v1' || version === 'v1beta1') return version;
  }
  return undefined;
}

/** group/version/kind and group/version/resource as the review writes them. */
export interface ReviewTarget {
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource: string;
}

/** The facts of one call, everything but the uid. */
export interface ReviewFacts {
  /** The version the webhook matched (an equivalent one under matchPolicy Equivalent). */
  target: ReviewTarget;
  /** The version the request was sent in. */
  requested: ReviewTarget;
  name: string;
  namespace: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  userInfo: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  object: Json | undefined;
  oldObject: Json | undefined;
  dryRun: boolean;
  options: Json | undefined;
}

/** The AdmissionReview to send, in Go's key order; empty omitempty fields left out. */
export function buildReview(version: 'v1' | 'v1beta1', facts: ReviewFacts): Json {
  const user: Json = { username: facts.userInfo.username };
  if (facts.userInfo.uid !== undefined && facts.userInfo.uid !== '') user.uid = facts.userInfo.uid;
  if (facts.userInfo.groups !== undefined && facts.userInfo.groups.length > 0) {
    user.groups = facts.userInfo.groups;
  }
  if (facts.userInfo.extra !== undefined && Object.keys(facts.userInfo.extra).length > 0) {
    user.extra = facts.userInfo.extra;
  }
  const request: Json = {
    uid: randomUUID(),
    kind: facts.target.kind,
    resource: facts.target.resource,
  };
  if (facts.target.subResource !== '') request.subResource = facts.target.subResource;
  request.requestKind = facts.requested.kind;
  request.requestResource = facts.requested.resource;
  if (facts.requested.subResource !== '') request.requestSubResource = facts.requested.subResource;
  if (facts.name !== '') request.name = facts.name;
  if (facts.namespace !== '') request.namespace = facts.namespace;
  request.operation = facts.operation;
  request.userInfo = user;
  // runtime.RawExtension marshals an absent object as null: the keys are always there.
  request.object = facts.object ?? null;
  request.oldObject = facts.oldObject ?? null;
  request.dryRun = facts.dryRun;
  request.options = facts.options ?? null;
  return { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request };
}

/** What a webhook answered, checked. */
export interface ReviewAnswer {
  allowed: boolean;
  /** The JSON Patch operations of a mutating webhook (undefined: no change). */
  patch: unknown[] | undefined;
  status: Json | undefined;
  warnings: string[];
}

/** Read a webhook's answer; throws an Error with kube's wording when it is not a valid review. */
export function readReviewAnswer(
  version: 'v1' | 'v1beta1',
  review: Json,
  body: unknown,
  mutating: boolean,
): ReviewAnswer {
  if (!isRecord(body)) throw new Error('received invalid webhook response: not a JSON object');
  if (version === 'v1') {
    // v1 responses must name themselves exactly (VerifyAdmissionResponse).
    if (body.apiVersion !== 'admission.k8s.io/v1' || body.kind !== 'AdmissionReview') {
      throw new Error(
        `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${String(body.apiVersion ?? '')}, Kind=${String(body.kind ?? '')}`,
      );
    }
  }
  const response = body.response;
  if (!isRecord(response)) throw new Error('webhook response was absent');
  const sentUid = isRecord(review.request) ? review.request.uid : undefined;
  if (version === 'v1' && response.uid !== sentUid) {
    throw new Error(
      `expected response.uid=${JSON.stringify(sentUid)}, got ${JSON.stringify(response.uid ?? '')}`,
    );
  }
  const allowed = response.allowed === true;
  let patch: unknown[] | undefined;
  if (response.patch !== undefined && response.patch !== null && response.patch !== '') {
    if (!mutating) {
      // A validating webhook's patch is ignored by v1beta1 and refused by v1.
      if (version === 'v1') throw new Error('validating webhook may not return response.patch');
    } else {
      if (version === 'v1' && response.patchType !== 'JSONPatch') {
        throw new Error(
          `webhook returned response.patch but not response.patchType (expected JSONPatch)`,
        );
      }
      const decoded = Buffer.from(String(response.patch), 'base64').toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(decoded);
      } catch {
        throw new Error('received invalid webhook response: the patch is not JSON');
      }
      if (!Array.isArray(parsed)) {
        throw new Error('received invalid webhook response: the patch is not a JSON Patch array');
      }
      patch = parsed;
    }
  } else if (version === 'v1' && response.patchType !== undefined && response.patchType !== null) {
    throw new Error('webhook returned response.patchType but not response.patch');
  }
  const warnings = Array.isArray(response.warnings)
    ? response.warnings.filter((warning): warning is string => typeof warning === 'string')
    : [];
  return {
    allowed,
    patch,
    status: isRecord(response.status) ? response.status : undefined,
    warnings,
  };
}
