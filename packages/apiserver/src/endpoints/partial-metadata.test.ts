import { describe, expect, it } from 'vitest';
import { StatusError } from '../apimachinery/status.ts';
import type { ApiRequest } from '../registry/server-context.ts';
import { builtinResources } from '../resources/builtin-resources.ts';
import { metadataOfList, metadataOfObject, metadataTarget } from './partial-metadata.ts';

function requestAccepting(accept: string): ApiRequest {
  return {
    method: 'GET',
    url: new URL('https://127.0.0.1/api/v1/configmaps'),
    headers: { accept },
    body: Buffer.alloc(0),
    user: { name: 'admin', groups: [] },
  };
}

const configMaps = builtinResources().find((info) => info.resource === 'configmaps')!;
const deployments = builtinResources().find((info) => info.resource === 'deployments')!;

describe('metadataTarget', () => {
  it.for([
    ['application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1', 'PartialObjectMetadata', 'v1'],
    [
      'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1',
      'PartialObjectMetadataList',
      'v1beta1',
    ],
    [
      'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
      'PartialObjectMetadataList',
      'v1',
    ],
    [
      'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2, application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
      'PartialObjectMetadata',
      'v1',
    ],
  ] as const)('reads %s', ([accept, kind, version]) => {
    expect(metadataTarget(requestAccepting(accept))).toEqual({ kind, version });
  });

  it.for([
    'application/json',
    'application/json, application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
    'application/json;as=Table;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
    'application/json;as=PartialObjectMetadata;g=example.com;v=v1',
    'text/plain;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
    '',
  ])('leaves %j to the plain or Table negotiation', (accept) => {
    expect(metadataTarget(requestAccepting(accept))).toBeUndefined();
  });
});

describe('metadata answers', () => {
  const object = {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name: 'a', uid: 'u' },
    data: { k: 'v' },
  };

  it('keeps metadata alone, in kube key order', () => {
    const answer = metadataOfObject(
      configMaps,
      { kind: 'PartialObjectMetadata', version: 'v1' },
      object,
    );
    expect(answer).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: object.metadata,
    });
    expect(Object.keys(answer)).toEqual(['kind', 'apiVersion', 'metadata']);
  });

  it('names the Go type in the 406 of the wrong form', () => {
    const list = {
      kind: 'DeploymentList',
      apiVersion: 'apps/v1',
      metadata: { resourceVersion: '5' },
      items: [],
    };
    const wrong = (): unknown =>
      metadataOfList(deployments, { kind: 'PartialObjectMetadata', version: 'v1' }, list);
    expect(wrong).toThrow(StatusError);
    expect(wrong).toThrow(
      'you requested PartialObjectMetadata, but the requested object is a list (*apps.DeploymentList)',
    );
    expect(() =>
      metadataOfObject(configMaps, { kind: 'PartialObjectMetadataList', version: 'v1' }, object),
    ).toThrow(
      'you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)',
    );
  });

  it('keeps the list metadata and gives each item its kind and apiVersion', () => {
    const list = {
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '7', continue: 'c' },
      items: [object],
    };
    expect(
      metadataOfList(configMaps, { kind: 'PartialObjectMetadataList', version: 'v1beta1' }, list),
    ).toEqual({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1beta1',
      metadata: { resourceVersion: '7', continue: 'c' },
      items: [
        {
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1beta1',
          metadata: object.metadata,
        },
      ],
    });
  });
});
