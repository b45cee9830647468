// A @lasso/client `Client` of ConfigMaps, and seeding a namespace with the W2 fixture through it: the setup of W2,
// W4's writer, failover and the metadata-cache measurement. The contenders (contenders.ts) build their own
// client inside their timed start, from this build's `Client` or a baseline's.
import {
  Client,
  type KubeObject,
  type KubeObjectLike,
  type RestConfig,
  type RestTransport,
} from '@lasso/client';
import { benchConfigMap } from './fixtures.ts';

/** A client of the ConfigMaps (core/v1, namespaced) of the server of `rest` (a transport stays its creator's). */
export function configMapClient<T extends KubeObjectLike = KubeObject>(
  rest: RestConfig | RestTransport,
): Client<T> {
  return new Client<T>({
    gvr: { group: '', version: 'v1', resource: 'configmaps' },
    kind: 'ConfigMap',
    namespaced: true,
    rest,
  });
}

/**
 * Create the fixture's ConfigMaps 0 to `objects` - 1 in `namespace` through `client`, `parallel` in flight, each
 * with `dataBytes` of data (the fixture's 1 KiB by default).
 */
export async function seedConfigMaps(
  client: Client,
  namespace: string,
  objects: number,
  parallel: number,
  dataBytes?: number,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < objects) {
      const index = next++;
      await client.create(namespace, benchConfigMap(index, namespace, dataBytes));
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}
