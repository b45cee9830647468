// Type tests: a kind named once types the client, and the built-in map agrees with kubernetes-types.
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { ConfigMap, Container, Pod } from 'kubernetes-types/core/v1.js';
import type { ClusterRole } from 'kubernetes-types/rbac/v1.js';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  BuiltinApiVersion,
  BuiltinKind,
  BuiltinKinds,
  builtinKinds,
  KindType,
} from './builtin-kinds.ts';
import type { Client } from './client.ts';
import { clientFor, clientForKind } from './client-for.ts';
import type { RestMapper } from './rest-mapper.ts';
import type { RestTransport } from './transport.ts';
import type { KubeObject, KubeObjectLike } from './types.ts';

declare const rest: RestTransport;
declare const mapper: RestMapper;

interface Widget extends KubeObject {
  apiVersion?: 'example.com/v1';
  kind?: 'Widget';
  spec?: { size?: number };
}

describe('clientFor', () => {
  it('infers the kubernetes-types object from apiVersion and kind', () => {
    expectTypeOf(clientFor(rest, { apiVersion: 'v1', kind: 'ConfigMap' })).toEqualTypeOf<
      Client<ConfigMap>
    >();
    expectTypeOf(clientFor(rest, { apiVersion: 'apps/v1', kind: 'Deployment' })).toEqualTypeOf<
      Client<Deployment>
    >();
    expectTypeOf(
      clientFor(rest, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' }),
    ).toEqualTypeOf<Client<ClusterRole>>();
  });

  it('types what the client reads', async () => {
    const pod = await clientFor(rest, { apiVersion: 'v1', kind: 'Pod' }).get('default', 'web');
    expectTypeOf(pod).toEqualTypeOf<Pod>();
    expectTypeOf(pod.spec?.containers).toEqualTypeOf<Container[] | undefined>();
  });

  it('refuses a kind its apiVersion does not serve', () => {
    // @ts-expect-error Deployment is apps/v1, not v1
    clientFor(rest, { apiVersion: 'v1', kind: 'Deployment' });
    // @ts-expect-error custom resources go through clientForKind
    clientFor(rest, { apiVersion: 'example.com/v1', kind: 'Widget' });
  });
});

describe('clientForKind', () => {
  it('infers built-in kinds without a type argument', () => {
    expectTypeOf(
      clientForKind(rest, mapper, { apiVersion: 'apps/v1', kind: 'Deployment' }),
    ).toEqualTypeOf<Promise<Client<Deployment>>>();
  });

  it('types a custom resource by its type argument, KubeObject without one', () => {
    expectTypeOf(
      clientForKind<Widget>(rest, mapper, { apiVersion: 'example.com/v1', kind: 'Widget' }),
    ).toEqualTypeOf<Promise<Client<Widget>>>();
    expectTypeOf(
      clientForKind(rest, mapper, { apiVersion: 'example.com/v1', kind: 'Widget' }),
    ).toEqualTypeOf<Promise<Client<KubeObject>>>();
  });

  it('refuses a type argument whose literal kind or apiVersion disagrees', () => {
    // @ts-expect-error Widget declares kind 'Widget'
    clientForKind<Widget>(rest, mapper, { apiVersion: 'example.com/v1', kind: 'Gadget' });
    // @ts-expect-error Pod declares apiVersion 'v1'
    clientForKind<Pod>(rest, mapper, { apiVersion: 'apps/v1', kind: 'Pod' });
  });
});

describe('KindType', () => {
  it('is the kubernetes-types interface of a built-in kind and KubeObject otherwise', () => {
    expectTypeOf<KindType<'apps/v1', 'Deployment'>>().toEqualTypeOf<Deployment>();
    expectTypeOf<KindType<'v1', 'ConfigMap'>>().toEqualTypeOf<ConfigMap>();
    expectTypeOf<KindType<'example.com/v1', 'Widget'>>().toEqualTypeOf<KubeObject>();
    expectTypeOf<KindType<'v1', 'Deployment'>>().toEqualTypeOf<KubeObject>();
  });
});

describe('BuiltinKinds', () => {
  it('maps every entry to an object whose apiVersion and kind are its keys', () => {
    type Mismatches = {
      [V in BuiltinApiVersion]: {
        [K in BuiltinKind<V>]: BuiltinKinds[V][K] extends KubeObjectLike & {
          apiVersion?: V;
          kind?: K;
        }
          ? never
          : `${V} ${K}`;
      }[BuiltinKind<V>];
    }[BuiltinApiVersion];
    expectTypeOf<Mismatches>().toBeNever();
  });

  it('has the same apiVersions and kinds as the runtime table', () => {
    type TableKinds = { [V in keyof typeof builtinKinds]: keyof (typeof builtinKinds)[V] };
    expectTypeOf<keyof typeof builtinKinds>().toEqualTypeOf<BuiltinApiVersion>();
    expectTypeOf<TableKinds['apps/v1']>().toEqualTypeOf<BuiltinKind<'apps/v1'>>();
    expectTypeOf<TableKinds['v1']>().toEqualTypeOf<BuiltinKind<'v1'>>();
  });
});
