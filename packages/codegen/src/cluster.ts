// The CRDs a cluster serves: one paged list of apiextensions.k8s.io/v1 customresourcedefinitions.
import { Client, type KubeObject, type RestConfig, type RestTransport } from '@lasso/client';
import type { SourcedCrd } from './crd.ts';

/**
 * Options of {@link listClusterCrds}.
 *
 * @example
 * ```ts
 * const rest = await loadKubeConfig({ path: '/home/me/.kube/config' });
 * const options: ListClusterCrdsOptions = { signal: AbortSignal.timeout(30_000) };
 * const crds = await listClusterCrds(rest, options);
 * ```
 */
export interface ListClusterCrdsOptions {
  /** Stops the list. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The CRDs the cluster of `rest` serves, in name order, each with source `cluster: <crd name>` for errors.
 * Needs `list` on `customresourcedefinitions.apiextensions.k8s.io`. Errors of the list (an `ApiError`, a
 * transport error) are thrown as they come.
 *
 * @example
 * ```ts
 * const rest = await loadKubeConfig({ path: '/home/me/.kube/config' });
 * const files = generateTypes(await listClusterCrds(rest), { groups: ['cert-manager.io'] });
 * ```
 */
export async function listClusterCrds(
  rest: RestConfig | RestTransport,
  options: ListClusterCrdsOptions = {},
): Promise<SourcedCrd[]> {
  const client = new Client<KubeObject>({
    gvr: { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' },
    kind: 'CustomResourceDefinition',
    namespaced: false,
    rest,
  });
  const out: SourcedCrd[] = [];
  for await (const crd of client.listAll(
    undefined,
    options.signal ? { signal: options.signal } : {},
  )) {
    out.push({ source: `cluster: ${crd.metadata?.name ?? '(unnamed)'}`, crd });
  }
  return out.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
}
