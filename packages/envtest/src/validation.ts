// Name, label and annotation validation with kube-apiserver's messages; ports k8s.io/apimachinery
// pkg/util/validation and pkg/api/validation (ValidateObjectMeta) as far as a controller can observe them.

/** One `details.causes[]` entry of an Invalid (422) Status, as kube-apiserver reports it. */
export interface FieldCause {
  type:
    | 'FieldValueInvalid'
    | 'FieldValueRequired'
    | 'FieldValueNotSupported'
    | 'FieldValueTooLong'
    | 'FieldValueDuplicate';
  /** The error text without the field path, e.g. `Invalid value: "A": a lowercase RFC 1123 ...`. */
  message: string;
  /** The field path, e.g. `metadata.name` or `metadata.labels`. */
  field: string;
}

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrorMessage =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrorMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameErrorMessage =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrorMessage =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const dns1123LabelPattern = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123SubdomainPattern = new RegExp(`^${dns1123SubdomainFmt}$`);
const qualifiedNamePattern = new RegExp(`^${qualifiedNameFmt}$`);
const labelValuePattern = new RegExp(`^${labelValueFmt}$`);

/** Go's len(): byte length of the UTF-8 encoding. */
const byteLength = (value: string): number => Buffer.byteLength(value, 'utf8');

/** apimachinery's RegexError: note the double space Go leaves between examples. */
function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  const listed = examples.map((example) => `'${example}', `).join(' or ');
  return `${message} (e.g. ${listed}regex used for validation is '${format}')`;
}

const maxLengthError = (length: number): string => `must be no more than ${length} characters`;
const emptyError = 'must be non-empty';

/** True when `value` is a DNS-1123 subdomain (≤ 253 characters, lower-case labels joined by dots). */
export function isDnsSubdomain(value: string): boolean {
  return dns1123SubdomainMessages(value).length === 0;
}

/** True when `value` is a DNS-1123 label (≤ 63 characters, lower-case alphanumerics and '-'). */
export function isDnsLabel(value: string): boolean {
  return dns1123LabelMessages(value).length === 0;
}

/** IsDNS1123Subdomain: the problems with `value`, in kube's words (empty when valid). */
export function dns1123SubdomainMessages(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 253) errors.push(maxLengthError(253));
  if (!dns1123SubdomainPattern.test(value)) {
    errors.push(regexError(dns1123SubdomainErrorMessage, dns1123SubdomainFmt, 'example.com'));
  }
  return errors;
}

/** IsDNS1123Label: the problems with `value`, in kube's words (empty when valid). */
export function dns1123LabelMessages(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 63) errors.push(maxLengthError(63));
  if (!dns1123LabelPattern.test(value)) {
    if (dns1123SubdomainPattern.test(value)) errors.push('must not contain dots');
    else errors.push(regexError(dns1123LabelErrorMessage, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errors;
}

/** IsQualifiedName (label and annotation keys): the problems with `value`, in kube's words. */
export function qualifiedNameMessages(value: string): string[] {
  const errors: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errors.push(`prefix part ${emptyError}`);
    else
      for (const message of dns1123SubdomainMessages(prefix)) errors.push(`prefix part ${message}`);
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrorMessage, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errors.push(`name part ${emptyError}`);
  else if (byteLength(name) > 63) errors.push(`name part ${maxLengthError(63)}`);
  if (!qualifiedNamePattern.test(name)) {
    errors.push(
      `name part ${regexError(qualifiedNameErrorMessage, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`,
    );
  }
  return errors;
}

/** IsValidLabelValue: the problems with `value`, in kube's words (empty when valid). */
export function labelValueMessages(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 63) errors.push(maxLengthError(63));
  if (!labelValuePattern.test(value)) {
    errors.push(regexError(labelValueErrorMessage, labelValueFmt, 'MyValue', 'my_value', '12345'));
  }
  return errors;
}

/** ValidatePathSegmentName: names that must be usable as one URL path segment. */
export function pathSegmentNameMessages(value: string, prefix = false): string[] {
  if (!prefix && (value === '.' || value === '..')) return [`may not be '${value}'`];
  const errors: string[] = [];
  for (const illegal of ['/', '%']) {
    if (value.includes(illegal)) errors.push(`may not contain '${illegal}'`);
  }
  return errors;
}

/** Go's %q for the strings kube puts in messages (JSON quoting is the same for printable text). */
export function quoteGo(value: string): string {
  return JSON.stringify(value);
}
