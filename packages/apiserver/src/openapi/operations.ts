// The paths and operations of one served resource, as kube-apiserver's endpoint installer publishes them
// (item, collection, all-namespaces list, status and scale subresources), in a neutral form that the
// document builders render as OpenAPI v2 or v3. What clients read from them: the
// `x-kubernetes-group-version-kind` of each operation, the query parameters of PATCH (kubectl decides from
// `fieldValidation` there whether the server validates fields itself) and the patch content types (a
// strategic merge content type tells kubectl's apply it may compute a strategic merge patch).
import type { ResourceInfo } from '../resources/builtin-resources.ts';
import { names } from './builtin-definitions.ts';
import type { GroupVersionKind } from './schema.ts';

/** A query or path parameter. */
export interface Parameter {
  name: string;
  in: 'query' | 'path';
  type: 'string' | 'boolean' | 'integer';
  description: string;
  required?: boolean;
}

/** One operation of a path. */
export interface Operation {
  method: 'get' | 'put' | 'post' | 'delete' | 'patch';
  action: 'get' | 'list' | 'put' | 'post' | 'delete' | 'deletecollection' | 'patch';
  operationId: string;
  description: string;
  tag: string;
  gvk: GroupVersionKind;
  parameters: Parameter[];
  /** The request body: its definition name and the content types accepted. */
  body?: { definition: string; required: boolean; contentTypes: string[] };
  /** Response code -> definition name of the body (none for 401). */
  responses: Array<{ code: string; description: string; definition?: string }>;
  /** Content types the responses come in. */
  produces: string[];
}

/** A path with the parameters all its operations share. */
export interface PathItem {
  path: string;
  parameters: Parameter[];
  operations: Operation[];
}

function query(name: string, type: Parameter['type'], description: string): Parameter {
  return { name, in: 'query', type, description };
}

const parameters = {
  pretty: query('pretty', 'string', "If 'true', then the output is pretty printed."),
  dryRun: query(
    'dryRun',
    'string',
    'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed',
  ),
  fieldManager: query(
    'fieldManager',
    'string',
    'fieldManager is a name associated with the actor or entity that is making these changes.',
  ),
  fieldValidation: query(
    'fieldValidation',
    'string',
    'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict',
  ),
  force: query(
    'force',
    'boolean',
    'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.',
  ),
  allowWatchBookmarks: query(
    'allowWatchBookmarks',
    'boolean',
    'allowWatchBookmarks requests watch events with type "BOOKMARK".',
  ),
  continue: query('continue', 'string', 'The continue token of a previous, paginated list.'),
  fieldSelector: query('fieldSelector', 'string', "A selector on the objects' fields."),
  labelSelector: query('labelSelector', 'string', "A selector on the objects' labels."),
  limit: query('limit', 'integer', 'The maximum number of objects a list answers with.'),
  resourceVersion: query(
    'resourceVersion',
    'string',
    'Constrains which resource versions the request may be served from.',
  ),
  resourceVersionMatch: query(
    'resourceVersionMatch',
    'string',
    'How resourceVersion is applied to list calls.',
  ),
  sendInitialEvents: query(
    'sendInitialEvents',
    'boolean',
    'With watch=true, start the watch with synthetic events for the current state.',
  ),
  timeoutSeconds: query('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  watch: query('watch', 'boolean', 'Watch for changes and return them as a stream of events.'),
  gracePeriodSeconds: query(
    'gracePeriodSeconds',
    'integer',
    'The duration in seconds before the object should be deleted.',
  ),
  orphanDependents: query(
    'orphanDependents',
    'boolean',
    'Deprecated: use propagationPolicy. Whether dependents are orphaned.',
  ),
  propagationPolicy: query(
    'propagationPolicy',
    'string',
    "Whether and how garbage collection is performed: 'Orphan', 'Background' or 'Foreground'.",
  ),
} satisfies Record<string, Parameter>;

const listParameters = [
  parameters.allowWatchBookmarks,
  parameters.continue,
  parameters.fieldSelector,
  parameters.labelSelector,
  parameters.limit,
  parameters.resourceVersion,
  parameters.resourceVersionMatch,
  parameters.sendInitialEvents,
  parameters.timeoutSeconds,
  parameters.watch,
];
const writeParameters = [parameters.dryRun, parameters.fieldManager, parameters.fieldValidation];
const deleteParameters = [
  parameters.dryRun,
  parameters.gracePeriodSeconds,
  parameters.orphanDependents,
  parameters.propagationPolicy,
];

/** Content types of PATCH bodies; custom resources take every one but strategic merge. */
export function patchContentTypes(strategicMerge: boolean): string[] {
  const types = [
    'application/apply-patch+yaml',
    'application/json-patch+json',
    'application/merge-patch+json',
  ];
  if (strategicMerge) types.push('application/strategic-merge-patch+json');
  return types;
}

function pathParameter(name: string, description: string): Parameter {
  return { name, in: 'path', type: 'string', description, required: true };
}

/** `CoreV1`, `AppsV1`, `EventsV1`, `StableExampleComV1`: the group/version part of operation ids. */
export function operationGroupVersion(group: string, version: string): string {
  const groupPart = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '');
  const words = `${groupPart}.${version}`.split(/[.-]/).filter((word) => word !== '');
  return words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}

/** The tag kube groups operations under: `core_v1`, `apps_v1`, `stableExampleCom_v1`. */
export function operationTag(group: string, version: string): string {
  if (group === '') return `core_${version}`;
  const words = group.replace(/\.k8s\.io$/, '').split(/[.-]/);
  const joined = words
    .map((word, index) => (index === 0 ? word : word[0]!.toUpperCase() + word.slice(1)))
    .join('');
  return `${joined}_${version}`;
}

/** What the operations of one resource need to know beyond its {@link ResourceInfo}. */
export interface ResourceDefinitions {
  /** Definition name of the kind. */
  kind: string;
  /** Definition name of the list kind. */
  list: string;
  /**
   * PATCH advertises strategic merge. kubectl's apply then computes the patch from the kind's published
   * schema, so a built-in kind published without one (permissive) leaves it out and kubectl falls back on
   * its compiled-in types instead of warning that the schema lacks `metadata`.
   */
  strategicMerge: boolean;
}

/** The paths kube-apiserver serves for `info`, with their operations. */
export function resourcePaths(info: ResourceInfo, definitions: ResourceDefinitions): PathItem[] {
  const prefix = info.group === '' ? `/api/${info.version}` : `/apis/${info.group}/${info.version}`;
  const gvk = { group: info.group, version: info.version, kind: info.kind };
  const idPart = operationGroupVersion(info.group, info.version);
  const tag = operationTag(info.group, info.version);
  const scope = info.namespaced ? 'Namespaced' : '';
  const verbs = new Set(info.verbs);
  const produces = info.builtin
    ? ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']
    : ['application/json', 'application/yaml'];
  const base = info.namespaced
    ? `${prefix}/namespaces/{namespace}/${info.resource}`
    : `${prefix}/${info.resource}`;
  const scopeParameters = info.namespaced
    ? [pathParameter('namespace', 'object name and auth scope, such as for teams and projects')]
    : [];
  const nameParameter = pathParameter('name', `name of the ${info.kind}`);
  const operation = (
    method: Operation['method'],
    action: Operation['action'],
    verb: string,
    suffix: string,
    description: string,
    extra: Partial<Operation> & Pick<Operation, 'responses'>,
    kind: GroupVersionKind = gvk,
  ): Operation => ({
    method,
    action,
    operationId: `${verb}${idPart}${suffix}`,
    description,
    tag,
    gvk: kind,
    parameters: [],
    produces,
    ...extra,
  });
  const ok = (definition: string) => ({ code: '200', description: 'OK', definition });
  const created = (definition: string) => ({ code: '201', description: 'Created', definition });
  const accepted = (definition: string) => ({ code: '202', description: 'Accepted', definition });
  const unauthorized = { code: '401', description: 'Unauthorized' };
  const writeOperations = (
    suffix: string,
    noun: string,
    definition: string,
    kind: GroupVersionKind,
  ): Operation[] => {
    const result: Operation[] = [];
    if (verbs.has('get')) {
      result.push(
        operation(
          'get',
          'get',
          'read',
          suffix,
          `read ${noun}`,
          {
            responses: [ok(definition), unauthorized],
          },
          kind,
        ),
      );
    }
    if (verbs.has('update')) {
      result.push(
        operation(
          'put',
          'put',
          'replace',
          suffix,
          `replace ${noun}`,
          {
            parameters: writeParameters,
            body: { definition, required: true, contentTypes: ['*/*'] },
            responses: [ok(definition), created(definition), unauthorized],
          },
          kind,
        ),
      );
    }
    if (verbs.has('patch')) {
      result.push(
        operation(
          'patch',
          'patch',
          'patch',
          suffix,
          `partially update ${noun}`,
          {
            parameters: [...writeParameters, parameters.force],
            body: {
              definition: names.patch,
              required: true,
              contentTypes: patchContentTypes(definitions.strategicMerge),
            },
            responses: [ok(definition), created(definition), unauthorized],
          },
          kind,
        ),
      );
    }
    return result;
  };

  const collection: Operation[] = [];
  if (verbs.has('list')) {
    collection.push(
      operation(
        'get',
        'list',
        'list',
        `${scope}${info.kind}`,
        `list or watch objects of kind ${info.kind}`,
        {
          parameters: listParameters,
          responses: [ok(definitions.list), unauthorized],
        },
      ),
    );
  }
  if (verbs.has('create')) {
    collection.push(
      operation('post', 'post', 'create', `${scope}${info.kind}`, `create a ${info.kind}`, {
        parameters: writeParameters,
        body: { definition: definitions.kind, required: true, contentTypes: ['*/*'] },
        responses: [
          ok(definitions.kind),
          created(definitions.kind),
          accepted(definitions.kind),
          unauthorized,
        ],
      }),
    );
  }
  if (verbs.has('deletecollection')) {
    collection.push(
      operation(
        'delete',
        'deletecollection',
        'deleteCollection',
        `${scope}${info.kind}`,
        `delete collection of ${info.kind}`,
        {
          parameters: [
            ...deleteParameters,
            ...listParameters.filter((p) => p.name !== 'watch' && p.name !== 'allowWatchBookmarks'),
          ],
          body: { definition: names.deleteOptions, required: false, contentTypes: ['*/*'] },
          responses: [ok(names.status), unauthorized],
        },
      ),
    );
  }
  const item = writeOperations(
    `${scope}${info.kind}`,
    `the specified ${info.kind}`,
    definitions.kind,
    gvk,
  );
  if (verbs.has('delete')) {
    item.push(
      operation('delete', 'delete', 'delete', `${scope}${info.kind}`, `delete a ${info.kind}`, {
        parameters: deleteParameters,
        body: { definition: names.deleteOptions, required: false, contentTypes: ['*/*'] },
        responses: [ok(names.status), accepted(names.status), unauthorized],
      }),
    );
  }
  const paths: PathItem[] = [];
  const shared = [...scopeParameters, parameters.pretty];
  if (collection.length > 0) paths.push({ path: base, parameters: shared, operations: collection });
  if (item.length > 0) {
    paths.push({
      path: `${base}/{name}`,
      parameters: [nameParameter, ...shared],
      operations: item,
    });
  }
  if (info.namespaced && verbs.has('list')) {
    paths.push({
      path: `${prefix}/${info.resource}`,
      parameters: [parameters.pretty],
      operations: [
        operation(
          'get',
          'list',
          'list',
          `${info.kind}ForAllNamespaces`,
          `list or watch objects of kind ${info.kind}`,
          {
            parameters: listParameters,
            responses: [ok(definitions.list), unauthorized],
          },
        ),
      ],
    });
  }
  if (info.subresources.includes('status')) {
    paths.push({
      path: `${base}/{name}/status`,
      parameters: [nameParameter, ...shared],
      operations: writeOperations(
        `${scope}${info.kind}Status`,
        `status of the specified ${info.kind}`,
        definitions.kind,
        gvk,
      ),
    });
  }
  if (info.subresources.includes('scale')) {
    paths.push({
      path: `${base}/{name}/scale`,
      parameters: [nameParameter, ...shared],
      operations: writeOperations(
        `${scope}${info.kind}Scale`,
        `scale of the specified ${info.kind}`,
        names.scale,
        { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      ),
    });
  }
  return paths;
}
