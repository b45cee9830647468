// Name, label and annotation validation with kube-apiserver's messages; ports k8s.io/apimachinery
// pkg/util/validation and pkg/api/validation (ValidateObjectMeta) as far as a controller can observe them.

/** One `details.causes[]` entry of an Invalid (422) Status, as kube-apiserver reports it. */
export interface FieldCause {
  type:
    | 'FieldValueInvalid'
    | 'FieldValueRequired'
    | 'FieldValueNotSupported'
    | 'FieldValueTooLong'
    | 'FieldValueDuplicate'
    | 'FieldValueForbidden';
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

/** NameIsDNS1035Label (Service names): the problems with `value`, in kube's words. */
export function dns1035LabelMessages(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > 63) errors.push(maxLengthError(63));
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(value)) {
    errors.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        '[a-z]([-a-z0-9]*[a-z0-9])?',
        'my-name',
        'abc-123',
      ),
    );
  }
  return errors;
}

/** Which name rule a resource's names follow (kube's ValidateNameFunc per type). */
export type NameRule = 'subdomain' | 'label' | 'path-segment' | 'dns1035-label';

// A generateName is a prefix: kube masks a trailing '-' (maskTrailingDash) before checking it.
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

function nameMessages(rule: NameRule, name: string, prefix: boolean): string[] {
  switch (rule) {
    case 'subdomain':
      return dns1123SubdomainMessages(prefix ? maskTrailingDash(name) : name);
    case 'label':
      return dns1123LabelMessages(prefix ? maskTrailingDash(name) : name);
    case 'dns1035-label':
      return dns1035LabelMessages(prefix ? maskTrailingDash(name) : name);
    case 'path-segment':
      return pathSegmentNameMessages(name, prefix);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function invalid(field: string, value: unknown, detail: string): FieldCause {
  const shown =
    typeof value === 'string'
      ? quoteGo(value)
      : typeof value === 'number'
        ? String(value)
        : JSON.stringify(value);
  return { type: 'FieldValueInvalid', field, message: `Invalid value: ${shown}: ${detail}` };
}

/** The total size kube allows for all annotation keys and values together (256 KiB). */
export const totalAnnotationSizeLimitBytes = 256 * 1024;

function validateStringMap(
  value: unknown,
  field: string,
  check: (key: string, entry: string) => FieldCause[],
): FieldCause[] {
  if (value === undefined || value === null) return [];
  if (!isRecord(value)) return [invalid(field, value, 'must be an object of strings')];
  const causes: FieldCause[] = [];
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== 'string')
      causes.push(invalid(`${field}[${key}]`, entry, 'must be a string'));
    else causes.push(...check(key, entry));
  }
  return causes;
}

/**
 * ValidateObjectMeta as kube-apiserver runs it on create and update: name or generateName (by
 * `nameRule`), namespace (namespaced resources; kube clears it for cluster-scoped ones before this
 * runs), generation, label keys and values, annotation keys and total size, finalizer names and
 * owner references. Each cause's `message` is kube's `ErrorBody()` (no field path); build the Status
 * message with {@link invalidStatusMessage}.
 */
export function validateObjectMeta(
  metadata: unknown,
  options: { namespaced: boolean; nameRule: NameRule },
): FieldCause[] {
  const meta = isRecord(metadata) ? metadata : {};
  const causes: FieldCause[] = [];
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const name = text(meta.name);
  const generateName = text(meta.generateName);
  if (generateName.length > 0) {
    for (const message of nameMessages(options.nameRule, generateName, true)) {
      causes.push(invalid('metadata.generateName', generateName, message));
    }
  }
  if (name.length === 0) {
    if (generateName.length === 0) {
      causes.push({
        type: 'FieldValueRequired',
        field: 'metadata.name',
        message: 'Required value: name or generateName is required',
      });
    }
  } else {
    for (const message of nameMessages(options.nameRule, name, false)) {
      causes.push(invalid('metadata.name', name, message));
    }
  }
  if (options.namespaced) {
    const namespace = text(meta.namespace);
    if (namespace.length === 0) {
      causes.push({
        type: 'FieldValueRequired',
        field: 'metadata.namespace',
        message: 'Required value',
      });
    } else {
      for (const message of dns1123LabelMessages(namespace)) {
        causes.push(invalid('metadata.namespace', namespace, message));
      }
    }
  }
  if (typeof meta.generation === 'number' && meta.generation < 0) {
    causes.push(
      invalid('metadata.generation', meta.generation, 'must be greater than or equal to 0'),
    );
  }
  causes.push(
    ...validateStringMap(meta.labels, 'metadata.labels', (key, value) => [
      ...qualifiedNameMessages(key).map((message) => invalid('metadata.labels', key, message)),
      ...labelValueMessages(value).map((message) => invalid('metadata.labels', value, message)),
    ]),
  );
  let annotationBytes = 0;
  causes.push(
    ...validateStringMap(meta.annotations, 'metadata.annotations', (key, value) => {
      annotationBytes += byteLength(key) + byteLength(value);
      // Annotation keys are qualified names except that case does not matter.
      return qualifiedNameMessages(key.toLowerCase()).map((message) =>
        invalid('metadata.annotations', key, message),
      );
    }),
  );
  if (annotationBytes > totalAnnotationSizeLimitBytes) {
    causes.push({
      type: 'FieldValueTooLong',
      field: 'metadata.annotations',
      message: `Too long: may not be more than ${totalAnnotationSizeLimitBytes} bytes`,
    });
  }
  causes.push(...validateFinalizers(meta.finalizers));
  causes.push(...validateOwnerReferences(meta.ownerReferences));
  return causes;
}

function validateFinalizers(finalizers: unknown): FieldCause[] {
  if (finalizers === undefined || finalizers === null) return [];
  if (!Array.isArray(finalizers))
    return [invalid('metadata.finalizers', finalizers, 'must be a list of strings')];
  const causes: FieldCause[] = [];
  for (const finalizer of finalizers) {
    if (typeof finalizer !== 'string') {
      causes.push(invalid('metadata.finalizers', finalizer, 'must be a string'));
      continue;
    }
    for (const message of qualifiedNameMessages(finalizer)) {
      causes.push(invalid('metadata.finalizers', finalizer, message));
    }
  }
  return causes;
}

function validateOwnerReferences(references: unknown): FieldCause[] {
  if (references === undefined || references === null) return [];
  const field = 'metadata.ownerReferences';
  if (!Array.isArray(references)) return [invalid(field, references, 'must be a list')];
  const causes: FieldCause[] = [];
  const controllers: string[] = [];
  for (const reference of references) {
    const ref = isRecord(reference) ? reference : {};
    const text = (key: string): string =>
      typeof ref[key] === 'string' ? (ref[key] as string) : '';
    const apiVersion = text('apiVersion');
    // schema.FromAPIVersionAndKind: the version is what follows the last '/', or the whole string.
    const version = apiVersion.includes('/')
      ? apiVersion.slice(apiVersion.lastIndexOf('/') + 1)
      : apiVersion;
    if (version.length === 0)
      causes.push(invalid(`${field}.apiVersion`, apiVersion, 'version must not be empty'));
    if (text('kind').length === 0)
      causes.push(invalid(`${field}.kind`, text('kind'), 'kind must not be empty'));
    if (text('name').length === 0)
      causes.push(invalid(`${field}.name`, text('name'), 'name must not be empty'));
    if (text('uid').length === 0)
      causes.push(invalid(`${field}.uid`, text('uid'), 'uid must not be empty'));
    if (ref.controller === true) controllers.push(`${text('kind')}/${text('name')}`);
  }
  if (controllers.length > 1) {
    causes.push(
      invalid(
        field,
        references,
        `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`,
      ),
    );
  }
  return causes;
}

/**
 * The `message` of kube-apiserver's Invalid (422) Status:
 * `Deployment.apps "web" is invalid: metadata.name: Invalid value: ...` (several causes in brackets).
 * `qualifiedKind` is `Kind` for the core group and `Kind.group` otherwise.
 */
export function invalidStatusMessage(
  qualifiedKind: string,
  name: string,
  causes: readonly FieldCause[],
): string {
  const head = `${qualifiedKind} ${quoteGo(name)} is invalid`;
  const messages = [...new Set(causes.map((cause) => `${cause.field}: ${cause.message}`))];
  if (messages.length === 0) return head;
  return `${head}: ${messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`}`;
}
