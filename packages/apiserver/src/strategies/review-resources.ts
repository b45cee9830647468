// The access reviews as create-only resources of the API handler: one table entry each, answered by
// reviews.ts from the RBAC objects in the store and never stored.

import { decodeObject, fieldManagerOf } from '../decoding/decode.ts';
import { recordManagedFields } from '../patch/patch-request.ts';
import { Authorizer } from '../rbac/authorizer.ts';
import { answerReview, type ReviewResource, reviewKinds } from '../rbac/reviews.ts';
import type { ApiRequest, ApiResult, ServerContext } from '../registry/server-context.ts';
import type { ResourceRequestInfo } from '../request/request-info.ts';
import type { CreateOnlyResource } from './create-only.ts';

function createReview(resource: ReviewResource): CreateOnlyResource['create'] {
  return (context: ServerContext, request: ResourceRequestInfo, raw: ApiRequest): ApiResult => {
    const answer = answerReview({
      resource,
      body: decodeObject(context, request.info, raw),
      caller: raw.user,
      namespace: request.namespace ?? '',
      authorizer: new Authorizer(context.store),
    });
    // kube-apiserver records managedFields on what a create answers, stored or not.
    const body = recordManagedFields(undefined, answer, {
      fieldManager: fieldManagerOf(raw),
      time: context.now(),
      info: request.info,
    });
    return { type: 'json', code: 201, body };
  };
}

/**
 * SelfSubjectReview (authentication.k8s.io, `kubectl auth whoami`): the caller as the server
 * authenticated it, stamped now as kube's REST storage does.
 */
function createSelfSubjectReview(
  context: ServerContext,
  request: ResourceRequestInfo,
  raw: ApiRequest,
): ApiResult {
  // The request carries nothing the answer reads (a SelfSubjectReview has no spec), and kubectl sends
  // it as protobuf, which the type table does not describe: the body is not decoded.
  const answer = {
    kind: 'SelfSubjectReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { creationTimestamp: context.now() },
    status: { userInfo: { username: raw.user.name, groups: raw.user.groups } },
  };
  const body = recordManagedFields(undefined, answer, {
    fieldManager: fieldManagerOf(raw),
    time: context.now(),
    info: request.info,
  });
  return { type: 'json', code: 201, body };
}

/**
 * SelfSubjectAccessReview, SelfSubjectRulesReview, SubjectAccessReview, LocalSubjectAccessReview, and
 * authentication's SelfSubjectReview.
 */
export const reviewResources: CreateOnlyResource[] = [
  ...(Object.keys(reviewKinds) as ReviewResource[]).map((resource) => ({
    group: 'authorization.k8s.io',
    resource,
    subresource: undefined,
    create: createReview(resource),
  })),
  {
    group: 'authentication.k8s.io',
    resource: 'selfsubjectreviews',
    subresource: undefined,
    create: createSelfSubjectReview,
  },
];
