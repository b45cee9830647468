// Decoding of admission.k8s.io/v1 AdmissionReview and apiextensions.k8s.io/v1 ConversionReview bodies into checked
// shapes, and the responses kube-apiserver expects back. Only v1: the configurations this package builds say
// `admissionReviewVersions: ['v1']` and `conversionReviewVersions: ['v1']`, so a v1beta1 review is a caller's bug.
import type { GroupVersionKind } from '@lasso/client';
import { MalformedReviewError } from './errors.ts';
import type { JsonValue } from './json-patch.ts';
import type { AdmissionOperation, AdmissionResource, AdmissionUserInfo } from './types.ts';

/** The `request` of an AdmissionReview, checked; objects are still plain JSON. */
export interface DecodedAdmissionRequest {
  readonly uid: string;
  readonly kind: GroupVersionKind;
  readonly resource: AdmissionResource;
  readonly subResource: string | undefined;
  readonly requestKind: GroupVersionKind | undefined;
  readonly requestResource: AdmissionResource | undefined;
  readonly requestSubResource: string | undefined;
  readonly name: string;
  readonly namespace: string;
  readonly operation: AdmissionOperation;
  readonly userInfo: AdmissionUserInfo;
  readonly object: { [key: string]: JsonValue } | undefined;
  readonly oldObject: { [key: string]: JsonValue } | undefined;
  readonly dryRun: boolean;
  readonly options: { [key: string]: JsonValue } | undefined;
}

/** The `request` of a ConversionReview, checked. */
export interface DecodedConversionRequest {
  readonly uid: string;
  readonly desiredAPIVersion: string;
  readonly objects: ReadonlyArray<{ [key: string]: JsonValue }>;
}

const operations = new Set<string>(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

type JsonObject = { [key: string]: JsonValue };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireObject(value: unknown, path: string): JsonObject {
  if (!isObject(value)) throw new MalformedReviewError(`${path} must be an object`);
  return value;
}

function optionalObject(value: unknown, path: string): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  return requireObject(value, path);
}

function requireString(value: unknown, path: string, allowEmpty = true): string {
  if (typeof value !== 'string' || (!allowEmpty && value === '')) {
    throw new MalformedReviewError(`${path} must be a${allowEmpty ? '' : ' non-empty'} string`);
  }
  return value;
}

function optionalString(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return requireString(value, path);
}

function groupVersionKind(value: unknown, path: string): GroupVersionKind {
  const object = requireObject(value, path);
  return {
    group: requireString(object.group ?? '', `${path}.group`),
    version: requireString(object.version, `${path}.version`, false),
    kind: requireString(object.kind, `${path}.kind`, false),
  };
}

function groupVersionResource(value: unknown, path: string): AdmissionResource {
  const object = requireObject(value, path);
  return {
    group: requireString(object.group ?? '', `${path}.group`),
    version: requireString(object.version, `${path}.version`, false),
    resource: requireString(object.resource, `${path}.resource`, false),
  };
}

function stringList(value: unknown, path: string): readonly string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new MalformedReviewError(`${path} must be an array of strings`);
  }
  return Object.freeze([...value]);
}

function userInfo(value: unknown): AdmissionUserInfo {
  const object = optionalObject(value, 'request.userInfo') ?? {};
  const extra = optionalObject(object.extra, 'request.userInfo.extra');
  const result: {
    username?: string;
    uid?: string;
    groups?: readonly string[];
    extra?: Record<string, readonly string[]>;
  } = {};
  const username = optionalString(object.username, 'request.userInfo.username');
  if (username !== undefined) result.username = username;
  const uid = optionalString(object.uid, 'request.userInfo.uid');
  if (uid !== undefined) result.uid = uid;
  const groups = stringList(object.groups, 'request.userInfo.groups');
  if (groups !== undefined) result.groups = groups;
  if (extra !== undefined) {
    result.extra = Object.fromEntries(
      Object.entries(extra).map(([key, list]) => [
        key,
        stringList(list, `request.userInfo.extra[${JSON.stringify(key)}]`) ?? [],
      ]),
    );
  }
  return Object.freeze(result);
}

function checkEnvelope(body: unknown, apiVersion: string, kind: string): JsonObject {
  const review = requireObject(body, 'the body');
  if (review.apiVersion !== apiVersion || review.kind !== kind) {
    throw new MalformedReviewError(
      `expected apiVersion ${apiVersion} and kind ${kind}, got ${JSON.stringify(review.apiVersion)} and ${JSON.stringify(review.kind)}`,
    );
  }
  return requireObject(review.request, 'request');
}

/**
 * Check a parsed body as an admission.k8s.io/v1 AdmissionReview and return its request. Throws a
 * {@link MalformedReviewError} naming the first field that is missing or of the wrong type.
 */
export function decodeAdmissionReview(body: unknown): DecodedAdmissionRequest {
  const request = checkEnvelope(body, 'admission.k8s.io/v1', 'AdmissionReview');
  const operation = requireString(request.operation, 'request.operation', false);
  if (!operations.has(operation)) {
    throw new MalformedReviewError(
      `request.operation must be CREATE, UPDATE, DELETE or CONNECT, got ${JSON.stringify(operation)}`,
    );
  }
  if (
    request.dryRun !== undefined &&
    request.dryRun !== null &&
    typeof request.dryRun !== 'boolean'
  ) {
    throw new MalformedReviewError('request.dryRun must be a boolean');
  }
  return {
    uid: requireString(request.uid, 'request.uid', false),
    kind: groupVersionKind(request.kind, 'request.kind'),
    resource: groupVersionResource(request.resource, 'request.resource'),
    subResource: optionalString(request.subResource, 'request.subResource'),
    requestKind:
      request.requestKind == null
        ? undefined
        : groupVersionKind(request.requestKind, 'request.requestKind'),
    requestResource:
      request.requestResource == null
        ? undefined
        : groupVersionResource(request.requestResource, 'request.requestResource'),
    requestSubResource: optionalString(request.requestSubResource, 'request.requestSubResource'),
    name: optionalString(request.name, 'request.name') ?? '',
    namespace: optionalString(request.namespace, 'request.namespace') ?? '',
    operation: operation as AdmissionOperation,
    userInfo: userInfo(request.userInfo),
    object: optionalObject(request.object, 'request.object'),
    oldObject: optionalObject(request.oldObject, 'request.oldObject'),
    dryRun: request.dryRun === true,
    options: optionalObject(request.options, 'request.options'),
  };
}

/**
 * Check a parsed body as an apiextensions.k8s.io/v1 ConversionReview and return its request. Throws a
 * {@link MalformedReviewError} naming the first field that is missing or of the wrong type.
 */
export function decodeConversionReview(body: unknown): DecodedConversionRequest {
  const request = checkEnvelope(body, 'apiextensions.k8s.io/v1', 'ConversionReview');
  const objects = request.objects ?? [];
  if (!Array.isArray(objects)) throw new MalformedReviewError('request.objects must be an array');
  return {
    uid: requireString(request.uid, 'request.uid', false),
    desiredAPIVersion: requireString(request.desiredAPIVersion, 'request.desiredAPIVersion', false),
    objects: objects.map((object, index) => requireObject(object, `request.objects[${index}]`)),
  };
}

/** The `response` of an AdmissionReview as kube-apiserver reads it. */
export interface AdmissionResponseBody {
  uid: string;
  allowed: boolean;
  status?: { code: number; message?: string; reason?: string };
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
}

/** Wrap `response` in the AdmissionReview envelope. */
export function admissionReviewResponse(response: AdmissionResponseBody): object {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response };
}

/** The `response` of a ConversionReview as kube-apiserver reads it. */
export interface ConversionResponseBody {
  uid: string;
  convertedObjects: JsonValue[];
  result: { status: 'Success' } | { status: 'Failure'; message: string };
}

/** Wrap `response` in the ConversionReview envelope. */
export function conversionReviewResponse(response: ConversionResponseBody): object {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response };
}
