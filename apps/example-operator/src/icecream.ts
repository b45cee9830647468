// The Icecream custom resource (example.lasso.dev/v1): what the operator reconciles into a Deployment.
import { createHash } from 'node:crypto';
import { type Kind, kindFor } from '@lasso/factory';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/**
 * The Icecream kind token: `factory.forKind(icecreamKind)` is a `SharedController<Icecream>`. It names the
 * resource and scope, so the factory needs no discovery for it.
 */
export const icecreamKind: Kind<Icecream> = kindFor<Icecream>('example.lasso.dev/v1', 'Icecream', {
  resource: 'icecreams',
  namespaced: true,
});
/** The Icecream resource. */
export const icecreamResource = {
  group: 'example.lasso.dev',
  version: 'v1',
  resource: 'icecreams',
} as const;

/** What the user asks for. */
export interface IcecreamSpec {
  flavor: string;
  deploymentName: string;
  replicas: number;
}

/** A standard condition (metav1.Condition). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** What the operator reports. */
export interface IcecreamStatus {
  availableReplicas?: number;
  nodes?: string[];
  observedGeneration?: number;
  conditions?: Condition[];
}

/** An Icecream object. */
export interface Icecream {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: IcecreamSpec;
  status?: IcecreamStatus;
}

/** The label every Deployment, ReplicaSet and Pod of an Icecream carries: {@link icecreamLabelValue} of its name. */
export const icecreamLabel = 'example.lasso.dev/icecream';

/** The longest label value Kubernetes accepts (a name may be up to 253 characters). */
export const maxLabelValueLength = 63;

/**
 * The value of {@link icecreamLabel} for the Icecream `name`: the name itself when it fits in a label value (63
 * characters: `kubectl get pods -l example.lasso.dev/icecream=vanilla` keeps working, and so do the selectors of
 * Deployments made before, which are immutable); otherwise its first 52 characters (trailing `-` and `.` dropped,
 * since a label value ends alphanumeric), a `-` and 10 hex digits of the SHA-256 of the whole name. Derived from
 * the name rather than the uid so that it is known before the Icecream exists and stays readable; the hash keeps
 * two long names with a common prefix apart. Always a valid label value: a name is a DNS subdomain (lowercase
 * alphanumerics, `-`, `.`, starting alphanumeric).
 */
export function icecreamLabelValue(name: string): string {
  if (name.length <= maxLabelValueLength) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 10);
  const prefix = name.slice(0, maxLabelValueLength - hash.length - 1).replace(/[-.]+$/, '');
  return `${prefix}-${hash}`;
}

/**
 * The longest `spec.deploymentName` whose derived names are valid: the Deployment controller names each
 * ReplicaSet `<deployment>-<pod-template-hash>` (up to 10 characters) and a ReplicaSet name is a DNS subdomain
 * (253). Pod names need no limit: the API server cuts a `generateName` prefix to 58 characters before adding 5
 * random ones, and the kubelet cuts a Pod's hostname to 63. The CRD's schema enforces this length.
 */
export const maxDeploymentNameLength = 253 - 11;
/** The finalizer that deletes the Deployment before the Icecream goes away. */
export const icecreamFinalizer = 'example.lasso.dev/cleanup';
