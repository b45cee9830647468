// The Icecream custom resource (example.lasso.dev/v1): what the operator reconciles into a Deployment.
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** The Icecream kind, as the factory and clients name it. */
export const icecreamKind = {
  group: 'example.lasso.dev',
  version: 'v1',
  kind: 'Icecream',
} as const;
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

/** The label every Deployment, ReplicaSet and Pod of an Icecream carries: its Icecream's name. */
export const icecreamLabel = 'example.lasso.dev/icecream';
/** The finalizer that deletes the Deployment before the Icecream goes away. */
export const icecreamFinalizer = 'example.lasso.dev/cleanup';
