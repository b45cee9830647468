import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { describe, expect, it } from 'vitest';
import { typeDefinitions } from '../types/index.ts';
import { decodeMessage } from './message-decoder.ts';
import { ProtobufDecodeError } from './protobuf-decode-error.ts';

// Messages are written field by field with @bufbuild/protobuf's BinaryWriter, as gogo-protobuf lays them
// out, so these tests do not lean on this package's own encoder.
type Build = (writer: BinaryWriter) => void;

function message(build: Build): Uint8Array {
  const writer = new BinaryWriter();
  build(writer);
  return writer.finish();
}

function nested(writer: BinaryWriter, number: number, build: Build): void {
  writer.tag(number, WireType.LengthDelimited).bytes(message(build));
}

function text(writer: BinaryWriter, number: number, value: string): void {
  writer.tag(number, WireType.LengthDelimited).string(value);
}

function entry(writer: BinaryWriter, number: number, key: string, value: Build): void {
  nested(writer, number, (inner) => {
    text(inner, 1, key);
    value(inner);
  });
}

function decode(name: string, build: Build): Record<string, unknown> {
  const definition = typeDefinitions.get(`io.k8s.${name}`);
  if (definition === undefined) throw new TypeError(name);
  return decodeMessage(message(build), definition);
}

describe('decodeMessage()', () => {
  describe('zero values', () => {
    it('keeps a pointer zero and drops an omitempty zero', () => {
      const secret = decode('api.core.v1.Secret', (writer) => {
        text(writer, 3, ''); // type: string, omitempty
        writer.tag(5, WireType.Varint).bool(false); // immutable: *bool
      });
      expect(secret).toStrictEqual({ immutable: false });
    });

    it("keeps a CRD schema's zero bounds, which are Go pointers", () => {
      const schema = decode(
        'apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps',
        (writer) => {
          text(writer, 5, 'integer');
          writer.tag(11, WireType.Bit64).double(0); // minimum: *float64
          writer.tag(13, WireType.Varint).int64(0); // maxLength: *int64
          writer.tag(10, WireType.Varint).bool(false); // exclusiveMaximum: bool, omitempty
        },
      );
      expect(schema).toStrictEqual({ type: 'integer', minimum: 0, maxLength: 0 });
    });

    it('keeps the zero of a field without omitempty', () => {
      const port = decode('api.core.v1.ContainerPort', (writer) => {
        writer.tag(2, WireType.Varint).int32(0); // hostPort, omitempty
        writer.tag(3, WireType.Varint).int32(0); // containerPort, no omitempty
      });
      expect(port).toStrictEqual({ containerPort: 0 });
    });

    it('writes null for an empty slice without omitempty, as Go does', () => {
      expect(decode('api.rbac.v1.ClusterRole', () => {})).toStrictEqual({ rules: null });
    });

    it('writes an empty non-pointer struct as an empty object', () => {
      const deployment = decode('api.apps.v1.Deployment', (writer) => {
        nested(writer, 3, () => {}); // status
      });
      expect(deployment).toStrictEqual({ status: {} });
    });
  });

  describe('maps', () => {
    it('sorts keys as Go does and keeps empty values', () => {
      const meta = decode('apimachinery.pkg.apis.meta.v1.ObjectMeta', (writer) => {
        entry(writer, 11, 'zeta', (inner) => text(inner, 2, 'z'));
        entry(writer, 11, 'alpha', (inner) => text(inner, 2, 'a'));
        entry(writer, 11, 'empty', () => {});
      });
      expect(Object.keys(meta.labels as object)).toEqual(['alpha', 'empty', 'zeta']);
      expect(meta.labels).toStrictEqual({ alpha: 'a', empty: '', zeta: 'z' });
    });

    it('writes bytes values as base64', () => {
      const configMap = decode('api.core.v1.ConfigMap', (writer) => {
        entry(writer, 3, 'bin', (inner) =>
          inner.tag(2, WireType.LengthDelimited).bytes(Uint8Array.of(0, 255, 1)),
        );
      });
      expect(configMap.binaryData).toStrictEqual({ bin: 'AP8B' });
    });

    it('writes quantities as their text, an empty one as 0', () => {
      const requirements = decode('api.core.v1.ResourceRequirements', (writer) => {
        entry(writer, 1, 'cpu', (inner) => nested(inner, 2, (q) => text(q, 1, '500m')));
        entry(writer, 1, 'memory', (inner) => nested(inner, 2, () => {}));
      });
      expect(requirements.limits).toStrictEqual({ cpu: '500m', memory: '0' });
    });
  });

  describe('apimachinery types', () => {
    it('writes a zero time as null and a set one as RFC 3339 UTC seconds', () => {
      const meta = decode('apimachinery.pkg.apis.meta.v1.ObjectMeta', (writer) => {
        nested(writer, 8, () => {}); // creationTimestamp: zero
        nested(writer, 9, (time) => {
          time.tag(1, WireType.Varint).int64(1_700_000_000);
          time.tag(2, WireType.Varint).int32(123_456_789);
        });
      });
      expect(meta).toStrictEqual({
        creationTimestamp: null,
        deletionTimestamp: '2023-11-14T22:13:20Z',
      });
    });

    it('writes a MicroTime with six fractional digits', () => {
      const event = decode('api.core.v1.Event', (writer) => {
        nested(writer, 10, (time) => {
          time.tag(1, WireType.Varint).int64(1_700_000_000);
          time.tag(2, WireType.Varint).int32(1_234_000);
        });
      });
      expect(event.eventTime).toBe('2023-11-14T22:13:20.001234Z');
    });

    it('writes an IntOrString as a number or a string by its type', () => {
      const strategy = decode('api.apps.v1.RollingUpdateDeployment', (writer) => {
        nested(writer, 1, (value) => {
          value.tag(1, WireType.Varint).int64(0);
          value.tag(2, WireType.Varint).int32(2);
        });
        nested(writer, 2, (value) => {
          value.tag(1, WireType.Varint).int64(1);
          text(value, 3, '25%');
        });
      });
      expect(strategy).toStrictEqual({ maxUnavailable: 2, maxSurge: '25%' });
    });

    it('writes raw JSON (FieldsV1) as the object it holds', () => {
      const entryObject = decode('apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry', (writer) => {
        text(writer, 1, 'kubectl');
        nested(writer, 7, (raw) =>
          raw.tag(1, WireType.LengthDelimited).bytes(Buffer.from('{"f:data":{".":{}}}')),
        );
      });
      expect(entryObject).toStrictEqual({
        manager: 'kubectl',
        fieldsV1: { 'f:data': { '.': {} } },
      });
    });
  });

  describe('repeated fields', () => {
    it('reads packed and unpacked int32 lists alike', () => {
      const packed = decode('api.batch.v1.PodFailurePolicyOnExitCodesRequirement', (writer) => {
        writer.tag(3, WireType.LengthDelimited).fork().int32(1).int32(-2).int32(300).join();
      });
      const unpacked = decode('api.batch.v1.PodFailurePolicyOnExitCodesRequirement', (writer) => {
        for (const value of [1, -2, 300]) writer.tag(3, WireType.Varint).int32(value);
      });
      expect(packed.values).toStrictEqual([1, -2, 300]);
      expect(unpacked.values).toStrictEqual([1, -2, 300]);
    });

    it('reads repeated messages with their own repeated strings', () => {
      const role = decode('api.rbac.v1.Role', (writer) => {
        nested(writer, 2, (rule) => {
          text(rule, 1, 'get');
          text(rule, 1, 'list');
          text(rule, 2, '');
          text(rule, 3, 'pods');
        });
        nested(writer, 2, (rule) => text(rule, 1, 'watch'));
      });
      expect(role.rules).toStrictEqual([
        { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['watch'] },
      ]);
    });
  });

  it('puts an inline struct members into the parent object', () => {
    const volume = decode('api.core.v1.Volume', (writer) => {
      text(writer, 1, 'data');
      nested(writer, 2, (source) => nested(source, 2, (emptyDir) => text(emptyDir, 1, 'Memory')));
    });
    expect(volume).toStrictEqual({ name: 'data', emptyDir: { medium: 'Memory' } });
  });

  it('skips fields it does not know, of every wire type', () => {
    const configMap = decode('api.core.v1.ConfigMap', (writer) => {
      writer.tag(90, WireType.Varint).int64(7);
      writer.tag(91, WireType.Bit32).fixed32(7);
      writer.tag(92, WireType.Bit64).fixed64(7);
      text(writer, 93, 'ignored');
      entry(writer, 2, 'kept', (inner) => text(inner, 2, 'yes'));
    });
    expect(configMap).toStrictEqual({ data: { kept: 'yes' } });
  });

  describe('malformed messages', () => {
    it('reports a truncated message as unexpected EOF', () => {
      const bytes = message((writer) => text(writer, 1, 'a-name'));
      const definition = typeDefinitions.get('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')!;
      expect(() => decodeMessage(bytes.subarray(0, bytes.length - 2), definition)).toThrow(
        new ProtobufDecodeError('unexpected EOF'),
      );
    });

    it('reports a known field sent with the wrong wire type', () => {
      const definition = typeDefinitions.get('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')!;
      const bytes = message((writer) => writer.tag(1, WireType.Varint).int32(3));
      expect(() => decodeMessage(bytes, definition)).toThrow(
        'proto: wrong wireType = 0 for field name',
      );
    });

    it('reports a zero field number as an illegal tag', () => {
      const definition = typeDefinitions.get('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')!;
      expect(() => decodeMessage(Uint8Array.of(0, 0), definition)).toThrow(
        'proto: ObjectMeta: illegal tag 0 (wire type 0)',
      );
    });
  });
});
