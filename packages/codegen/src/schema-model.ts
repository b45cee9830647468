// From a CRD version's openAPIV3Schema to the declarations of a module: a tree of named interfaces and type
// expressions. Names are given later (assignNames), once every declaration of the module is known, so that
// collisions resolve the same way whatever order the CRDs came in.
import type { CrdVersion, JsonSchema } from './crd.ts';
import { describe, isRecord } from './crd.ts';
import { CodegenInputError } from './errors.ts';
import { pascalCase } from './naming.ts';

/** A type as written in a property or alias. */
export type TypeExpr =
  | { readonly t: 'text'; readonly text: string }
  | { readonly t: 'ref'; readonly decl: Decl }
  | { readonly t: 'union'; readonly members: readonly TypeExpr[] }
  | { readonly t: 'array'; readonly item: TypeExpr }
  | { readonly t: 'map'; readonly value: TypeExpr };

/** A property of an interface. */
export interface Prop {
  readonly key: string;
  readonly optional: boolean;
  readonly type: TypeExpr;
  readonly doc: readonly string[];
}

/** A named declaration: an interface (closed unless `open`) or a type alias. */
export interface Decl {
  /** The name it asks for; the one it gets may carry a number (see NameTable). */
  readonly baseName: string;
  /** 0: the kind's object type, 1: its List, Spec and Status, 2: nested types (claims go in this order). */
  tier: 0 | 1 | 2;
  doc: readonly string[];
  readonly body:
    | { readonly t: 'interface'; readonly props: readonly Prop[]; readonly open: boolean }
    | { readonly t: 'alias'; readonly type: TypeExpr };
  name: string;
}

export const text = (value: string): TypeExpr => ({ t: 'text', text: value });
const unknownType = text('unknown');
const closedEmpty = text('Record<string, never>');
const openMap: TypeExpr = { t: 'map', value: unknownType };

const types = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

interface Context {
  readonly version: CrdVersion;
  /** Where the kind's description says the type comes from, for nested interfaces' TSDoc. */
  readonly owner: string;
  readonly decls: Decl[];
}

function fail(ctx: Context, path: string, problem: string): never {
  throw new CodegenInputError(ctx.version.source, path, problem);
}

function keyPath(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key)
    ? `${path}.properties.${key}`
    : `${path}.properties[${JSON.stringify(key)}]`;
}

/** Check the fields the generator reads; anything else (validations, x-kubernetes-* list types) is ignored. */
function checkSchema(ctx: Context, schema: unknown, path: string): JsonSchema {
  if (!isRecord(schema))
    fail(ctx, path, `must be an object (a JSON schema), got ${describe(schema)}`);
  const { type, properties, required, items, additionalProperties, description } = schema;
  if (type !== undefined && (typeof type !== 'string' || !types.has(type))) {
    fail(ctx, `${path}.type`, `must be one of ${[...types].join(', ')}, got ${describe(type)}`);
  }
  if (properties !== undefined && !isRecord(properties)) {
    fail(ctx, `${path}.properties`, `must be an object, got ${describe(properties)}`);
  }
  if (
    required !== undefined &&
    (!Array.isArray(required) || required.some((entry) => typeof entry !== 'string'))
  ) {
    fail(ctx, `${path}.required`, 'must be a list of property names');
  }
  if (items !== undefined && !isRecord(items)) {
    fail(
      ctx,
      `${path}.items`,
      `must be one schema (a list of schemas is not structural), got ${describe(items)}`,
    );
  }
  if (
    additionalProperties !== undefined &&
    typeof additionalProperties !== 'boolean' &&
    !isRecord(additionalProperties)
  ) {
    fail(ctx, `${path}.additionalProperties`, `must be a schema or a boolean`);
  }
  if (properties !== undefined && isRecord(additionalProperties)) {
    fail(
      ctx,
      path,
      'properties and additionalProperties together are not a structural schema (the API server refuses it)',
    );
  }
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) {
    fail(ctx, `${path}.enum`, `must be a list, got ${describe(schema.enum)}`);
  }
  if (description !== undefined && typeof description !== 'string') {
    fail(ctx, `${path}.description`, `must be a string, got ${describe(description)}`);
  }
  for (const flag of [
    'nullable',
    'x-kubernetes-int-or-string',
    'x-kubernetes-preserve-unknown-fields',
    'x-kubernetes-embedded-resource',
  ]) {
    if (schema[flag] !== undefined && typeof schema[flag] !== 'boolean') {
      fail(ctx, `${path}.${flag}`, `must be true or false, got ${describe(schema[flag])}`);
    }
  }
  return schema;
}

/** The TSDoc lines of a schema used as a property: its description, format and default. */
export function docOf(schema: JsonSchema): string[] {
  const lines: string[] = [];
  if (typeof schema.description === 'string' && schema.description.trim() !== '') {
    lines.push(...schema.description.trim().split(/\r?\n/));
  }
  if (typeof schema.format === 'string' && schema.format !== '') {
    if (lines.length > 0) lines.push('');
    lines.push(`Format: \`${schema.format}\`${formatNotes[schema.format] ?? ''}.`);
  }
  if (schema.default !== undefined) {
    if (lines.length > 0) lines.push('');
    lines.push(`@defaultValue \`${JSON.stringify(schema.default)}\``);
  }
  return lines;
}

const formatNotes: Record<string, string> = {
  'date-time': ' (an RFC 3339 timestamp, kept as a string)',
  date: ' (an RFC 3339 full-date, kept as a string)',
  int64: ' (a number beyond 2^53 loses precision in JavaScript)',
  byte: ' (base64)',
};

function literal(value: unknown): TypeExpr | undefined {
  if (value === null) return text('null');
  if (typeof value === 'string') return text(quote(value));
  if (typeof value === 'number' && Number.isFinite(value)) return text(String(value));
  if (typeof value === 'boolean') return text(String(value));
  return undefined;
}

function quote(value: string): string {
  // JSON escapes are valid in a TypeScript string; single quotes as the project's formatter writes them.
  const json = JSON.stringify(value).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'");
  return `'${json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')}'`;
}

function union(members: TypeExpr[]): TypeExpr {
  const seen = new Set<string>();
  const flat: TypeExpr[] = [];
  for (const member of members.flatMap((m) => (m.t === 'union' ? m.members : [m]))) {
    const key = member.t === 'text' ? member.text : undefined;
    if (key !== undefined) {
      if (seen.has(key)) continue;
      seen.add(key);
    }
    flat.push(member);
  }
  return flat.length === 1 ? (flat[0] as TypeExpr) : { t: 'union', members: flat };
}

/** The type of `schema` at `path`; nested object types are named `name` (or after it). */
function typeOf(ctx: Context, raw: unknown, path: string, name: string, where: string): TypeExpr {
  const schema = checkSchema(ctx, raw, path);
  let base: TypeExpr;
  const enumValues = Array.isArray(schema.enum) ? schema.enum.map(literal) : undefined;
  if (schema['x-kubernetes-int-or-string'] === true) {
    base = union([text('number'), text('string')]);
  } else if (enumValues !== undefined && enumValues.length > 0 && enumValues.every((v) => v)) {
    base = union(enumValues as TypeExpr[]);
  } else {
    switch (schema.type) {
      case 'string':
        base = text('string');
        break;
      case 'integer':
      case 'number':
        base = text('number');
        break;
      case 'boolean':
        base = text('boolean');
        break;
      case 'array':
        base =
          schema.items === undefined
            ? { t: 'array', item: unknownType }
            : {
                t: 'array',
                item: typeOf(ctx, schema.items, `${path}.items`, `${name}Item`, `${where}[]`),
              };
        break;
      case 'object':
        base = objectType(ctx, schema, path, name, where);
        break;
      default:
        // No type: any JSON value, unless the schema still lists properties (then it is an object).
        base =
          schema.properties !== undefined || schema['x-kubernetes-embedded-resource'] === true
            ? objectType(ctx, schema, path, name, where)
            : unknownType;
    }
  }
  return schema.nullable === true ? union([base, text('null')]) : base;
}

function objectType(
  ctx: Context,
  schema: JsonSchema,
  path: string,
  name: string,
  where: string,
): TypeExpr {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const keys = Object.keys(properties).sort();
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  const open =
    schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
  if (keys.length > 0 || embedded) {
    // The declaration is pushed before its children so that the module reads top-down.
    const props: Prop[] = [];
    const decl: Decl = {
      baseName: name,
      tier: 2,
      doc: [`\`${where}\` of ${ctx.owner}.`],
      body: { t: 'interface', props, open },
      name: '',
    };
    ctx.decls.push(decl);
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    if (embedded) {
      // An embedded resource always has these, checked by the API server whatever the schema lists.
      for (const [key, type] of [
        ['apiVersion', 'string'],
        ['kind', 'string'],
        ['metadata', 'ObjectMeta'],
      ] as const) {
        if (!keys.includes(key)) props.push({ key, optional: true, type: text(type), doc: [] });
      }
    }
    for (const key of keys) {
      const child = properties[key];
      const childPath = keyPath(path, key);
      const childSchema = checkSchema(ctx, child, childPath);
      const type =
        embedded && key === 'metadata'
          ? text('ObjectMeta')
          : typeOf(ctx, childSchema, childPath, `${name}${pascalCase(key)}`, `${where}.${key}`);
      props.push({ key, optional: !required.has(key), type, doc: docOf(childSchema) });
    }
    if (embedded) props.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { t: 'ref', decl };
  }
  let type: TypeExpr;
  if (isRecord(schema.additionalProperties)) {
    type = {
      t: 'map',
      value: typeOf(
        ctx,
        schema.additionalProperties,
        `${path}.additionalProperties`,
        `${name}Value`,
        `${where}[*]`,
      ),
    };
  } else {
    // Without properties an object keeps nothing unless it preserves unknown fields: the API server prunes.
    type = open ? openMap : closedEmpty;
  }
  return type;
}

/** The declarations of one kind at one version. */
export interface KindModel {
  readonly version: CrdVersion;
  readonly typeBase: string;
  readonly object: Decl;
  readonly list: Decl;
  /** Every declaration of the kind, the object and list first, then top-down. */
  readonly decls: readonly Decl[];
}

/** Build the declarations of one CRD version: the object, its List, Spec, Status and nested types. */
export function kindModel(version: CrdVersion): KindModel {
  const typeBase = pascalCase(version.kind);
  const apiVersion = `${version.group}/${version.version}`;
  const ctx: Context = { version, owner: `${version.kind} (${apiVersion})`, decls: [] };
  const root = checkSchema(ctx, version.schema, version.schemaPath);
  const properties = isRecord(root.properties) ? root.properties : {};
  const required = new Set(Array.isArray(root.required) ? (root.required as string[]) : []);
  const props: Prop[] = [
    {
      key: 'apiVersion',
      optional: true,
      type: text(quote(apiVersion)),
      doc: [`The API version of this object: \`${apiVersion}\`.`],
    },
    {
      key: 'kind',
      optional: true,
      type: text(quote(version.kind)),
      doc: [`The kind of this object: \`${version.kind}\`.`],
    },
    {
      key: 'metadata',
      optional: !required.has('metadata'),
      type: text('ObjectMeta'),
      doc: ['Standard object metadata.'],
    },
  ];
  const objectDoc: string[] = [];
  if (typeof root.description === 'string' && root.description.trim() !== '') {
    objectDoc.push(...root.description.trim().split(/\r?\n/), '');
  }
  objectDoc.push(
    `An object of kind ${version.kind} (${apiVersion}, ${version.namespaced ? 'namespaced' : 'cluster-scoped'}; CRD \`${version.crdName}\`).`,
  );
  if (version.deprecated !== undefined) {
    objectDoc.push('', `@deprecated ${version.deprecated || `${apiVersion} is deprecated.`}`);
  }
  const object: Decl = {
    baseName: typeBase,
    tier: 0,
    doc: objectDoc,
    body: {
      t: 'interface',
      props,
      open: root['x-kubernetes-preserve-unknown-fields'] === true,
    },
    name: '',
  };
  const list: Decl = {
    baseName: `${typeBase}List`,
    tier: 1,
    doc: [`A list of ${version.kind} objects, as a list call returns it.`],
    body: {
      t: 'interface',
      props: [
        { key: 'apiVersion', optional: true, type: text(quote(apiVersion)), doc: [] },
        { key: 'kind', optional: true, type: text(quote(version.listKind)), doc: [] },
        { key: 'metadata', optional: true, type: text('ListMeta'), doc: [] },
        {
          key: 'items',
          optional: false,
          type: { t: 'array', item: { t: 'ref', decl: object } },
          doc: [],
        },
      ],
      open: false,
    },
    name: '',
  };
  for (const key of Object.keys(properties).sort()) {
    if (key === 'apiVersion' || key === 'kind' || key === 'metadata') continue;
    const childPath = keyPath(version.schemaPath, key);
    const child = checkSchema(ctx, properties[key], childPath);
    const name = `${typeBase}${pascalCase(key)}`;
    // spec and status are always named (<Kind>Spec, <Kind>Status), whatever their shape.
    const type =
      key === 'spec' || key === 'status'
        ? namedType(ctx, child, childPath, name, key)
        : typeOf(ctx, child, childPath, name, key);
    props.push(prop(key, required, type, child));
  }
  return { version, typeBase, object, list, decls: [object, list, ...ctx.decls] };
}

function namedType(
  ctx: Context,
  schema: JsonSchema,
  path: string,
  name: string,
  where: string,
): TypeExpr {
  const start = ctx.decls.length;
  const type = typeOf(ctx, schema, path, name, where);
  const first = ctx.decls[start];
  const core = type.t === 'union' ? type.members.find((member) => member.t === 'ref') : type;
  if (first !== undefined && core?.t === 'ref' && core.decl === first) {
    first.tier = 1;
    first.doc = docFor(schema, first.doc);
    return type;
  }
  const decl: Decl = {
    baseName: name,
    tier: 1,
    doc: docFor(schema, [`\`${where}\` of ${ctx.owner}.`]),
    body: { t: 'alias', type },
    name: '',
  };
  ctx.decls.splice(start, 0, decl);
  return { t: 'ref', decl };
}

function prop(key: string, required: Set<string>, type: TypeExpr, schema: JsonSchema): Prop {
  return { key, optional: !required.has(key), type, doc: docOf(schema) };
}

function docFor(schema: JsonSchema, fallback: readonly string[]): string[] {
  const lines = docOf(schema).filter((line) => !line.startsWith('@defaultValue'));
  return lines.length > 0 ? lines : [...fallback];
}
