// The authorization.k8s.io/v1 review kinds, create-only and never stored (pkg/registry/authorization):
// SelfSubjectAccessReview and SelfSubjectRulesReview ask about the caller (what `kubectl auth can-i` sends),
// SubjectAccessReview and LocalSubjectAccessReview about any user. The answer is the request with a status.

import { isRecord } from '../apimachinery/objects.ts';
import { badRequest, invalid } from '../apimachinery/status.ts';
import type { UserInfo } from '../authentication/authenticate.ts';
import type { KubeObject } from '../storage/store.ts';
import type { AuthorizationAttributes } from './attributes.ts';
import type { Authorizer } from './authorizer.ts';

/** The four review kinds, by resource name. */
export const reviewKinds = {
  selfsubjectaccessreviews: 'SelfSubjectAccessReview',
  selfsubjectrulesreviews: 'SelfSubjectRulesReview',
  subjectaccessreviews: 'SubjectAccessReview',
  localsubjectaccessreviews: 'LocalSubjectAccessReview',
} as const;

/** A review resource of authorization.k8s.io. */
export type ReviewResource = keyof typeof reviewKinds;

const group = 'authorization.k8s.io';
const apiVersion = `${group}/v1`;

type Json = Record<string, unknown>;

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Go's %#v of the internal authorization.NonResourceAttributes, which kube prints as the invalid value. */
function goNonResource(value: Json): string {
  return `authorization.NonResourceAttributes{Path:${JSON.stringify(text(value.path))}, Verb:${JSON.stringify(text(value.verb))}}`;
}

function specAttributes(spec: Json): { resource?: Json; nonResource?: Json } {
  return {
    ...(isRecord(spec.resourceAttributes) ? { resource: spec.resourceAttributes } : {}),
    ...(isRecord(spec.nonResourceAttributes) ? { nonResource: spec.nonResourceAttributes } : {}),
  };
}

type Cause = { type: string; message: string; field: string };

function validateAttributes(spec: Json): Cause[] {
  const { resource, nonResource } = specAttributes(spec);
  if (resource !== undefined && nonResource !== undefined) {
    return [
      {
        type: 'FieldValueInvalid',
        field: 'spec.nonResourceAttributes',
        message: `Invalid value: ${goNonResource(nonResource)}: cannot be specified in combination with resourceAttributes`,
      },
    ];
  }
  if (resource === undefined && nonResource === undefined) {
    return [
      {
        type: 'FieldValueInvalid',
        field: 'spec.resourceAttributes',
        message:
          'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
      },
    ];
  }
  return [];
}

function attributesFor(user: UserInfo, spec: Json): AuthorizationAttributes {
  const { resource, nonResource } = specAttributes(spec);
  if (resource !== undefined) {
    return {
      user,
      verb: text(resource.verb),
      group: text(resource.group),
      // matchAllVersionIfEmpty
      version: text(resource.version) === '' ? '*' : text(resource.version),
      resource: text(resource.resource),
      subresource: text(resource.subresource),
      namespace: text(resource.namespace),
      name: text(resource.name),
    };
  }
  return { user, verb: text(nonResource?.verb), path: text(nonResource?.path) };
}

/**
 * Answer a review POSTed to `resource` (in `namespace` for a LocalSubjectAccessReview) by `caller`.
 * Throws 422 for an invalid spec and 400 for a rules review without a namespace, as kube does.
 */
export function answerReview(options: {
  resource: ReviewResource;
  body: unknown;
  caller: UserInfo;
  namespace: string;
  authorizer: Authorizer;
}): KubeObject {
  const { resource, caller, namespace, authorizer } = options;
  const kind = reviewKinds[resource];
  const body = isRecord(options.body) ? options.body : {};
  const spec = isRecord(body.spec) ? body.spec : {};
  const metadata: Json = {
    ...(isRecord(body.metadata) ? body.metadata : {}),
    creationTimestamp: null,
  };
  if (resource === 'selfsubjectrulesreviews') {
    const reviewNamespace = text(spec.namespace);
    if (reviewNamespace === '') throw badRequest('no namespace on request');
    const rules = authorizer.rulesFor(caller, reviewNamespace);
    return {
      kind,
      apiVersion,
      metadata: { creationTimestamp: null },
      spec: {},
      status: rules,
    };
  }
  const causes = validateAttributes(spec);
  let subject = caller;
  if (resource === 'subjectaccessreviews' || resource === 'localsubjectaccessreviews') {
    const user = text(spec.user);
    const groups = Array.isArray(spec.groups)
      ? spec.groups.filter((item): item is string => typeof item === 'string')
      : [];
    if (user === '' && groups.length === 0) {
      causes.push({
        type: 'FieldValueInvalid',
        field: 'spec.user',
        message: 'Invalid value: "": at least one of user or group must be specified',
      });
    }
    subject = { name: user, groups };
  }
  if (resource === 'localsubjectaccessreviews') {
    const given = text(metadata.namespace);
    if (given !== '' && given !== namespace) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    const { resource: attributes, nonResource } = specAttributes(spec);
    if (attributes !== undefined && text(attributes.namespace) !== namespace) {
      causes.push({
        type: 'FieldValueInvalid',
        field: 'spec.resourceAttributes.namespace',
        message: `Invalid value: ${JSON.stringify(text(attributes.namespace))}: must match metadata.namespace`,
      });
    }
    if (nonResource !== undefined) {
      causes.push({
        type: 'FieldValueInvalid',
        field: 'spec.nonResourceAttributes',
        message: `Invalid value: ${goNonResource(nonResource)}: disallowed on this kind of request`,
      });
    }
    metadata.namespace = namespace;
  }
  if (causes.length > 0) {
    // kube names the kind from the decoded internal object, whose TypeMeta is empty by then:
    // `.authorization.k8s.io "" is invalid: ...` without a kind in the details.
    const error = invalid({ group, kind: '' }, '', causes);
    delete error.status.details?.kind;
    throw error;
  }
  const decision = authorizer.authorize(attributesFor(subject, spec));
  const status: Json = { allowed: decision.allowed };
  if (decision.reason !== '') status.reason = decision.reason;
  return { kind, apiVersion, metadata, spec, status };
}
