// The OpenAPI documents of the local API server: the v3 root (each group-version with a content hash in its
// URL), one v3 document per group-version, and the single v2 document. Built from the served resources
// (the registry), the shared built-in type table and the established CRDs' schemas; rebuilt when any of
// them changes, cached otherwise (a document and its hash stay identical while nothing changed, so a
// client's hash-addressed cache stays valid).
import { createHash } from 'node:crypto';
import { apiVersionOf, type ResourceInfo } from '../resources/builtin-resources.ts';
import type { Registry } from '../resources/served-resources.ts';
import type { TypeDefinition } from '../types/type-definition.ts';
import {
  builtinDefinitions,
  listDefinition,
  names,
  permissiveDefinition,
} from './builtin-definitions.ts';
import { customDefinitions, customVersions } from './crd-definitions.ts';
import { type Operation, type Parameter, type PathItem, resourcePaths } from './operations.ts';
import {
  closure,
  type Definitions,
  type GroupVersionKind,
  type Schema,
  toV2,
  toV3,
} from './schema.ts';
import { unknownFields } from './unknown-fields.ts';
import { encodeV2Document } from './v2-protobuf.ts';

type Json = Record<string, unknown>;

/** What the documents are built from, read at each request. */
export interface OpenApiSource {
  registry: Registry;
  /** Every stored CustomResourceDefinition (only those whose resources the registry serves are published). */
  crds(): Json[];
}

/** A rendered document: its JSON text and the hash kube-openapi computes (upper-case hex SHA-512). */
export interface RenderedDocument {
  json: string;
  hash: string;
}

/** Upper-case hex SHA-512 of `text`, the ETag and `hash` kube-openapi gives a document. */
export function documentHash(text: string): string {
  return createHash('sha512').update(text).digest('hex').toUpperCase();
}

function rendered(document: unknown): RenderedDocument {
  const json = JSON.stringify(document);
  return { json, hash: documentHash(json) };
}

/** `api/v1` or `apis/<group>/<version>`: the key of a group-version in the v3 root. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

const securityDefinition = {
  BearerToken: {
    type: 'apiKey',
    description: 'Bearer Token authentication',
    name: 'authorization',
    in: 'header',
  },
};

function sortedObject<T>(entries: Iterable<[string, T]>): Record<string, T> {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The fallback definition name of a built-in kind the table does not describe. */
function builtinName(group: string, version: string, kind: string): string {
  if (group === 'apiextensions.k8s.io') {
    return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}.${kind}`;
  }
  const short = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '').split('.')[0]!;
  return `io.k8s.api.${short}.${version}.${kind}`;
}

interface GroupVersionContent {
  paths: PathItem[];
  /** Definitions (bare-name refs) the group-version's documents need, with their closure. */
  v3: Definitions;
  v2: Definitions;
}

/**
 * Builds and caches the documents. One per API server: the cache is keyed by a fingerprint of the served
 * resources and the CRDs' resourceVersions, so reads between changes reuse the same text and hash.
 */
export class OpenApiPublisher {
  readonly #builtin: Map<string, Schema>;
  /** `group/version/kind` -> definition name, for table entries that are kinds. */
  readonly #kindNames = new Map<string, string>();
  readonly #version: string;
  #fingerprint = '';
  #content = new Map<string, GroupVersionContent>();
  #v3 = new Map<string, RenderedDocument>();
  #v2: RenderedDocument | undefined;
  #v2Protobuf: { bytes: Uint8Array; hash: string } | undefined;

  constructor(options: { types: ReadonlyMap<string, TypeDefinition>; version: string }) {
    this.#builtin = builtinDefinitions(options.types);
    this.#version = options.version;
    for (const [name, type] of options.types) {
      if (type.gvk !== undefined) {
        this.#kindNames.set(`${type.gvk.group}/${type.gvk.version}/${type.gvk.kind}`, name);
      }
    }
  }

  /** The v3 root: `paths` maps each served group-version to its document's hash-carrying URL. */
  root(source: OpenApiSource): RenderedDocument {
    this.#refresh(source);
    const paths: Array<[string, { serverRelativeURL: string }]> = [];
    for (const key of this.#content.keys()) {
      const { hash } = this.#renderV3(key)!;
      paths.push([key, { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` }]);
    }
    return rendered({ paths: sortedObject(paths) });
  }

  /** The v3 document of `path` (`api/v1`, `apis/apps/v1`), or undefined when it is not served. */
  groupVersion(source: OpenApiSource, path: string): RenderedDocument | undefined {
    this.#refresh(source);
    return this.#renderV3(path);
  }

  /** The v2 document (every group-version in one). */
  v2(source: OpenApiSource): RenderedDocument {
    this.#refresh(source);
    if (this.#v2 === undefined) {
      const paths: Array<[string, unknown]> = [];
      const definitions = new Map<string, Schema>();
      for (const content of this.#content.values()) {
        for (const item of content.paths) paths.push([item.path, v2PathItem(item)]);
        for (const [name, schema] of content.v2) definitions.set(name, schema);
      }
      this.#v2 = rendered({
        swagger: '2.0',
        info: { title: 'Kubernetes', version: this.#version },
        paths: sortedObject(paths),
        definitions: sortedObject([...definitions].map(([name, schema]) => [name, toV2(schema)])),
        securityDefinitions: securityDefinition,
        security: [{ BearerToken: [] }],
      });
    }
    return this.#v2;
  }

  /**
   * The fields of `object` that the published schema of `group/version/kind` does not declare (kube's
   * strict-decoding paths); empty when the kind is not served or is published without a schema.
   */
  unknownFields(
    source: OpenApiSource,
    gvk: { group: string; version: string; kind: string },
    object: unknown,
  ): string[] {
    this.#refresh(source);
    const content = this.#content.get(groupVersionPath(gvk.group, gvk.version));
    if (content === undefined) return [];
    for (const schema of content.v3.values()) {
      const kinds = schema['x-kubernetes-group-version-kind'];
      if (
        Array.isArray(kinds) &&
        kinds.some(
          (candidate: GroupVersionKind) =>
            candidate.group === gvk.group &&
            candidate.version === gvk.version &&
            candidate.kind === gvk.kind,
        )
      ) {
        return unknownFields(schema, object, content.v3);
      }
    }
    return [];
  }

  /** The v2 document as gnostic's protobuf `Document`, with the hash of those bytes. */
  v2Protobuf(source: OpenApiSource): { bytes: Uint8Array; hash: string } {
    const json = this.v2(source).json;
    if (this.#v2Protobuf === undefined) {
      const bytes = encodeV2Document(JSON.parse(json) as Record<string, unknown>);
      this.#v2Protobuf = {
        bytes,
        hash: createHash('sha512').update(bytes).digest('hex').toUpperCase(),
      };
    }
    return this.#v2Protobuf;
  }

  #renderV3(path: string): RenderedDocument | undefined {
    const cached = this.#v3.get(path);
    if (cached !== undefined) return cached;
    const content = this.#content.get(path);
    if (content === undefined) return undefined;
    const document = rendered({
      openapi: '3.0.0',
      info: { title: 'Kubernetes', version: this.#version },
      paths: sortedObject(content.paths.map((item) => [item.path, v3PathItem(item)])),
      components: {
        schemas: sortedObject([...content.v3].map(([name, schema]) => [name, toV3(schema)])),
        securitySchemes: securityDefinition,
      },
    });
    this.#v3.set(path, document);
    return document;
  }

  #refresh(source: OpenApiSource): void {
    const resources = source.registry.all().sort((a, b) => {
      const left = `${apiVersionOf(a)}/${a.resource}`;
      const right = `${apiVersionOf(b)}/${b.resource}`;
      return left < right ? -1 : left > right ? 1 : 0;
    });
    const crdsByResource = new Map<string, Json>();
    for (const crd of source.crds()) {
      const spec = (crd.spec ?? {}) as Json;
      const crdNames = (spec.names ?? {}) as Json;
      crdsByResource.set(`${String(spec.group)}/${String(crdNames.plural)}`, crd);
    }
    const fingerprint = JSON.stringify([
      resources.map((info) => [apiVersionOf(info), info.resource, info.verbs, info.subresources]),
      resources
        .filter((info) => !info.builtin)
        .map((info) => {
          const crd = crdsByResource.get(`${info.group}/${info.resource}`);
          const metadata = (crd?.metadata ?? {}) as Json;
          return [info.group, info.resource, metadata.uid, metadata.resourceVersion];
        }),
    ]);
    if (fingerprint === this.#fingerprint) return;
    this.#fingerprint = fingerprint;
    this.#v3 = new Map();
    this.#v2 = undefined;
    this.#v2Protobuf = undefined;
    const byGroupVersion = new Map<string, ResourceInfo[]>();
    for (const info of resources) {
      const key = groupVersionPath(info.group, info.version);
      byGroupVersion.set(key, [...(byGroupVersion.get(key) ?? []), info]);
    }
    this.#content = new Map();
    for (const [key, infos] of byGroupVersion) {
      this.#content.set(key, this.#groupVersionContent(infos, crdsByResource));
    }
  }

  #groupVersionContent(infos: ResourceInfo[], crds: Map<string, Json>): GroupVersionContent {
    const paths: PathItem[] = [];
    const local3 = new Map(this.#builtin);
    const local2 = new Map(this.#builtin);
    const roots = new Set<string>([names.status, names.deleteOptions, names.patch]);
    for (const info of infos) {
      let kind: string;
      let list: string;
      let strategicMerge = false;
      if (info.builtin) {
        const gvk = `${info.group}/${info.version}`;
        kind =
          this.#kindNames.get(`${gvk}/${info.kind}`) ??
          builtinName(info.group, info.version, info.kind);
        list =
          this.#kindNames.get(`${gvk}/${info.listKind}`) ??
          builtinName(info.group, info.version, info.listKind);
        strategicMerge = local3.has(kind);
        if (!strategicMerge) {
          const schema = {
            ...permissiveDefinition(kind),
            'x-kubernetes-group-version-kind': [
              { group: info.group, version: info.version, kind: info.kind },
            ],
          };
          local3.set(kind, schema);
          local2.set(kind, schema);
        }
        if (!local3.has(list)) {
          const schema = listDefinition(
            kind,
            { group: info.group, version: info.version, kind: info.listKind },
            info.resource,
          );
          local3.set(list, schema);
          local2.set(list, schema);
        }
      } else {
        const crd = crds.get(`${info.group}/${info.resource}`);
        const version =
          crd === undefined
            ? undefined
            : customVersions(crd).find((candidate) => candidate.version === info.version);
        const served = version ?? {
          group: info.group,
          version: info.version,
          kind: info.kind,
          listKind: info.listKind,
          plural: info.resource,
          schema: undefined,
        };
        const v3 = customDefinitions(served, 'v3');
        const v2 = customDefinitions(served, 'v2');
        [kind, list] = [...v3.keys()] as [string, string];
        for (const [name, schema] of v3) local3.set(name, schema);
        for (const [name, schema] of v2) local2.set(name, schema);
      }
      roots.add(kind);
      roots.add(list);
      if (info.subresources.includes('scale')) roots.add(names.scale);
      paths.push(...resourcePaths(info, { kind, list, strategicMerge }));
    }
    return {
      paths,
      v3: closure(roots, local3, permissiveDefinition),
      v2: closure(roots, local2, permissiveDefinition),
    };
  }
}

function v2Parameter(parameter: Parameter): Json {
  const result: Json = {
    uniqueItems: true,
    type: parameter.type,
    description: parameter.description,
    name: parameter.name,
    in: parameter.in,
  };
  if (parameter.required === true) result.required = true;
  return result;
}

function v3Parameter(parameter: Parameter): Json {
  const result: Json = {
    name: parameter.name,
    in: parameter.in,
    description: parameter.description,
  };
  if (parameter.required === true) result.required = true;
  result.schema = { type: parameter.type, uniqueItems: true };
  return result;
}

function extensions(operation: Operation): Json {
  return {
    'x-kubernetes-action': operation.action,
    'x-kubernetes-group-version-kind': { ...operation.gvk },
  };
}

function v2Operation(operation: Operation): Json {
  const parameters: Json[] = [];
  if (operation.body !== undefined) {
    const body: Json = {
      name: 'body',
      in: 'body',
      schema: { $ref: `#/definitions/${operation.body.definition}` },
    };
    if (operation.body.required) body.required = true;
    parameters.push(body);
  }
  parameters.push(...operation.parameters.map(v2Parameter));
  const responses: Json = {};
  for (const response of operation.responses) {
    responses[response.code] =
      response.definition === undefined
        ? { description: response.description }
        : {
            description: response.description,
            schema: { $ref: `#/definitions/${response.definition}` },
          };
  }
  const result: Json = {
    description: operation.description,
    consumes: operation.body?.contentTypes ?? ['*/*'],
    produces: operation.produces,
    schemes: ['https'],
    tags: [operation.tag],
    operationId: operation.operationId,
  };
  if (parameters.length > 0) result.parameters = parameters;
  result.responses = responses;
  return { ...result, ...extensions(operation) };
}

function v3Operation(operation: Operation): Json {
  const result: Json = {
    tags: [operation.tag],
    description: operation.description,
    operationId: operation.operationId,
  };
  if (operation.parameters.length > 0) result.parameters = operation.parameters.map(v3Parameter);
  if (operation.body !== undefined) {
    const schema = { $ref: `#/components/schemas/${operation.body.definition}` };
    result.requestBody = {
      content: Object.fromEntries(operation.body.contentTypes.map((type) => [type, { schema }])),
      ...(operation.body.required ? { required: true } : {}),
    };
  }
  const responses: Json = {};
  for (const response of operation.responses) {
    if (response.definition === undefined) {
      responses[response.code] = { description: response.description };
      continue;
    }
    const schema = { $ref: `#/components/schemas/${response.definition}` };
    responses[response.code] = {
      description: response.description,
      content: Object.fromEntries(operation.produces.map((type) => [type, { schema }])),
    };
  }
  result.responses = responses;
  return { ...result, ...extensions(operation) };
}

function v2PathItem(item: PathItem): Json {
  const result: Json = {};
  for (const operation of item.operations) result[operation.method] = v2Operation(operation);
  result.parameters = item.parameters.map(v2Parameter);
  return result;
}

function v3PathItem(item: PathItem): Json {
  const result: Json = {};
  for (const operation of item.operations) result[operation.method] = v3Operation(operation);
  result.parameters = item.parameters.map(v3Parameter);
  return result;
}
