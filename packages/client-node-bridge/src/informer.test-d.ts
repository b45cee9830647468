// The bridge's structural types against client-node's own: an informer of the bridge is one of client-node's.
import type * as k8s from '@kubernetes/client-node';
import { expectTypeOf, test } from 'vitest';
import { type ClientNodeInformer, type KubeConfigLike, makeInformer } from './index.ts';

test("a bridge informer is client-node's Informer and ObjectCache", () => {
  expectTypeOf<ClientNodeInformer<k8s.V1Pod>>().toExtend<k8s.Informer<k8s.V1Pod>>();
  expectTypeOf<ClientNodeInformer<k8s.V1Pod>>().toExtend<k8s.ObjectCache<k8s.V1Pod>>();
  expectTypeOf<k8s.KubeConfig>().toExtend<KubeConfigLike>();
});

test("the object type comes from listFn, as with client-node's makeInformer", () => {
  const kc = {} as k8s.KubeConfig;
  const api = {} as k8s.CoreV1Api;
  const informer = makeInformer(kc, '/api/v1/namespaces/default/pods', () =>
    api.listNamespacedPod({ namespace: 'default' }),
  );
  expectTypeOf(informer).toEqualTypeOf<ClientNodeInformer<k8s.V1Pod>>();
  // @ts-expect-error: client-node's verbs only
  informer.on('modified', () => {});
});
