// The Icecream spec as the reconciler needs it, checked field by field. The CRD's schema (manifests/crd.yaml)
// refuses a bad spec at the API server, but an Icecream stored before the schema, or under a CRD installed
// without one, reaches the operator as it is: a `deploymentName` that is a number or an array must be reported
// on the object, naming the field, not crash the reconcile or be sent to the server as a Deployment name.
import { maxDeploymentNameLength } from './icecream.ts';

/** The CRD's pattern for `spec.deploymentName`: a DNS subdomain (RFC 1123), as a Deployment's name must be. */
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The CRD's bounds of `spec.replicas` and `spec.flavor`. */
export const maxReplicas = 100;
export const maxFlavorLength = 63;

// Hostile specs are reported, not echoed: a value is described by its type and, when short, its text.
function describe(value: unknown): string {
  if (value === null) return 'null';
  try {
    if (Array.isArray(value)) return 'an array';
  } catch {
    // A revoked Proxy: Array.isArray throws on it.
    return 'an unreadable value';
  }
  if (typeof value === 'string') {
    return value.length <= 64 ? JSON.stringify(value) : `a ${value.length}-character string`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return `a value of type ${typeof value}`;
}

/** What is wrong with `spec.deploymentName` (named in the message), or undefined when it is valid. */
export function deploymentNameProblem(deploymentName: unknown): string | undefined {
  if (typeof deploymentName !== 'string') {
    return `spec.deploymentName must be a string (a DNS subdomain), got ${deploymentName === undefined ? 'none' : describe(deploymentName)}`;
  }
  if (deploymentName.length > maxDeploymentNameLength) {
    return `spec.deploymentName is longer than ${maxDeploymentNameLength} characters: its ReplicaSets' names would be invalid`;
  }
  if (!dnsSubdomain.test(deploymentName)) {
    return `spec.deploymentName must be a DNS subdomain (lowercase letters, digits, '-' and '.', starting and ending with a letter or digit), got ${describe(deploymentName)}`;
  }
  return undefined;
}

/** What is wrong with `spec`: one message per field, each naming it (`spec.deploymentName ...`). */
export function specProblems(spec: unknown): string[] {
  const shape = spec === undefined ? 'none' : describe(spec);
  if (typeof spec !== 'object' || spec === null || shape === 'an array') {
    return [`spec must be an object, got ${shape}`];
  }
  let fields: Record<string, unknown>;
  try {
    const { flavor, deploymentName, replicas } = spec as Record<string, unknown>;
    fields = { flavor, deploymentName, replicas };
  } catch {
    return ['spec could not be read'];
  }
  const { flavor, deploymentName, replicas } = fields;
  const problems: string[] = [];
  const nameProblem = deploymentNameProblem(deploymentName);
  if (nameProblem !== undefined) problems.push(nameProblem);
  if (typeof flavor !== 'string' || flavor.length === 0 || flavor.length > maxFlavorLength) {
    problems.push(
      `spec.flavor must be a string of 1 to ${maxFlavorLength} characters, got ${flavor === undefined ? 'none' : describe(flavor)}`,
    );
  }
  if (
    typeof replicas !== 'number' ||
    !Number.isInteger(replicas) ||
    replicas < 0 ||
    replicas > maxReplicas
  ) {
    problems.push(
      `spec.replicas must be an integer from 0 to ${maxReplicas}, got ${replicas === undefined ? 'none' : describe(replicas)}`,
    );
  }
  return problems;
}
