// The Icecream CRD's schema (manifests/crd.yaml) as the API server enforces it: an invalid spec is refused
// with 422 Invalid before any operator sees it.
import { ApiError, isInvalid } from '@lasso/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Icecream } from '../src/generated/index.ts';
import { startCluster, type TestCluster } from './helpers.ts';

let cluster: TestCluster;
let namespace: string;

beforeAll(async () => {
  cluster = await startCluster();
  namespace = await cluster.namespace('validation');
});

afterAll(async () => {
  await cluster?.stop();
});

const valid = { flavor: 'vanilla', deploymentName: 'vanilla-scoops', replicas: 2 };

describe('Icecream CRD', () => {
  it.for([
    { name: 'negative replicas', spec: { ...valid, replicas: -1 }, field: 'spec.replicas' },
    { name: 'more than 100 replicas', spec: { ...valid, replicas: 101 }, field: 'spec.replicas' },
    { name: 'fractional replicas', spec: { ...valid, replicas: 1.5 }, field: 'spec.replicas' },
    {
      name: 'a missing deploymentName',
      spec: { flavor: 'vanilla', replicas: 2 },
      field: 'spec.deploymentName',
    },
    {
      name: 'a deploymentName that is not a DNS name',
      spec: { ...valid, deploymentName: 'Vanilla_Scoops' },
      field: 'spec.deploymentName',
    },
    {
      // Its ReplicaSets would be named <deploymentName>-<pod-template-hash>, over 253 characters.
      name: 'a deploymentName longer than 242 characters',
      spec: { ...valid, deploymentName: 'd'.repeat(243) },
      field: 'spec.deploymentName',
    },
    { name: 'an empty flavor', spec: { ...valid, flavor: '' }, field: 'spec.flavor' },
    { name: 'a missing spec', spec: undefined, field: 'spec' },
  ])('refuses $name with 422 Invalid', async ({ name, spec, field }, { expect }) => {
    const object = {
      apiVersion: 'example.lasso.dev/v1',
      kind: 'Icecream',
      metadata: { name: name.replace(/[^a-z0-9]+/g, '-'), namespace },
      ...(spec === undefined ? {} : { spec }),
    } as Icecream;
    const error = await cluster.icecreams.create(namespace, object).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(isInvalid(error)).toBe(true);
    expect((error as ApiError).status).toBe(422);
    expect((error as ApiError).message).toContain(field);
  });

  it('accepts a valid spec, 0 and 100 replicas included', async () => {
    for (const replicas of [0, 100]) {
      const created = await cluster.icecreams.create(namespace, {
        apiVersion: 'example.lasso.dev/v1',
        kind: 'Icecream',
        metadata: { name: `valid-${replicas}`, namespace },
        spec: { ...valid, replicas },
      });
      expect(created.spec?.replicas).toBe(replicas);
    }
  });

  it('refuses an update to negative replicas with 422 Invalid', async () => {
    await cluster.icecreams.create(namespace, {
      apiVersion: 'example.lasso.dev/v1',
      kind: 'Icecream',
      metadata: { name: 'scaled', namespace },
      spec: valid,
    });
    const error = await cluster.icecreams
      .patch(namespace, 'scaled', 'merge', { spec: { replicas: -1 } })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(isInvalid(error)).toBe(true);
    expect((await cluster.icecreams.get(namespace, 'scaled')).spec?.replicas).toBe(2);
  });
});
