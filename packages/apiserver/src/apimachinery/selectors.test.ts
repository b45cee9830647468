import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  matchesFieldSelector,
  matchesLabelSelector,
  parseFieldSelector,
  parseLabelSelector,
  SelectorParseError,
} from './selectors.ts';

const parseError = (selector: string): string => {
  try {
    parseLabelSelector(selector);
  } catch (error) {
    expect(error).toBeInstanceOf(SelectorParseError);
    return (error as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(selector)} to be rejected`);
};

describe('parseLabelSelector', () => {
  it('parses every operator of the grammar', () => {
    expect(parseLabelSelector('a=b,c==d,e!=f,g in (y,x),h notin (z),i,!j,k>1,l<20')).toEqual([
      { key: 'a', operator: '=', values: ['b'] },
      { key: 'c', operator: '==', values: ['d'] },
      { key: 'e', operator: '!=', values: ['f'] },
      { key: 'g', operator: 'in', values: ['x', 'y'] },
      { key: 'h', operator: 'notin', values: ['z'] },
      { key: 'i', operator: 'exists', values: [] },
      { key: 'j', operator: '!', values: [] },
      { key: 'k', operator: 'gt', values: ['1'] },
      { key: 'l', operator: 'lt', values: ['20'] },
    ]);
  });

  it('tolerates whitespace around tokens', () => {
    expect(parseLabelSelector('  env in ( prod , dev ) ,  tier = web , ! legacy ')).toEqual([
      { key: 'env', operator: 'in', values: ['dev', 'prod'] },
      { key: 'tier', operator: '=', values: ['web'] },
      { key: 'legacy', operator: '!', values: [] },
    ]);
  });

  it('returns no requirements for an empty or blank selector', () => {
    expect(parseLabelSelector('')).toEqual([]);
    expect(parseLabelSelector('   ')).toEqual([]);
  });

  it('accepts prefixed keys, empty values and the keywords as values', () => {
    expect(parseLabelSelector('app.kubernetes.io/name=,x in (in,notin),y in ()')).toEqual([
      { key: 'app.kubernetes.io/name', operator: '=', values: [''] },
      { key: 'x', operator: 'in', values: ['in', 'notin'] },
      { key: 'y', operator: 'in', values: [''] },
    ]);
    expect(parseLabelSelector('x in (,a)')[0]?.values).toEqual(['', 'a']);
    expect(parseLabelSelector('x in (a,,b)')[0]?.values).toEqual(['', 'a', 'b']);
  });

  it('rejects an invalid key with the qualified-name message', () => {
    expect(parseError('-a=b')).toBe(
      `unable to parse requirement: <nil>: Invalid value: "-a": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    );
    expect(parseError(`${'a'.repeat(64)}=b`)).toContain(
      'name part must be no more than 63 characters',
    );
    expect(parseError('Bad_Prefix/x=y')).toContain('prefix part a lowercase RFC 1123 subdomain');
    expect(parseError('/x=y')).toContain('prefix part must be non-empty');
    expect(parseError('a/b/c=y')).toContain(
      "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
  });

  it('rejects an invalid value with the label-value message and field path', () => {
    expect(parseError('app=-x')).toBe(
      `unable to parse requirement: values[0][app]: Invalid value: "-x": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    );
    expect(parseError(`app=${'v'.repeat(64)}`)).toContain('must be no more than 63 characters');
  });

  it('rejects a non-integer bound of gt and lt', () => {
    expect(parseError('a>b')).toBe(
      `unable to parse requirement: values[0]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer`,
    );
    expect(parseError('a<1.5')).toContain('the value must be an integer');
    // A negative bound is an integer but not a valid label value, so kube rejects it too.
    expect(parseError('a<-2')).toContain('values[0][a]: Invalid value: "-2": a valid label');
  });

  it('rejects malformed syntax with kube-apiserver messages', () => {
    expect(parseError('a=b c')).toBe("found 'c', expected: ',' or 'end of string'");
    expect(parseError('a=b,')).toBe("found '', expected: identifier after ','");
    expect(parseError(',a')).toBe("found ',', expected: !, identifier, or 'end of string'");
    expect(parseError('a in x')).toBe("unable to parse requirement: found 'x' expected: '('");
    expect(parseError('a in (x')).toBe(
      "unable to parse requirement: found '', expected: ',' or ')'",
    );
    expect(parseError('a in (=)')).toBe(
      "unable to parse requirement: found '=', expected: ',', ')' or identifier",
    );
    expect(parseError('a=(b)')).toBe(
      "unable to parse requirement: found '(', expected: identifier",
    );
    expect(parseError('a b')).toBe(
      "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt",
    );
    expect(parseError('!a=b')).toBe("found '=', expected: ',' or 'end of string'");
    expect(parseError('!=a')).toBe("found '!=', expected: !, identifier, or 'end of string'");
    expect(parseError('a notin')).toBe("unable to parse requirement: found '' expected: '('");
  });

  it('treats a lone = after a key as an empty exact value', () => {
    expect(parseLabelSelector('a=')).toEqual([{ key: 'a', operator: '=', values: [''] }]);
  });
});

describe('matchesLabelSelector', () => {
  const labels = { app: 'web', tier: 'frontend', replicas: '3' };
  const matches = (selector: string, set: Record<string, string> | undefined = labels): boolean =>
    matchesLabelSelector(parseLabelSelector(selector), set);

  it('matches equality and set operators on present labels', () => {
    expect(matches('app=web')).toBe(true);
    expect(matches('app==web,tier=frontend')).toBe(true);
    expect(matches('app=db')).toBe(false);
    expect(matches('app in (db,web)')).toBe(true);
    expect(matches('app in (db)')).toBe(false);
    expect(matches('app notin (db)')).toBe(true);
    expect(matches('app notin (web)')).toBe(false);
    expect(matches('app!=web')).toBe(false);
  });

  it('matches negative operators when the label is absent', () => {
    expect(matches('missing!=x')).toBe(true);
    expect(matches('missing notin (x)')).toBe(true);
    expect(matches('!missing')).toBe(true);
    expect(matches('missing')).toBe(false);
    expect(matches('missing=x')).toBe(false);
    expect(matches('missing in (x)')).toBe(false);
    expect(matches('!app')).toBe(false);
    expect(matches('app')).toBe(true);
  });

  it('compares gt and lt as integers and fails them on absent or non-numeric labels', () => {
    expect(matches('replicas>2')).toBe(true);
    expect(matches('replicas>3')).toBe(false);
    expect(matches('replicas<10')).toBe(true);
    expect(matches('app>1')).toBe(false);
    expect(matches('missing<1')).toBe(false);
    expect(matches('big>9223372036854775806', { big: '9223372036854775807' })).toBe(true);
    expect(matches('big>1', { big: '9223372036854775808' })).toBe(false);
  });

  it('matches everything with an empty selector, even without labels', () => {
    expect(matches('', undefined)).toBe(true);
    expect(matches('!a', undefined)).toBe(true);
    expect(matches('a', undefined)).toBe(false);
  });

  it('agrees with direct comparison for generated equality selectors', () => {
    const value = fc.stringMatching(/^[a-z0-9]([a-z0-9._-]{0,10}[a-z0-9])?$/);
    fc.assert(
      fc.property(value, value, fc.boolean(), (wanted, actual, present) => {
        const set = present ? { key: actual } : {};
        expect(matches(`key=${wanted}`, set)).toBe(present && wanted === actual);
        expect(matches(`key!=${wanted}`, set)).toBe(!present || wanted !== actual);
      }),
      // Seeded: CI runs the same cases every time (a failure replays), instead of new random ones per run.
      { seed: 1 },
    );
  });
});

describe('parseFieldSelector', () => {
  it('parses =, == and != terms and unescapes values', () => {
    expect(
      parseFieldSelector(
        'metadata.name=a\\,b,metadata.namespace!=kube-system,status.phase==Running',
      ),
    ).toEqual([
      { field: 'metadata.name', operator: '=', value: 'a,b' },
      { field: 'metadata.namespace', operator: '!=', value: 'kube-system' },
      { field: 'status.phase', operator: '==', value: 'Running' },
    ]);
    expect(parseFieldSelector('a=x\\=y\\\\z')).toEqual([
      { field: 'a', operator: '=', value: 'x=y\\z' },
    ]);
  });

  it('returns no requirements for an empty selector and skips empty terms', () => {
    expect(parseFieldSelector('')).toEqual([]);
    expect(parseFieldSelector('a=b,')).toEqual([{ field: 'a', operator: '=', value: 'b' }]);
  });

  it('rejects terms without an operator and bad escapes with kube messages', () => {
    expect(() => parseFieldSelector('metadata.name')).toThrow(
      new SelectorParseError("invalid selector: 'metadata.name'; can't understand 'metadata.name'"),
    );
    expect(() => parseFieldSelector('a=b\\x')).toThrow(
      'invalid field selector: invalid escape sequence: \\x',
    );
    expect(() => parseFieldSelector('a=b\\')).toThrow(
      'invalid field selector: invalid escape sequence: \\',
    );
    expect(() => parseFieldSelector('a=b=c')).toThrow(
      'invalid field selector: unescaped character in value: 61',
    );
  });
});

describe('matchesFieldSelector', () => {
  const fields = { 'metadata.name': 'web', 'metadata.namespace': 'default' };

  it('matches equality and inequality, reading absent fields as empty', () => {
    expect(matchesFieldSelector(parseFieldSelector('metadata.name=web'), fields)).toBe(true);
    expect(matchesFieldSelector(parseFieldSelector('metadata.name==db'), fields)).toBe(false);
    expect(matchesFieldSelector(parseFieldSelector('metadata.namespace!=default'), fields)).toBe(
      false,
    );
    expect(
      matchesFieldSelector(
        parseFieldSelector('metadata.namespace!=other,metadata.name=web'),
        fields,
      ),
    ).toBe(true);
    expect(matchesFieldSelector(parseFieldSelector('spec.nodeName='), fields)).toBe(true);
    expect(matchesFieldSelector(parseFieldSelector(''), fields)).toBe(true);
  });
});
