// Kubernetes qualified names (apimachinery pkg/util/validation IsQualifiedName): what finalizers and an Event's
// reportingController must be. Internal: not exported from the package.

// The name part: at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric.
const namePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const subdomainLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Why `value` is not a qualified name (`[prefix/]name`, the prefix a lowercase DNS subdomain), or `undefined`
 * when it is one. With `requirePrefix`, a bare `name` is refused too.
 */
export function qualifiedNameProblem(
  value: unknown,
  options: { requirePrefix?: boolean } = {},
): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  const slash = value.indexOf('/');
  if (slash === -1 && options.requirePrefix === true) {
    return 'must be domain-qualified, like example.com/cleanup';
  }
  const prefix = slash === -1 ? undefined : value.slice(0, slash);
  const name = slash === -1 ? value : value.slice(slash + 1);
  if (
    prefix !== undefined &&
    (prefix.length > 253 ||
      !prefix.split('.').every((label) => label.length <= 63 && subdomainLabel.test(label)))
  ) {
    return 'has a prefix that is not a lowercase DNS subdomain';
  }
  if (name.length > 63 || !namePart.test(name)) {
    return 'must end in a name of at most 63 alphanumerics, -, _ or . that starts and ends alphanumeric';
  }
  return undefined;
}
