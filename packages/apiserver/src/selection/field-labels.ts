// Which field labels a field selector may name, per kind, and the values objects have for them: kube's field
// label conversion functions (pkg/apis/*/v1/conversion.go, apiextensions' crConverter) and each strategy's
// ToSelectableFields, as the newest kube-apiserver has them.
import { isRecord } from '../apimachinery/objects.ts';

type Json = Record<string, unknown>;

/** What the field label rules need to know of a resource. */
export interface FieldLabelResource {
  group: string;
  kind: string;
  namespaced: boolean;
  builtin: boolean;
  /** A custom resource's `selectableFields` (ignored for built-in kinds, whose labels are kube's). */
  fieldSelectors: readonly string[];
}

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? '' : String(value);
}

function at(object: Json, path: string): unknown {
  let current: unknown = object;
  for (const part of path.split('.')) {
    if (!isRecord(current)) return undefined;
    current = current[part];
  }
  return current;
}

const involvedObject = [
  'kind',
  'namespace',
  'name',
  'uid',
  'apiVersion',
  'resourceVersion',
  'fieldPath',
] as const;

/**
 * Built-in kinds with a field label conversion function of their own, by `group/Kind`: the labels it
 * accepts (`metadata.*` included only where kube lists them) and how it words a refusal. The other built-in
 * kinds use apimachinery's DefaultMetaV1FieldSelectorConversion.
 */
const conversions: Record<
  string,
  { labels: readonly string[]; refuse?: (label: string) => string }
> = {
  '/Pod': {
    labels: [
      'metadata.name',
      'metadata.namespace',
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'spec.hostNetwork',
      'status.phase',
      'status.podIP',
      'status.podIPs',
      'status.nominatedNodeName',
      // Old v1 clients' name for spec.nodeName.
      'spec.host',
    ],
  },
  '/Node': { labels: ['metadata.name', 'spec.unschedulable'] },
  '/ReplicationController': { labels: ['metadata.name', 'metadata.namespace', 'status.replicas'] },
  '/Event': {
    labels: [
      ...involvedObject.map((field) => `involvedObject.${field}`),
      'reason',
      'reportingComponent',
      'source',
      'type',
      'metadata.namespace',
      'metadata.name',
    ],
  },
  'events.k8s.io/Event': {
    labels: [
      'reason',
      ...involvedObject.map((field) => `regarding.${field}`),
      'reportingController',
      'source',
      'type',
      'metadata.namespace',
      'metadata.name',
    ],
  },
  '/Namespace': { labels: ['status.phase', 'metadata.name'] },
  '/Secret': { labels: ['type', 'metadata.namespace', 'metadata.name'] },
  // Since kube-apiserver 1.30 (spec.clusterIP) and 1.31 (spec.type); before, the default conversion.
  '/Service': { labels: ['metadata.namespace', 'metadata.name', 'spec.clusterIP', 'spec.type'] },
  'batch/Job': {
    labels: ['metadata.name', 'metadata.namespace', 'status.successful'],
    refuse: (label) => `field label ${JSON.stringify(label)} not supported for batchv1.Job`,
  },
};

/**
 * kube-apiserver's 400 message for a field selector naming `label`, or undefined when `resource` supports
 * it. The wording depends on who refuses: a kind's own conversion (`field label not supported: x`), the
 * default conversion of the built-in kinds without one (`"x" is not a known field selector: only
 * "metadata.name", "metadata.namespace"`), or the custom resource converter (`field label not supported: x`,
 * `metadata.namespace` refused for cluster-scoped kinds).
 */
export function unsupportedFieldLabel(
  resource: FieldLabelResource,
  label: string,
): string | undefined {
  if (!resource.builtin) {
    if (label === 'metadata.name') return undefined;
    if (resource.namespaced && label === 'metadata.namespace') return undefined;
    if (resource.fieldSelectors.includes(label)) return undefined;
    return `field label not supported: ${label}`;
  }
  const conversion = conversions[`${resource.group}/${resource.kind}`];
  if (conversion === undefined) {
    if (label === 'metadata.name' || label === 'metadata.namespace') return undefined;
    return `${JSON.stringify(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`;
  }
  if (conversion.labels.includes(label)) return undefined;
  return conversion.refuse?.(label) ?? `field label not supported: ${label}`;
}

/** The field label a request's label stands for (ConvertFieldLabel's renames). */
export function canonicalFieldLabel(resource: FieldLabelResource, label: string): string {
  if (
    resource.builtin &&
    resource.group === '' &&
    resource.kind === 'Pod' &&
    label === 'spec.host'
  ) {
    return 'spec.nodeName';
  }
  return label;
}

/**
 * The field set a stored object is matched against (the strategy's ToSelectableFields, keyed by the labels a
 * request names): `metadata.name`, `metadata.namespace` for namespaced kinds, and each kind's own fields.
 * Custom resources add their `selectableFields` (JSON paths read from the object).
 */
export function selectableFields(
  resource: FieldLabelResource,
  object: Json,
): Record<string, string> {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const fields: Record<string, string> = { 'metadata.name': text(metadata.name) };
  if (resource.namespaced) fields['metadata.namespace'] = text(metadata.namespace);
  if (!resource.builtin) {
    for (const path of resource.fieldSelectors) fields[path] = text(at(object, path));
    return fields;
  }
  const read = (...paths: string[]): void => {
    for (const path of paths) fields[path] = text(at(object, path));
  };
  switch (`${resource.group}/${resource.kind}`) {
    case '/Pod': {
      read('spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName');
      read('status.phase', 'status.nominatedNodeName');
      fields['spec.hostNetwork'] = String(at(object, 'spec.hostNetwork') === true);
      const podIPs = at(object, 'status.podIPs');
      const first = Array.isArray(podIPs) && isRecord(podIPs[0]) ? text(podIPs[0].ip) : '';
      fields['status.podIP'] = first !== '' ? first : text(at(object, 'status.podIP'));
      break;
    }
    case '/Node':
      fields['spec.unschedulable'] = String(at(object, 'spec.unschedulable') === true);
      break;
    case '/ReplicationController':
      fields['status.replicas'] = String(Number(at(object, 'status.replicas') ?? 0));
      break;
    case '/Event':
    case 'events.k8s.io/Event': {
      // Both are stored as a v1 Event; events.k8s.io names the same fields its own way.
      const v1 = resource.group === '';
      for (const field of involvedObject) {
        fields[v1 ? `involvedObject.${field}` : `regarding.${field}`] = text(
          at(object, `involvedObject.${field}`) ?? at(object, `regarding.${field}`),
        );
      }
      fields.reason = text(object.reason);
      fields[v1 ? 'reportingComponent' : 'reportingController'] = text(
        object.reportingComponent ?? object.reportingController,
      );
      fields.source = text(
        at(object, 'source.component') ?? at(object, 'deprecatedSource.component'),
      );
      fields.type = text(object.type);
      break;
    }
    case '/Namespace':
      read('status.phase');
      break;
    case '/Secret':
      read('type');
      break;
    case '/Service':
      read('spec.clusterIP', 'spec.type');
      break;
    case 'batch/Job':
      fields['status.successful'] = String(Number(at(object, 'status.succeeded') ?? 0));
      break;
    default:
      break;
  }
  return fields;
}
