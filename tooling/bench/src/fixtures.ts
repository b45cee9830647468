// The objects of W2, W3 and W4 (ARCHITECTURE.md section 5): ConfigMaps of about 1 KiB of data with three labels,
// and a kubeconfig for a plain-HTTP loopback server that both @lasso/client and client-node load.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The wire shape the benchmarks create and serve (a type alias: it must fit `KubeObject`'s index signature). */
export type BenchConfigMap = {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  metadata: {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    resourceVersion?: string;
    uid?: string;
    creationTimestamp?: string;
  };
  data: Record<string, string>;
};

/** Eight values of 128 characters: 1 KiB of data per object. */
const dataKeys = 8;
const valueLength = 128;

/** W2's bytes of data per ConfigMap (1 KiB); `pnpm bench:sharding --data-bytes N` sizes objects otherwise. */
export const fixtureDataBytes = dataKeys * valueLength;

/** Zero-padded so that the names sort the way they were numbered (the API server lists in key order). */
export function configMapName(index: number): string {
  return `cm-${String(index).padStart(6, '0')}`;
}

/**
 * ConfigMap number `index`: `dataBytes` (1 KiB) of data that differs per object, in eight values of equal length
 * (a larger object has larger values, the same shape), and three labels.
 */
export function benchConfigMap(
  index: number,
  namespace: string,
  dataBytes = fixtureDataBytes,
): BenchConfigMap {
  const data: Record<string, string> = {};
  const length = Math.ceil(dataBytes / dataKeys);
  const seed = `${index}-`.repeat(length);
  for (let key = 0, left = dataBytes; key < dataKeys && left > 0; key++, left -= length) {
    data[`key-${key}`] = `${key}${seed}`.slice(0, Math.min(length, left));
  }
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: configMapName(index),
      namespace,
      labels: {
        'app.kubernetes.io/name': 'bench',
        'bench.lasso.dev/shard': String(index % 16),
        'bench.lasso.dev/tier': index % 2 === 0 ? 'even' : 'odd',
      },
    },
    data,
  };
}

/** W4: the data key holding the `process.hrtime.bigint()` (ns, decimal) read just before the object's create. */
export const writtenAtKey = 'bench-written-at-ns';

/** A kubeconfig file in a fresh temp dir for `server` (bearer token); `remove()` deletes the dir. */
export async function writeKubeconfig(
  server: string,
  namespace: string,
  token: string,
): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'lasso-bench-'));
  const path = join(dir, 'kubeconfig');
  const yaml = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: bench',
    '  cluster:',
    `    server: ${server}`,
    // client-node refuses an http:// server unless TLS verification is off (there is no TLS to verify).
    '    insecure-skip-tls-verify: true',
    'users:',
    '- name: bench',
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: bench',
    '  context:',
    '    cluster: bench',
    '    user: bench',
    `    namespace: ${namespace}`,
    'current-context: bench',
    '',
  ].join('\n');
  await writeFile(path, yaml, { mode: 0o600 });
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}
