// The recorded bodies kubectl 1.32 sends for `kubectl create ...` (application/vnd.kubernetes.protobuf),
// decoded and compared with `kubectl create ... --dry-run=client -o json` of the same command: the JSON a
// JSON client would have sent. Recorded through a proxy in front of kube-apiserver; see __fixtures__/README.md.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeProtobufObject } from './decode-protobuf-object.ts';

const directory = new URL('./__fixtures__/', import.meta.url);
const recorded = readdirSync(directory)
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.slice(0, -'.json'.length))
  .sort();

function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`${name}.pb`, directory)));
}

describe('decodeProtobufObject() on kubectl 1.32 bodies', () => {
  it('has a recording for every kind kubectl create generates', () => {
    expect(recorded).toEqual(
      expect.arrayContaining([
        'configmap',
        'secret-generic',
        'secret-tls',
        'secret-docker-registry',
        'deployment',
        'job',
        'cronjob',
        'service-clusterip',
        'service-nodeport',
        'service-loadbalancer',
        'service-externalname',
        'serviceaccount',
        'namespace',
        'role',
        'rolebinding',
        'clusterrole',
        'clusterrolebinding',
        'quota',
        'priorityclass',
        'poddisruptionbudget',
        'ingress',
      ]),
    );
  });

  it.for(recorded)('decodes `kubectl create` %s into its --dry-run=client JSON', (name) => {
    const expected = JSON.parse(readFileSync(new URL(`${name}.json`, directory), 'utf8'));
    expect(decodeProtobufObject(fixture(name))).toStrictEqual(expected);
  });

  it('decodes the TokenRequest of `kubectl create token` (which has no --dry-run)', () => {
    expect(decodeProtobufObject(fixture('token'))).toStrictEqual({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { creationTimestamp: null },
      spec: {
        audiences: ['api'],
        expirationSeconds: 600,
        boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's1' },
      },
      status: { token: '', expirationTimestamp: null },
    });
  });
});
