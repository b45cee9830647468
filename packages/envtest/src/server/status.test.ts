import { describe, expect, it } from 'vitest';
import { conflict, forbidden, invalid, notFound } from './status.ts';

describe('status builders', () => {
  it('qualifies the resource with its group in NotFound and omits an empty group', () => {
    expect(notFound({ group: 'apps', resource: 'deployments' }, 'web').status).toMatchObject({
      code: 404,
      reason: 'NotFound',
      message: 'deployments.apps "web" not found',
      details: { name: 'web', group: 'apps', kind: 'deployments' },
    });
    expect(notFound({ group: '', resource: 'pods' }, 'p').status.details).toEqual({
      name: 'p',
      kind: 'pods',
    });
  });

  it('words Conflict as kube-apiserver does', () => {
    expect(conflict({ group: '', resource: 'configmaps' }, 'x').message).toBe(
      'Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('lists several Invalid causes in brackets', () => {
    const error = invalid({ group: '', kind: 'ConfigMap' }, 'x', [
      { type: 'FieldValueRequired', message: 'Required value', field: 'a' },
      { type: 'FieldValueInvalid', message: 'Invalid value: 1: bad', field: 'b' },
    ]);
    expect(error.message).toBe(
      'ConfigMap "x" is invalid: [a: Required value, b: Invalid value: 1: bad]',
    );
    expect(error.status.details?.causes?.[0]).toEqual({
      reason: 'FieldValueRequired',
      message: 'Required value',
      field: 'a',
    });
  });

  it('words Forbidden for subresources, named objects and the cluster scope', () => {
    expect(
      forbidden({
        user: 'u',
        verb: 'update',
        resource: 'deployments',
        subresource: 'status',
        group: 'apps',
        namespace: 'ns',
        name: 'web',
      }).message,
    ).toBe(
      'deployments.apps "web" is forbidden: User "u" cannot update resource "deployments/status" in API group "apps" in the namespace "ns"',
    );
    expect(forbidden({ user: 'u', verb: 'list', resource: 'nodes', group: '' }).message).toBe(
      'nodes is forbidden: User "u" cannot list resource "nodes" in API group "" at the cluster scope',
    );
  });
});
