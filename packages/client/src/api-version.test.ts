import { describe, expect, it } from 'vitest';
import { groupOfApiVersion, parseApiVersion } from './api-version.ts';

describe('parseApiVersion', () => {
  it.for([
    ['v1', { group: '', version: 'v1' }],
    ['apps/v1', { group: 'apps', version: 'v1' }],
    ['example.com/v1alpha1', { group: 'example.com', version: 'v1alpha1' }],
  ] as const)('%s', ([apiVersion, expected]) => {
    expect(parseApiVersion(apiVersion)).toEqual(expected);
  });

  it.for([
    ['', '""'],
    ['/v1', '"/v1"'],
    ['apps/', '"apps/"'],
    ['a/b/c', '"a/b/c"'],
    ['../v1', '"../v1"'],
    ['a%2F/v1', '"a%2F/v1"'],
    [7, '7'],
    [undefined, 'undefined'],
  ] as const)('refuses %j, naming where', ([apiVersion, shown]) => {
    expect(() => parseApiVersion(apiVersion)).toThrow(
      new TypeError(`apiVersion must be "version" or "group/version", got ${shown}`),
    );
    expect(() => parseApiVersion(apiVersion, 'owner.apiVersion')).toThrow(
      /^owner\.apiVersion must be/,
    );
  });

  it('groupOfApiVersion reads the group without checking', () => {
    expect(groupOfApiVersion('apps/v1')).toBe('apps');
    expect(groupOfApiVersion('v1')).toBe('');
  });
});
