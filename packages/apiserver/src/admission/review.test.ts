import { describe, expect, it } from 'vitest';
import { buildReview, negotiateReviewVersion, readReviewAnswer } from './review.ts';

const target = {
  kind: { group: '', version: 'v1', kind: 'ConfigMap' },
  resource: { group: '', version: 'v1', resource: 'configmaps' },
  subResource: '',
};

function review(version: 'v1' | 'v1beta1' = 'v1') {
  return buildReview(version, {
    target,
    requested: target,
    name: '',
    namespace: 'team',
    operation: 'DELETE',
    userInfo: { username: 'alice', groups: [] },
    object: undefined,
    oldObject: { metadata: { name: 'x' } },
    dryRun: false,
    options: undefined,
  });
}

function answer(sent: any, response: Record<string, unknown>, version = 'v1') {
  return {
    apiVersion: `admission.k8s.io/${version}`,
    kind: 'AdmissionReview',
    response: { uid: sent.request.uid, ...response },
  };
}

describe('AdmissionReview', () => {
  it('picks the first version the server speaks', () => {
    expect(negotiateReviewVersion(['v2', 'v1beta1', 'v1'])).toBe('v1beta1');
    expect(negotiateReviewVersion(['v2'])).toBeUndefined();
    expect(negotiateReviewVersion(undefined)).toBeUndefined();
  });

  it('writes every key Go writes: absent objects and options as null, empty omitempty fields left out', () => {
    const sent = review() as any;
    expect(Object.keys(sent.request)).toEqual([
      'uid',
      'kind',
      'resource',
      'requestKind',
      'requestResource',
      'namespace',
      'operation',
      'userInfo',
      'object',
      'oldObject',
      'dryRun',
      'options',
    ]);
    expect(sent.request.object).toBeNull();
    expect(sent.request.options).toBeNull();
    expect(sent.request.userInfo).toEqual({ username: 'alice' });
    expect(review().request).not.toEqual(sent.request);
  });

  it('reads a v1 answer strictly: its uid, its kind, a JSONPatch patchType', () => {
    const sent = review() as any;
    const patch = Buffer.from('[{"op":"add","path":"/a","value":1}]').toString('base64');
    const read = readReviewAnswer(
      'v1',
      sent,
      answer(sent, { allowed: true, patchType: 'JSONPatch', patch, warnings: ['w', 3] }),
      true,
    );
    expect(read).toEqual({
      allowed: true,
      patch: [{ op: 'add', path: '/a', value: 1 }],
      status: undefined,
      warnings: ['w'],
    });
    expect(() =>
      readReviewAnswer('v1', sent, { ...answer(sent, {}), response: { uid: 'other' } }, false),
    ).toThrow('expected response.uid=');
    expect(() => readReviewAnswer('v1', sent, { response: {} }, false)).toThrow(
      'expected webhook response of admission.k8s.io/v1',
    );
    expect(() =>
      readReviewAnswer('v1', sent, answer(sent, { allowed: true, patch }), true),
    ).toThrow('patchType');
    expect(() =>
      readReviewAnswer(
        'v1',
        sent,
        answer(sent, { allowed: true, patchType: 'JSONPatch', patch }),
        false,
      ),
    ).toThrow('validating webhook may not return response.patch');
    expect(() => readReviewAnswer('v1', sent, 'text', false)).toThrow(
      'received invalid webhook response',
    );
  });

  it('reads a v1beta1 answer leniently', () => {
    const sent = review('v1beta1') as any;
    const read = readReviewAnswer('v1beta1', sent, { response: { allowed: false } }, false);
    expect(read.allowed).toBe(false);
  });
});
