// The OpenAPI v2 document in protobuf, as client-go's `OpenAPISchema()` asks for it
// (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`): gnostic's `openapi.v2.Document` message,
// encoded field by field from the JSON document. kubectl falls back on it when a kind has no v3 document
// (an unknown kind in a manifest), and fails the command when it cannot be read. Values that are free-form
// JSON (vendor extensions, enum, default, example) travel as gnostic's `Any` with YAML text; JSON is YAML.
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { isRecord } from '../apimachinery/objects.ts';

type Json = Record<string, unknown>;

function text(writer: BinaryWriter, field: number, value: unknown): void {
  if (typeof value === 'string' && value !== '') {
    writer.tag(field, WireType.LengthDelimited).string(value);
  }
}

function texts(writer: BinaryWriter, field: number, value: unknown): void {
  if (!Array.isArray(value)) return;
  for (const item of value) {
    if (typeof item === 'string') writer.tag(field, WireType.LengthDelimited).string(item);
  }
}

function flag(writer: BinaryWriter, field: number, value: unknown): void {
  if (value === true) writer.tag(field, WireType.Varint).bool(true);
}

function number(writer: BinaryWriter, field: number, value: unknown): void {
  if (typeof value === 'number' && value !== 0) writer.tag(field, WireType.Bit64).double(value);
}

function integer(writer: BinaryWriter, field: number, value: unknown): void {
  if (typeof value === 'number' && value !== 0) writer.tag(field, WireType.Varint).int64(value);
}

function message(writer: BinaryWriter, field: number, write: (inner: BinaryWriter) => void): void {
  writer.tag(field, WireType.LengthDelimited).fork();
  write(writer);
  writer.join();
}

/** gnostic `Any`: the value as YAML text (field 2). */
function any(writer: BinaryWriter, field: number, value: unknown): void {
  message(writer, field, (inner) =>
    inner.tag(2, WireType.LengthDelimited).string(JSON.stringify(value)),
  );
}

/** `NamedAny` entries (field `field`) for the `x-` keys of `object`. */
function extensions(writer: BinaryWriter, field: number, object: Json): void {
  for (const [key, value] of Object.entries(object)) {
    if (!key.startsWith('x-')) continue;
    message(writer, field, (inner) => {
      text(inner, 1, key);
      any(inner, 2, value);
    });
  }
}

function schema(writer: BinaryWriter, value: Json): void {
  text(writer, 1, value.$ref);
  text(writer, 2, value.format);
  text(writer, 3, value.title);
  text(writer, 4, value.description);
  if (value.default !== undefined) any(writer, 5, value.default);
  number(writer, 6, value.multipleOf);
  number(writer, 7, value.maximum);
  flag(writer, 8, value.exclusiveMaximum);
  number(writer, 9, value.minimum);
  flag(writer, 10, value.exclusiveMinimum);
  integer(writer, 11, value.maxLength);
  integer(writer, 12, value.minLength);
  text(writer, 13, value.pattern);
  integer(writer, 14, value.maxItems);
  integer(writer, 15, value.minItems);
  flag(writer, 16, value.uniqueItems);
  integer(writer, 17, value.maxProperties);
  integer(writer, 18, value.minProperties);
  texts(writer, 19, value.required);
  if (Array.isArray(value.enum)) for (const item of value.enum) any(writer, 20, item);
  if (isRecord(value.additionalProperties)) {
    const nested = value.additionalProperties;
    message(writer, 21, (inner) => message(inner, 1, (deeper) => schema(deeper, nested)));
  } else if (typeof value.additionalProperties === 'boolean') {
    const allows = value.additionalProperties;
    message(writer, 21, (inner) => inner.tag(2, WireType.Varint).bool(allows));
  }
  if (value.type !== undefined) {
    const types = Array.isArray(value.type) ? value.type : [value.type];
    message(writer, 22, (inner) => texts(inner, 1, types));
  }
  if (value.items !== undefined) {
    const items = (Array.isArray(value.items) ? value.items : [value.items]).filter(isRecord);
    message(writer, 23, (inner) => {
      for (const item of items) message(inner, 1, (deeper) => schema(deeper, item));
    });
  }
  if (Array.isArray(value.allOf)) {
    for (const item of value.allOf.filter(isRecord))
      message(writer, 24, (inner) => schema(inner, item));
  }
  if (isRecord(value.properties)) {
    const properties = value.properties;
    message(writer, 25, (inner) => named(inner, 1, properties, schema));
  }
  text(writer, 26, value.discriminator);
  flag(writer, 27, value.readOnly);
  if (value.example !== undefined) any(writer, 30, value.example);
  extensions(writer, 31, value);
}

/** Repeated `Named*` entries (`name` = 1, `value` = 2) for each record-valued entry of `map`. */
function named(
  writer: BinaryWriter,
  field: number,
  map: Json,
  write: (inner: BinaryWriter, value: Json) => void,
): void {
  for (const [name, value] of Object.entries(map)) {
    if (!isRecord(value)) continue;
    message(writer, field, (inner) => {
      text(inner, 1, name);
      message(inner, 2, (deeper) => write(deeper, value));
    });
  }
}

function parameter(writer: BinaryWriter, value: Json): void {
  // ParametersItem.parameter (1) -> Parameter.body_parameter (1) | non_body_parameter (2).
  message(writer, 1, (item) => {
    if (value.in === 'body') {
      message(item, 1, (body) => {
        text(body, 1, value.description);
        text(body, 2, value.name);
        text(body, 3, value.in);
        flag(body, 4, value.required);
        if (isRecord(value.schema)) {
          const nested = value.schema;
          message(body, 5, (inner) => schema(inner, nested));
        }
      });
      return;
    }
    message(item, 2, (nonBody) => {
      // Query sub-schema is field 3 (type at 6, uniqueItems at 20), path sub-schema field 4 (5, 19).
      const path = value.in === 'path';
      message(nonBody, path ? 4 : 3, (sub) => {
        flag(sub, 1, value.required);
        text(sub, 2, value.in);
        text(sub, 3, value.description);
        text(sub, 4, value.name);
        text(sub, path ? 5 : 6, value.type);
        flag(sub, path ? 19 : 20, value.uniqueItems);
      });
    });
  });
}

function operation(writer: BinaryWriter, value: Json): void {
  texts(writer, 1, value.tags);
  text(writer, 2, value.summary);
  text(writer, 3, value.description);
  text(writer, 5, value.operationId);
  texts(writer, 6, value.produces);
  texts(writer, 7, value.consumes);
  if (Array.isArray(value.parameters)) {
    for (const item of value.parameters.filter(isRecord)) {
      message(writer, 8, (inner) => parameter(inner, item));
    }
  }
  if (isRecord(value.responses)) {
    const responses = value.responses;
    message(writer, 9, (inner) =>
      named(inner, 1, responses, (entry, response) =>
        // ResponseValue.response (1): description (1), schema (2) as SchemaItem.schema (1).
        message(entry, 1, (body) => {
          text(body, 1, response.description);
          if (isRecord(response.schema)) {
            const nested = response.schema;
            message(body, 2, (item) => message(item, 1, (deeper) => schema(deeper, nested)));
          }
        }),
      ),
    );
  }
  texts(writer, 10, value.schemes);
  flag(writer, 11, value.deprecated);
  extensions(writer, 13, value);
}

const methodFields: Record<string, number> = { get: 2, put: 3, post: 4, delete: 5, patch: 8 };

function pathItem(writer: BinaryWriter, value: Json): void {
  for (const [method, field] of Object.entries(methodFields)) {
    const body = value[method];
    if (isRecord(body)) message(writer, field, (inner) => operation(inner, body));
  }
  if (Array.isArray(value.parameters)) {
    for (const item of value.parameters.filter(isRecord)) {
      message(writer, 9, (inner) => parameter(inner, item));
    }
  }
  extensions(writer, 10, value);
}

/** The gnostic `openapi.v2.Document` encoding of an OpenAPI v2 JSON document. */
export function encodeV2Document(document: Json): Uint8Array {
  const writer = new BinaryWriter();
  text(writer, 1, document.swagger);
  if (isRecord(document.info)) {
    const info = document.info;
    message(writer, 2, (inner) => {
      text(inner, 1, info.title);
      text(inner, 2, info.version);
    });
  }
  if (isRecord(document.paths)) {
    const paths = document.paths;
    message(writer, 8, (inner) => named(inner, 2, paths, pathItem));
  }
  if (isRecord(document.definitions)) {
    const definitions = document.definitions;
    message(writer, 9, (inner) => named(inner, 1, definitions, schema));
  }
  if (Array.isArray(document.security)) {
    for (const requirement of document.security.filter(isRecord)) {
      message(writer, 12, (inner) => {
        for (const [name, scopes] of Object.entries(requirement)) {
          message(inner, 1, (entry) => {
            text(entry, 1, name);
            message(entry, 2, (array) => texts(array, 1, scopes));
          });
        }
      });
    }
  }
  if (isRecord(document.securityDefinitions)) {
    const definitions = document.securityDefinitions;
    message(writer, 13, (inner) =>
      named(inner, 1, definitions, (entry, security) =>
        // SecurityDefinitionsItem.api_key_security (2): type, name, in, description.
        message(entry, 2, (key) => {
          text(key, 1, security.type);
          text(key, 2, security.name);
          text(key, 3, security.in);
          text(key, 4, security.description);
        }),
      ),
    );
  }
  extensions(writer, 16, document);
  return writer.finish();
}
