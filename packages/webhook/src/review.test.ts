import { describe, expect, it } from 'vitest';
import { admissionReview } from './__fixtures__/https-client.ts';
import { MalformedReviewError } from './errors.ts';
import { decodeAdmissionReview, decodeConversionReview } from './review.ts';

describe('decodeAdmissionReview', () => {
  it('decodes every field of a v1 review as kube-apiserver sends it', () => {
    const request = decodeAdmissionReview(
      admissionReview({
        subResource: 'status',
        requestSubResource: 'status',
        operation: 'UPDATE',
        dryRun: true,
        userInfo: { username: 'jane', groups: ['dev'], extra: { scopes: ['a', 'b'] } },
        oldObject: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } },
      }),
    );
    expect(request).toMatchObject({
      uid: '7b7a6a36-1b79-4f6c-9a3b-4c4e3f1f0c11',
      kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
      resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      subResource: 'status',
      requestSubResource: 'status',
      name: 'w',
      namespace: 'default',
      operation: 'UPDATE',
      dryRun: true,
      userInfo: { username: 'jane', groups: ['dev'], extra: { scopes: ['a', 'b'] } },
      oldObject: { metadata: { name: 'w' } },
      options: { kind: 'CreateOptions' },
    });
  });

  it('takes a missing group as the core group and missing optional fields as empty', () => {
    const request = decodeAdmissionReview({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'u',
        kind: { version: 'v1', kind: 'ConfigMap' },
        resource: { version: 'v1', resource: 'configmaps' },
        operation: 'DELETE',
        userInfo: {},
        oldObject: { metadata: { name: 'c' } },
      },
    });
    expect(request).toMatchObject({
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      name: '',
      namespace: '',
      object: undefined,
      requestKind: undefined,
      dryRun: false,
      userInfo: {},
    });
  });

  it.for([
    { name: 'not an object', body: 'text', message: 'the body must be an object' },
    {
      name: 'v1beta1',
      body: { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview' },
      message: /expected apiVersion admission.k8s.io\/v1/,
    },
    {
      name: 'no request',
      body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' },
      message: 'request must be an object',
    },
    {
      name: 'an empty uid',
      body: admissionReview({ uid: '' }),
      message: 'request.uid must be a non-empty string',
    },
    {
      name: 'an unknown operation',
      body: admissionReview({ operation: 'PATCH' }),
      message: /request.operation must be CREATE/,
    },
    {
      name: 'a kind without a version',
      body: admissionReview({ kind: { kind: 'Widget' } }),
      message: 'request.kind.version must be a non-empty string',
    },
    {
      name: 'an object that is an array',
      body: admissionReview({ object: [] }),
      message: 'request.object must be an object',
    },
    {
      name: 'a string dryRun',
      body: admissionReview({ dryRun: 'true' }),
      message: 'request.dryRun must be a boolean',
    },
    {
      name: 'groups that are not strings',
      body: admissionReview({ userInfo: { groups: [1] } }),
      message: 'request.userInfo.groups must be an array of strings',
    },
  ])('throws MalformedReviewError for $name', ({ body, message }) => {
    let thrown: unknown;
    try {
      decodeAdmissionReview(body);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(MalformedReviewError);
    expect((thrown as Error).message).toMatch(message);
  });
});

describe('decodeConversionReview', () => {
  it('decodes the uid, desired version and objects', () => {
    expect(
      decodeConversionReview({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { uid: 'c', desiredAPIVersion: 'example.com/v2', objects: [{ kind: 'Widget' }] },
      }),
    ).toEqual({ uid: 'c', desiredAPIVersion: 'example.com/v2', objects: [{ kind: 'Widget' }] });
  });

  it.for([
    {
      name: 'an AdmissionReview',
      body: admissionReview({}),
      message: /expected apiVersion apiextensions.k8s.io\/v1/,
    },
    {
      name: 'objects that are not an array',
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { uid: 'c', desiredAPIVersion: 'v2', objects: {} },
      },
      message: 'request.objects must be an array',
    },
    {
      name: 'no desiredAPIVersion',
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { uid: 'c', objects: [] },
      },
      message: 'request.desiredAPIVersion must be a non-empty string',
    },
  ])('throws MalformedReviewError for $name', ({ body, message }) => {
    expect(() => decodeConversionReview(body)).toThrow(message);
  });
});
