// The built-in kinds of kube-apiserver: apiVersion + kind -> resource and scope at runtime, and the
// `kubernetes-types` interface at the type level. Replaces hand-written `{ gvr, kind, namespaced }` triples.

import type * as admissionregistrationV1 from 'kubernetes-types/admissionregistration/v1.js';
import type * as apiextensionsV1 from 'kubernetes-types/apiextensions/v1.js';
import type * as appsV1 from 'kubernetes-types/apps/v1.js';
import type * as authenticationV1 from 'kubernetes-types/authentication/v1.js';
import type * as authorizationV1 from 'kubernetes-types/authorization/v1.js';
import type * as autoscalingV1 from 'kubernetes-types/autoscaling/v1.js';
import type * as autoscalingV2 from 'kubernetes-types/autoscaling/v2.js';
import type * as batchV1 from 'kubernetes-types/batch/v1.js';
import type * as certificatesV1 from 'kubernetes-types/certificates/v1.js';
import type * as coordinationV1 from 'kubernetes-types/coordination/v1.js';
import type * as coreV1 from 'kubernetes-types/core/v1.js';
import type * as discoveryV1 from 'kubernetes-types/discovery/v1.js';
import type * as eventsV1 from 'kubernetes-types/events/v1.js';
import type * as flowcontrolV1 from 'kubernetes-types/flowcontrol/v1.js';
import type * as networkingV1 from 'kubernetes-types/networking/v1.js';
import type * as nodeV1 from 'kubernetes-types/node/v1.js';
import type * as policyV1 from 'kubernetes-types/policy/v1.js';
import type * as rbacV1 from 'kubernetes-types/rbac/v1.js';
import type * as schedulingV1 from 'kubernetes-types/scheduling/v1.js';
import type * as storageV1 from 'kubernetes-types/storage/v1.js';
import { parseApiVersion } from './api-version.ts';
import type { RestMapping } from './rest-mapper.ts';
import type { KubeObject, KubeObjectLike } from './types.ts';

/**
 * The built-in kinds at the type level: `apiVersion` -> `kind` -> the `kubernetes-types` interface.
 * Lists the top-level resources of kube-apiserver 1.30 (subresource kinds such as `Scale`, `Eviction`
 * and `TokenRequest` are not here: they have no collection to list or watch). The runtime table
 * {@link builtinKinds} has exactly these keys.
 *
 * @example
 * ```ts
 * type D = BuiltinKinds['apps/v1']['Deployment']; // kubernetes-types' Deployment
 * ```
 */
export interface BuiltinKinds {
  v1: {
    ConfigMap: coreV1.ConfigMap;
    Endpoints: coreV1.Endpoints;
    Event: coreV1.Event;
    LimitRange: coreV1.LimitRange;
    Namespace: coreV1.Namespace;
    Node: coreV1.Node;
    PersistentVolume: coreV1.PersistentVolume;
    PersistentVolumeClaim: coreV1.PersistentVolumeClaim;
    Pod: coreV1.Pod;
    PodTemplate: coreV1.PodTemplate;
    ReplicationController: coreV1.ReplicationController;
    ResourceQuota: coreV1.ResourceQuota;
    Secret: coreV1.Secret;
    Service: coreV1.Service;
    ServiceAccount: coreV1.ServiceAccount;
  };
  'admissionregistration.k8s.io/v1': {
    MutatingWebhookConfiguration: admissionregistrationV1.MutatingWebhookConfiguration;
    ValidatingAdmissionPolicy: admissionregistrationV1.ValidatingAdmissionPolicy;
    ValidatingAdmissionPolicyBinding: admissionregistrationV1.ValidatingAdmissionPolicyBinding;
    ValidatingWebhookConfiguration: admissionregistrationV1.ValidatingWebhookConfiguration;
  };
  'apiextensions.k8s.io/v1': {
    CustomResourceDefinition: apiextensionsV1.CustomResourceDefinition;
  };
  'apps/v1': {
    ControllerRevision: appsV1.ControllerRevision;
    DaemonSet: appsV1.DaemonSet;
    Deployment: appsV1.Deployment;
    ReplicaSet: appsV1.ReplicaSet;
    StatefulSet: appsV1.StatefulSet;
  };
  'authentication.k8s.io/v1': {
    SelfSubjectReview: authenticationV1.SelfSubjectReview;
    TokenReview: authenticationV1.TokenReview;
  };
  'authorization.k8s.io/v1': {
    LocalSubjectAccessReview: authorizationV1.LocalSubjectAccessReview;
    SelfSubjectAccessReview: authorizationV1.SelfSubjectAccessReview;
    SelfSubjectRulesReview: authorizationV1.SelfSubjectRulesReview;
    SubjectAccessReview: authorizationV1.SubjectAccessReview;
  };
  'autoscaling/v1': {
    HorizontalPodAutoscaler: autoscalingV1.HorizontalPodAutoscaler;
  };
  'autoscaling/v2': {
    HorizontalPodAutoscaler: autoscalingV2.HorizontalPodAutoscaler;
  };
  'batch/v1': {
    CronJob: batchV1.CronJob;
    Job: batchV1.Job;
  };
  'certificates.k8s.io/v1': {
    CertificateSigningRequest: certificatesV1.CertificateSigningRequest;
  };
  'coordination.k8s.io/v1': {
    Lease: coordinationV1.Lease;
  };
  'discovery.k8s.io/v1': {
    EndpointSlice: discoveryV1.EndpointSlice;
  };
  'events.k8s.io/v1': {
    Event: eventsV1.Event;
  };
  'flowcontrol.apiserver.k8s.io/v1': {
    FlowSchema: flowcontrolV1.FlowSchema;
    PriorityLevelConfiguration: flowcontrolV1.PriorityLevelConfiguration;
  };
  'networking.k8s.io/v1': {
    Ingress: networkingV1.Ingress;
    IngressClass: networkingV1.IngressClass;
    NetworkPolicy: networkingV1.NetworkPolicy;
  };
  'node.k8s.io/v1': {
    RuntimeClass: nodeV1.RuntimeClass;
  };
  'policy/v1': {
    PodDisruptionBudget: policyV1.PodDisruptionBudget;
  };
  'rbac.authorization.k8s.io/v1': {
    ClusterRole: rbacV1.ClusterRole;
    ClusterRoleBinding: rbacV1.ClusterRoleBinding;
    Role: rbacV1.Role;
    RoleBinding: rbacV1.RoleBinding;
  };
  'scheduling.k8s.io/v1': {
    PriorityClass: schedulingV1.PriorityClass;
  };
  'storage.k8s.io/v1': {
    CSIDriver: storageV1.CSIDriver;
    CSINode: storageV1.CSINode;
    CSIStorageCapacity: storageV1.CSIStorageCapacity;
    StorageClass: storageV1.StorageClass;
    VolumeAttachment: storageV1.VolumeAttachment;
  };
}

/** An `apiVersion` of {@link BuiltinKinds}: `'v1'`, `'apps/v1'`, ... */
export type BuiltinApiVersion = keyof BuiltinKinds;

/** The built-in kinds of `apiVersion` (of every built-in apiVersion when omitted). */
export type BuiltinKind<V extends BuiltinApiVersion = BuiltinApiVersion> =
  V extends BuiltinApiVersion ? keyof BuiltinKinds[V] & string : never;

/**
 * The object type of `apiVersion` + `kind`: the `kubernetes-types` interface for a built-in kind,
 * {@link KubeObject} for anything else (custom resources, aggregated APIs).
 *
 * @example
 * ```ts
 * type D = KindType<'apps/v1', 'Deployment'>; // Deployment
 * type W = KindType<'example.com/v1', 'Widget'>; // KubeObject
 * ```
 */
export type KindType<V extends string, K extends string> = V extends BuiltinApiVersion
  ? K extends keyof BuiltinKinds[V]
    ? // Extract is the identity here; it tells the compiler that a generic KindType is a KubeObjectLike.
      Extract<BuiltinKinds[V][K], KubeObjectLike>
    : KubeObject
  : KubeObject;

/** Where a built-in kind is served: its plural resource name and scope. */
export interface BuiltinResource {
  readonly resource: string;
  readonly namespaced: boolean;
}

type BuiltinKindTable = {
  readonly [V in BuiltinApiVersion]: { readonly [K in BuiltinKind<V>]: BuiltinResource };
};

const cluster = (resource: string): BuiltinResource => ({ resource, namespaced: false });
const namespaced = (resource: string): BuiltinResource => ({ resource, namespaced: true });

/**
 * The built-in kinds at runtime: `apiVersion` -> `kind` -> `{ resource, namespaced }`, as
 * kube-apiserver's discovery reports them (an integration test compares every entry with the
 * server's discovery). Frozen. Same keys as {@link BuiltinKinds}, checked by the compiler.
 */
export const builtinKinds: BuiltinKindTable = deepFreeze<BuiltinKindTable>({
  v1: {
    ConfigMap: namespaced('configmaps'),
    Endpoints: namespaced('endpoints'),
    Event: namespaced('events'),
    LimitRange: namespaced('limitranges'),
    Namespace: cluster('namespaces'),
    Node: cluster('nodes'),
    PersistentVolume: cluster('persistentvolumes'),
    PersistentVolumeClaim: namespaced('persistentvolumeclaims'),
    Pod: namespaced('pods'),
    PodTemplate: namespaced('podtemplates'),
    ReplicationController: namespaced('replicationcontrollers'),
    ResourceQuota: namespaced('resourcequotas'),
    Secret: namespaced('secrets'),
    Service: namespaced('services'),
    ServiceAccount: namespaced('serviceaccounts'),
  },
  'admissionregistration.k8s.io/v1': {
    MutatingWebhookConfiguration: cluster('mutatingwebhookconfigurations'),
    ValidatingAdmissionPolicy: cluster('validatingadmissionpolicies'),
    ValidatingAdmissionPolicyBinding: cluster('validatingadmissionpolicybindings'),
    ValidatingWebhookConfiguration: cluster('validatingwebhookconfigurations'),
  },
  'apiextensions.k8s.io/v1': {
    CustomResourceDefinition: cluster('customresourcedefinitions'),
  },
  'apps/v1': {
    ControllerRevision: namespaced('controllerrevisions'),
    DaemonSet: namespaced('daemonsets'),
    Deployment: namespaced('deployments'),
    ReplicaSet: namespaced('replicasets'),
    StatefulSet: namespaced('statefulsets'),
  },
  'authentication.k8s.io/v1': {
    SelfSubjectReview: cluster('selfsubjectreviews'),
    TokenReview: cluster('tokenreviews'),
  },
  'authorization.k8s.io/v1': {
    LocalSubjectAccessReview: namespaced('localsubjectaccessreviews'),
    SelfSubjectAccessReview: cluster('selfsubjectaccessreviews'),
    SelfSubjectRulesReview: cluster('selfsubjectrulesreviews'),
    SubjectAccessReview: cluster('subjectaccessreviews'),
  },
  'autoscaling/v1': {
    HorizontalPodAutoscaler: namespaced('horizontalpodautoscalers'),
  },
  'autoscaling/v2': {
    HorizontalPodAutoscaler: namespaced('horizontalpodautoscalers'),
  },
  'batch/v1': {
    CronJob: namespaced('cronjobs'),
    Job: namespaced('jobs'),
  },
  'certificates.k8s.io/v1': {
    CertificateSigningRequest: cluster('certificatesigningrequests'),
  },
  'coordination.k8s.io/v1': {
    Lease: namespaced('leases'),
  },
  'discovery.k8s.io/v1': {
    EndpointSlice: namespaced('endpointslices'),
  },
  'events.k8s.io/v1': {
    Event: namespaced('events'),
  },
  'flowcontrol.apiserver.k8s.io/v1': {
    FlowSchema: cluster('flowschemas'),
    PriorityLevelConfiguration: cluster('prioritylevelconfigurations'),
  },
  'networking.k8s.io/v1': {
    Ingress: namespaced('ingresses'),
    IngressClass: cluster('ingressclasses'),
    NetworkPolicy: namespaced('networkpolicies'),
  },
  'node.k8s.io/v1': {
    RuntimeClass: cluster('runtimeclasses'),
  },
  'policy/v1': {
    PodDisruptionBudget: namespaced('poddisruptionbudgets'),
  },
  'rbac.authorization.k8s.io/v1': {
    ClusterRole: cluster('clusterroles'),
    ClusterRoleBinding: cluster('clusterrolebindings'),
    Role: namespaced('roles'),
    RoleBinding: namespaced('rolebindings'),
  },
  'scheduling.k8s.io/v1': {
    PriorityClass: cluster('priorityclasses'),
  },
  'storage.k8s.io/v1': {
    CSIDriver: cluster('csidrivers'),
    CSINode: cluster('csinodes'),
    CSIStorageCapacity: namespaced('csistoragecapacities'),
    StorageClass: cluster('storageclasses'),
    VolumeAttachment: cluster('volumeattachments'),
  },
});

/**
 * The mapping of a built-in `apiVersion` + `kind` (`{ gvr, gvk, namespaced }`, the shape a
 * `RestMapper` answers), or `undefined` when it is not in {@link builtinKinds}. No I/O.
 */
export function builtinMappingFor(apiVersion: string, kind: string): RestMapping | undefined {
  const entry = Object.hasOwn(builtinKinds, apiVersion)
    ? (builtinKinds as unknown as Record<string, Record<string, BuiltinResource>>)[apiVersion]
    : undefined;
  const served = entry !== undefined && Object.hasOwn(entry, kind) ? entry[kind] : undefined;
  if (served === undefined) return undefined;
  const { group, version } = splitApiVersion(apiVersion);
  return {
    gvr: { group, version, resource: served.resource },
    gvk: { group, version, kind },
    namespaced: served.namespaced,
  };
}

/** @internal What the table says about a declared group/version/resource; built on first use. */
export interface BuiltinEntry {
  readonly apiVersion: string;
  readonly kind: string;
  readonly resource: string;
  readonly namespaced: boolean;
}

let byResource: Map<string, BuiltinEntry> | undefined;
let byKind: Map<string, BuiltinEntry> | undefined;

/** @internal The built-in entry of `apiVersion` + `resource`, and that of `apiVersion` + `kind`. */
export function builtinEntries(
  apiVersion: string,
  resource: string,
  kind: string,
): { byResource: BuiltinEntry | undefined; byKind: BuiltinEntry | undefined } {
  if (byResource === undefined || byKind === undefined) {
    byResource = new Map();
    byKind = new Map();
    for (const [version, kinds] of Object.entries(builtinKinds)) {
      for (const [name, served] of Object.entries(kinds as Record<string, BuiltinResource>)) {
        const entry = { apiVersion: version, kind: name, ...served };
        byResource.set(`${version} ${served.resource}`, entry);
        byKind.set(`${version} ${name}`, entry);
      }
    }
  }
  return {
    byResource: byResource.get(`${apiVersion} ${resource}`),
    byKind: byKind.get(`${apiVersion} ${kind}`),
  };
}

/**
 * @internal `v1` -> `{ group: '', version: 'v1' }`, `apps/v1` -> `{ group: 'apps', version: 'v1' }`.
 * Throws a TypeError naming `apiVersion` for an empty part or more than one `/` (see {@link parseApiVersion}).
 */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  return parseApiVersion(apiVersion);
}

function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value)) {
    if (typeof child === 'object' && child !== null) deepFreeze(child);
  }
  return Object.freeze(value);
}
