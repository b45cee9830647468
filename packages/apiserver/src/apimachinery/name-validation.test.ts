import { describe, expect, it } from 'vitest';
import {
  dns1035LabelMessages,
  dns1123LabelMessages,
  invalidStatusMessage,
  isDnsLabel,
  isDnsSubdomain,
  pathSegmentNameMessages,
  qualifiedNameMessages,
  validateObjectMeta,
} from './name-validation.ts';

const subdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('isDnsSubdomain', () => {
  it('accepts lower-case dotted names up to 253 characters', () => {
    expect(isDnsSubdomain('example.com')).toBe(true);
    expect(isDnsSubdomain('a')).toBe(true);
    expect(isDnsSubdomain('0-1.b')).toBe(true);
    expect(
      isDnsSubdomain(`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`),
    ).toBe(true);
  });

  it('rejects upper case, edges that are not alphanumeric, empty labels and more than 253 characters', () => {
    for (const bad of ['', 'Web', '-web', 'web-', 'web.', 'a..b', 'a_b', `${'a'.repeat(254)}`]) {
      expect(isDnsSubdomain(bad), bad).toBe(false);
    }
  });
});

describe('isDnsLabel', () => {
  it('accepts names up to 63 characters without dots', () => {
    expect(isDnsLabel('kube-system')).toBe(true);
    expect(isDnsLabel('a'.repeat(63))).toBe(true);
    expect(isDnsLabel('a'.repeat(64))).toBe(false);
    expect(isDnsLabel('a.b')).toBe(false);
  });

  it('says "must not contain dots" for a valid subdomain that is not a label', () => {
    expect(dns1123LabelMessages('a.b')).toEqual(['must not contain dots']);
    expect(dns1123LabelMessages('A')[0]).toMatch(/^a lowercase RFC 1123 label must consist/);
  });
});

describe('qualifiedNameMessages', () => {
  it('accepts names with an optional DNS subdomain prefix', () => {
    expect(qualifiedNameMessages('app.kubernetes.io/Name_1')).toEqual([]);
    expect(qualifiedNameMessages('a')).toEqual([]);
  });

  it('names the part that is wrong', () => {
    expect(qualifiedNameMessages('Bad.Prefix/x')).toEqual([`prefix part ${subdomainMessage}`]);
    expect(qualifiedNameMessages('x/')).toEqual([
      'name part must be non-empty',
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
  });
});

describe('pathSegmentNameMessages', () => {
  it('rejects . and .. and names containing / or %', () => {
    expect(pathSegmentNameMessages('.')).toEqual(["may not be '.'"]);
    expect(pathSegmentNameMessages('..')).toEqual(["may not be '..'"]);
    expect(pathSegmentNameMessages('a/b%c')).toEqual([
      "may not contain '/'",
      "may not contain '%'",
    ]);
    expect(pathSegmentNameMessages('system:controller:Foo')).toEqual([]);
  });
});

describe('dns1035LabelMessages', () => {
  it('requires an alphabetic first character', () => {
    expect(dns1035LabelMessages('web-1')).toEqual([]);
    expect(dns1035LabelMessages('1web')[0]).toMatch(/start with an alphabetic character/);
  });
});

describe('validateObjectMeta', () => {
  const namespaced = { namespaced: true, nameRule: 'subdomain' } as const;

  it('accepts a well-formed object meta', () => {
    expect(
      validateObjectMeta(
        {
          name: 'web',
          namespace: 'default',
          labels: { 'app.kubernetes.io/name': 'web', empty: '' },
          annotations: { 'Example.COM/Note': 'anything goes here: ✓' },
          finalizers: ['example.com/cleanup', 'kubernetes'],
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: 'web-1',
              uid: 'u1',
              controller: true,
            },
          ],
        },
        namespaced,
      ),
    ).toEqual([]);
  });

  it('requires a name or generateName', () => {
    expect(validateObjectMeta({ namespace: 'default' }, namespaced)).toEqual([
      {
        type: 'FieldValueRequired',
        field: 'metadata.name',
        message: 'Required value: name or generateName is required',
      },
    ]);
    expect(validateObjectMeta({ generateName: 'web-', namespace: 'default' }, namespaced)).toEqual(
      [],
    );
  });

  it('reports an invalid name with the subdomain message', () => {
    expect(validateObjectMeta({ name: 'Web', namespace: 'default' }, namespaced)).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: "Web": ${subdomainMessage}`,
      },
    ]);
  });

  it('checks generateName as a prefix, so a trailing dash is allowed but a bad start is not', () => {
    expect(
      validateObjectMeta({ generateName: 'Web-', namespace: 'default' }, namespaced)[0],
    ).toMatchObject({
      field: 'metadata.generateName',
      message: `Invalid value: "Web-": ${subdomainMessage}`,
    });
  });

  it('applies the label rule to namespaces and the path-segment rule where asked', () => {
    expect(validateObjectMeta({ name: 'a.b' }, { namespaced: false, nameRule: 'label' })).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'metadata.name',
        message: 'Invalid value: "a.b": must not contain dots',
      },
    ]);
    expect(
      validateObjectMeta({ name: 'system:admin' }, { namespaced: false, nameRule: 'path-segment' }),
    ).toEqual([]);
    expect(
      validateObjectMeta({ name: 'a/b' }, { namespaced: false, nameRule: 'path-segment' }),
    ).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: "a/b": may not contain '/'`,
      },
    ]);
  });

  it('requires and validates the namespace of namespaced objects only', () => {
    expect(validateObjectMeta({ name: 'a' }, namespaced)).toEqual([
      { type: 'FieldValueRequired', field: 'metadata.namespace', message: 'Required value' },
    ]);
    expect(validateObjectMeta({ name: 'a', namespace: 'Bad' }, namespaced)[0]?.field).toBe(
      'metadata.namespace',
    );
    expect(validateObjectMeta({ name: 'a' }, { namespaced: false, nameRule: 'subdomain' })).toEqual(
      [],
    );
  });

  it('reports bad label keys and values on metadata.labels', () => {
    const causes = validateObjectMeta(
      { name: 'a', namespace: 'd', labels: { '-k': 'v', k: 'bad value' } },
      namespaced,
    );
    expect(causes.map((c) => [c.field, c.message.slice(0, 28)])).toEqual([
      ['metadata.labels', 'Invalid value: "-k": name pa'],
      ['metadata.labels', 'Invalid value: "bad value": '],
    ]);
    expect(causes[1]?.message).toContain('a valid label must be an empty string');
  });

  it('rejects annotations larger than 256 KiB in total', () => {
    const big = { a: 'x'.repeat(128 * 1024), b: 'y'.repeat(128 * 1024) };
    expect(validateObjectMeta({ name: 'a', namespace: 'd', annotations: big }, namespaced)).toEqual(
      [
        {
          type: 'FieldValueTooLong',
          field: 'metadata.annotations',
          message: 'Too long: may not be more than 262144 bytes',
        },
      ],
    );
    expect(
      validateObjectMeta(
        { name: 'a', namespace: 'd', annotations: { a: 'x'.repeat(256 * 1024 - 1) } },
        namespaced,
      ),
    ).toEqual([]);
  });

  it('reports bad finalizers, incomplete owner references and two controllers', () => {
    const causes = validateObjectMeta(
      {
        name: 'a',
        namespace: 'd',
        finalizers: ['bad finalizer'],
        ownerReferences: [
          { apiVersion: 'v1', kind: 'A', name: 'x', uid: '1', controller: true },
          { apiVersion: 'apps/', kind: '', name: '', uid: '', controller: true },
        ],
      },
      namespaced,
    );
    expect(causes.map((c) => c.field)).toEqual([
      'metadata.finalizers',
      'metadata.ownerReferences.apiVersion',
      'metadata.ownerReferences.kind',
      'metadata.ownerReferences.name',
      'metadata.ownerReferences.uid',
      'metadata.ownerReferences',
    ]);
    expect(causes[5]?.message).toContain('Only one reference can have Controller set to true');
  });

  it('never throws on malformed metadata', () => {
    for (const metadata of [
      undefined,
      null,
      'x',
      [],
      { name: 5, labels: 'x', annotations: [], finalizers: {} },
    ]) {
      expect(() => validateObjectMeta(metadata, namespaced)).not.toThrow();
    }
    expect(
      validateObjectMeta({ name: 'a', namespace: 'd', labels: { k: 1 } }, namespaced)[0]?.field,
    ).toBe('metadata.labels[k]');
  });
});

describe('invalidStatusMessage', () => {
  it('formats one cause inline and several in brackets, as kube-apiserver does', () => {
    const causes = validateObjectMeta({ name: 'Web' }, { namespaced: true, nameRule: 'subdomain' });
    expect(invalidStatusMessage('ConfigMap', 'Web', causes.slice(0, 1))).toBe(
      `ConfigMap "Web" is invalid: metadata.name: Invalid value: "Web": ${subdomainMessage}`,
    );
    expect(invalidStatusMessage('Deployment.apps', 'Web', causes)).toBe(
      `Deployment.apps "Web" is invalid: [metadata.name: Invalid value: "Web": ${subdomainMessage}, metadata.namespace: Required value]`,
    );
  });
});
