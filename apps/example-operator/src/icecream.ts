// The Icecream custom resource (example.lasso.dev/v1): what the operator reconciles into a Deployment. Its types
// and kind token are generated from manifests/crd.yaml into generated/ (`pnpm --filter @lasso/example-operator
// codegen`); here are the names and limits the operator derives from an Icecream.
import { createHash } from 'node:crypto';

/** The Icecream resource. */
export const icecreamResource = {
  group: 'example.lasso.dev',
  version: 'v1',
  resource: 'icecreams',
} as const;

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
