// Built-in type definitions of coordination.k8s.io/v1 (k8s.io/api): the Lease leader election runs on.
// Field numbers and JSON names follow the published generated.proto and Go struct tags of the API; the protobuf
// body decoder and the OpenAPI publisher both read this table.
import type { TypeDefinition } from './type-definition.ts';

/** The coordination-v1 types, top-level kinds first. */
export const coordinationV1Types: readonly TypeDefinition[] = [
  {
    name: 'io.k8s.api.coordination.v1.Lease',
    description: 'A lease: who holds it, for how long, and since when.',
    gvk: { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' },
    fields: [
      {
        json: 'metadata',
        number: 1,
        type: { message: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      },
      { json: 'spec', number: 2, type: { message: 'io.k8s.api.coordination.v1.LeaseSpec' } },
    ],
  },
  {
    name: 'io.k8s.api.coordination.v1.LeaseSpec',
    description: 'The holder of a lease and its timing.',
    fields: [
      {
        json: 'holderIdentity',
        number: 1,
        type: 'string',
        keepZero: true,
        description: 'The identity of the current holder.',
      },
      {
        json: 'leaseDurationSeconds',
        number: 2,
        type: 'int32',
        keepZero: true,
        description:
          'How long candidates wait, from the last renewTime, before they may take the lease.',
      },
      {
        json: 'acquireTime',
        number: 3,
        type: 'microTime',
        keepZero: true,
        description: 'When the current holder acquired the lease.',
      },
      {
        json: 'renewTime',
        number: 4,
        type: 'microTime',
        keepZero: true,
        description: 'When the current holder last renewed the lease.',
      },
      {
        json: 'leaseTransitions',
        number: 5,
        type: 'int32',
        keepZero: true,
        description: 'How many times the lease changed holders.',
      },
      {
        json: 'strategy',
        number: 6,
        type: 'string',
        keepZero: true,
        description: 'The strategy of coordinated leader election, if any.',
      },
      {
        json: 'preferredHolder',
        number: 7,
        type: 'string',
        keepZero: true,
        description: 'A holder the current one should hand the lease to.',
      },
    ],
  },
];
