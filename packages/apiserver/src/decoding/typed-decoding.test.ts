import { describe, expect, it } from 'vitest';
import { typeDefinitionFor, typeDefinitions } from '../types/index.ts';
import type { TypeDefinition } from '../types/type-definition.ts';
import { nonNumericPaths, unstructuredConversionError } from './typed-conversion.ts';
import { jsonDecodingError, numberLiterals, quantityError, timeError } from './typed-decoding.ts';

const lookup = (name: string) => typeDefinitions.get(name);
const deploymentType = typeDefinitionFor('apps', 'v1', 'Deployment')!;

function decode(object: Record<string, unknown>, text?: string): string | undefined {
  return jsonDecodingError(
    lookup,
    deploymentType,
    object,
    text === undefined ? undefined : numberLiterals(text),
  );
}

describe('jsonDecodingError', () => {
  it('decodes a well-typed Deployment, nulls and undeclared fields', () => {
    expect(
      decode({
        apiVersion: 'apps/v1',
        metadata: { name: 'x', labels: { a: 'b' }, deletionTimestamp: null },
        spec: {
          replicas: 3,
          unknown: { any: [1, 'two'] },
          template: {
            spec: {
              terminationGracePeriodSeconds: null,
              containers: [
                {
                  name: 'c',
                  ports: [{ containerPort: 80 }],
                  resources: { limits: { cpu: 1.5, memory: '1Gi' } },
                  livenessProbe: { httpGet: { port: 'http' } },
                },
              ],
            },
          },
        },
      }),
    ).toBeUndefined();
  });

  it('names the innermost struct and the path without indices, as encoding/json does', () => {
    expect(
      decode({
        spec: { template: { spec: { containers: [{ name: 'c' }, { env: [{ value: 5 }] }] } } },
      }),
    ).toBe(
      'json: cannot unmarshal number into Go struct field EnvVar.spec.template.spec.containers.env.value of type string',
    );
  });

  it('words numbers as written in the body', () => {
    const text = '{"spec":{"replicas":1e12,"minReadySeconds":3.0}}';
    expect(decode(JSON.parse(text), text)).toBe(
      'json: cannot unmarshal number 1e12 into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    const whole = '{"spec":{"minReadySeconds":3.0}}';
    expect(decode(JSON.parse(whole), whole)).toContain('number 3.0 into');
  });

  it('keeps int64 exact past 2^53 and refuses past its range', () => {
    const fits = '{"spec":{"template":{"spec":{"activeDeadlineSeconds":9223372036854775807}}}}';
    expect(decode(JSON.parse(fits), fits)).toBeUndefined();
    const over = '{"spec":{"template":{"spec":{"activeDeadlineSeconds":9223372036854775808}}}}';
    expect(decode(JSON.parse(over), over)).toBe(
      'json: cannot unmarshal number 9223372036854775808 into Go struct field PodSpec.spec.template.spec.activeDeadlineSeconds of type int64',
    );
  });

  it('reports the first mismatch, unless a type of its own stops decoding later', () => {
    expect(decode({ spec: { replicas: 'x', paused: 'y' } })).toContain('spec.replicas');
    expect(
      decode({
        spec: {
          replicas: 'x',
          template: { spec: { containers: [{ resources: { limits: { cpu: true } } }] } },
        },
      }),
    ).toMatch(/^quantities must match/);
  });

  it('checks every top-level kind of the table against a field of the wrong type', () => {
    const kinds = [...typeDefinitions.values()].filter((definition) =>
      definition.fields.some(
        (field) =>
          field.json === 'metadata' &&
          typeof field.type === 'object' &&
          'message' in field.type &&
          field.type.message.endsWith('.ObjectMeta'),
      ),
    );
    expect(kinds.length).toBeGreaterThan(30);
    for (const kind of kinds) {
      expect(jsonDecodingError(lookup, kind, {}), kind.name).toBeUndefined();
      expect(jsonDecodingError(lookup, kind, { metadata: { name: 7 } }), kind.name).toBe(
        'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string',
      );
    }
  });

  it('leaves RawExtension and apiextensions JSON fields alone', () => {
    const crd = typeDefinitionFor('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition')!;
    const schema = { type: 'object', default: 5, enum: [{}, 1], additionalProperties: false };
    expect(
      jsonDecodingError(lookup, crd, {
        spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: schema } }] },
      }),
    ).toBeUndefined();
    const managed = { metadata: { managedFields: [{ fieldsV1: { 'f:x': 1 } }] } };
    expect(jsonDecodingError(lookup, deploymentType, managed)).toBeUndefined();
  });
});

describe('Go value parsers', () => {
  it.for([
    ['1', undefined],
    ['1.5Gi', undefined],
    ['100m', undefined],
    ['1e3', undefined],
    ['abc', 'quantities must match'],
    ['', 'quantities must match'],
    ['1.2.3', 'unable to parse numeric part of quantity'],
    ['1iK', "unable to parse quantity's suffix"],
  ] as const)('quantity %s', ([text, error]) => {
    const result = quantityError(text);
    if (error === undefined) expect(result).toBeUndefined();
    else expect(result).toContain(error);
  });

  it('parses RFC 3339 times and words the element it stopped at', () => {
    expect(timeError('2024-01-02T03:04:05Z')).toBeUndefined();
    expect(timeError('2024-01-02T03:04:05.123+02:00')).toBeUndefined();
    expect(timeError('2024-01-02')).toBe(
      'parsing time "2024-01-02" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"',
    );
  });
});

describe('unstructuredConversionError', () => {
  const convert = (object: Record<string, unknown>, definition: TypeDefinition = deploymentType) =>
    unstructuredConversionError(lookup, definition, object);

  it('words mismatches as the unstructured converter does', () => {
    expect(convert({ spec: { replicas: 'three' } })).toBe('unrecognized type: int32');
    expect(convert({ spec: { replicas: 2.5 } })).toBe('cannot convert float64 to int32');
    expect(convert({ spec: { replicas: 2 } })).toBeUndefined();
    expect(convert({ spec: { strategy: 'x' } })).toBe('cannot restore struct from: string');
    expect(
      convert({ spec: { template: { spec: { containers: [{ env: [{ value: { x: 1 } }] }] } } } }),
    ).toBe('unrecognized type: string');
    expect(convert({ metadata: { labels: { a: 1 } } })).toBe('cannot convert int64 to string');
  });
});

describe('nonNumericPaths', () => {
  it('lists the numeric fields of an apply configuration holding no number', () => {
    expect(
      nonNumericPaths(lookup, deploymentType, {
        spec: {
          replicas: 'three',
          template: { spec: { containers: [{ ports: [{ containerPort: '80' }] }] } },
        },
      }),
    ).toEqual(['spec.replicas', 'spec.template.spec.containers[0].ports[0].containerPort']);
  });
});
