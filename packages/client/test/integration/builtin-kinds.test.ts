// The built-in kind table against a real discovery answer, and clients named by apiVersion + kind.
import { type Environment, startEnvironment } from '@lasso/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  builtinKinds,
  Client,
  clientFor,
  clientForKind,
  createRestMapper,
  DiscoveryClient,
  type DiscoveryResult,
  loadKubeConfig,
  RestTransport,
} from '../../src/index.ts';

let env: Environment;
let rest: RestTransport;
let discovery: DiscoveryResult;
let serverMinor: number;

// Kinds of the table that joined a group version after that group version itself, with the minor release of
// kube-apiserver that first served them: an older server serves the group version without them.
const introducedIn: Record<string, number> = {
  'batch/v1 CronJob': 21,
  'storage.k8s.io/v1 CSIStorageCapacity': 24,
  'authentication.k8s.io/v1 SelfSubjectReview': 28,
  'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy': 30,
  'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding': 30,
};

beforeAll(async () => {
  env = await startEnvironment({ namespace: true });
  rest = new RestTransport(await loadKubeConfig({ path: env.kubeconfigPath }));
  discovery = await new DiscoveryClient(rest).discover();
  const version = await rest.requestJson<{ minor?: string }>({ method: 'GET', path: '/version' });
  serverMinor = Number.parseInt(version.minor ?? '', 10);
});

afterAll(async () => {
  await rest?.close();
  await env?.stop();
});

describe('builtinKinds (integration)', () => {
  it('agrees with the server on the resource and scope of every entry it serves', () => {
    const served = new Map(
      discovery.resources
        .filter((r) => !r.name.includes('/'))
        .map((r) => [`${r.group ? `${r.group}/` : ''}${r.version} ${r.kind}`, r]),
    );
    const servedGroupVersions = new Set(discovery.resources.map((r) => `${r.group}/${r.version}`));
    const compared: string[] = [];
    const disagreements: string[] = [];
    const missing: string[] = [];
    for (const [apiVersion, kinds] of Object.entries(builtinKinds)) {
      for (const [kind, entry] of Object.entries(kinds)) {
        const onServer = served.get(`${apiVersion} ${kind}`);
        if (onServer === undefined) {
          const groupVersion = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
          const since = introducedIn[`${apiVersion} ${kind}`] ?? 0;
          if (servedGroupVersions.has(groupVersion) && !(serverMinor < since)) {
            missing.push(`${apiVersion} ${kind}`);
          }
          continue;
        }
        compared.push(`${apiVersion} ${kind}`);
        if (onServer.name !== entry.resource || onServer.namespaced !== entry.namespaced) {
          disagreements.push(
            `${apiVersion} ${kind}: table ${entry.resource} namespaced=${entry.namespaced}, server ${onServer.name} namespaced=${onServer.namespaced}`,
          );
        }
      }
    }
    expect(disagreements).toEqual([]);
    // The built-in server serves a subset of the kinds; a real kube-apiserver serves every kind of
    // the group versions it has (an older one may lack a whole group version, or the kinds in
    // introducedIn that came later).
    if (env.mode === 'builtin') {
      expect(compared).toEqual(
        expect.arrayContaining([
          'v1 ConfigMap',
          'v1 Namespace',
          'apps/v1 Deployment',
          'coordination.k8s.io/v1 Lease',
        ]),
      );
    } else {
      expect(missing).toEqual([]);
    }
  });
});

describe('clientFor (integration)', () => {
  it('creates and lists a built-in kind named by apiVersion + kind', async () => {
    const configMaps = clientFor(rest, { apiVersion: 'v1', kind: 'ConfigMap' });
    await configMaps.create(env.namespace, { metadata: { name: 'named-once' }, data: { a: '1' } });
    const list = await configMaps.list(env.namespace);
    expect(list.items.map((cm) => [cm.kind, cm.metadata?.name, cm.data])).toContainEqual([
      'ConfigMap',
      'named-once',
      { a: '1' },
    ]);
  });
});

describe('clientForKind (integration)', () => {
  it('resolves a CRD through discovery, and verify() refuses a hand-written scope that disagrees', async () => {
    const group = `kinds-${Date.now().toString(36)}.lasso.dev`;
    const crds = clientFor(rest, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
    });
    const crd = await crds.create(undefined, {
      metadata: { name: `gadgets.${group}` },
      spec: {
        group,
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        scope: 'Cluster',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            // kubernetes-types' JSONSchemaProps has no x-kubernetes-* fields; no gadget is stored here.
            schema: { openAPIV3Schema: { type: 'object' } },
          },
        ],
      },
    });
    try {
      for await (const event of crds.watch(undefined, {
        resourceVersion: '0',
        fieldSelector: `metadata.name=gadgets.${group}`,
        timeoutSeconds: 30,
      })) {
        if (
          event.object.status?.conditions?.some(
            (c) => c.type === 'Established' && c.status === 'True',
          )
        )
          break;
      }
      const mapper = createRestMapper(rest);
      const gadgets = await clientForKind(rest, mapper, {
        apiVersion: `${group}/v1`,
        kind: 'Gadget',
      });
      expect(gadgets.gvr).toEqual({ group, version: 'v1', resource: 'gadgets' });
      expect(gadgets.namespaced).toBe(false);
      await expect(gadgets.verify(mapper)).resolves.toBeUndefined();

      const declared = new Client({ gvr: gadgets.gvr, kind: 'Gadget', namespaced: true, rest });
      const error = await declared.verify(mapper).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe(
        `Client(${group}/v1): gadgets is cluster-scoped on the server but was declared namespaced: true`,
      );
    } finally {
      await crds.delete(undefined, crd.metadata?.name ?? '');
    }
  });
});
