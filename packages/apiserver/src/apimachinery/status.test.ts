import { describe, expect, it } from 'vitest';
import {
  cannotHandleKind,
  conflict,
  failure,
  generateNameConflict,
  invalid,
  notAcceptable,
  notFound,
  patchNotApplicable,
  routeUnsupportedMediaType,
  unrecognizedBody,
  unsupportedMediaType,
} from './status.ts';

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
});

describe('status details as Go serializes them', () => {
  it('orders the Status keys as metav1.Status and omits empty details fields', () => {
    const body = notFound({ group: '', resource: 'configmaps' }, 'x').status;
    expect(Object.keys(body)).toEqual([
      'kind',
      'apiVersion',
      'metadata',
      'status',
      'message',
      'reason',
      'details',
      'code',
    ]);
    expect(failure(500, '', 'plain').reason).toBeUndefined();
    expect(
      failure(409, 'Conflict', 'm', {
        name: '',
        group: '',
        kind: '',
        causes: [],
        retryAfterSeconds: 0,
      }).details,
    ).toEqual({});
    const causes = failure(422, 'Invalid', 'm', {
      causes: [{ reason: '', message: 'x', field: '' }],
    }).details?.causes;
    expect(causes).toEqual([{ message: 'x' }]);
  });

  it('summarizes Invalid causes as ToAggregate does: once each, no colon without causes', () => {
    const twice = invalid({ group: '', kind: 'ConfigMap' }, 'x', [
      { type: 'FieldValueInvalid', message: 'Invalid value: "a!": bad', field: 'metadata.labels' },
      { type: 'FieldValueInvalid', message: 'Invalid value: "a!": bad', field: 'metadata.labels' },
    ]);
    expect(twice.message).toBe(
      'ConfigMap "x" is invalid: metadata.labels: Invalid value: "a!": bad',
    );
    expect(twice.status.details?.causes).toHaveLength(2);
    expect(invalid({ group: 'apps', kind: 'Deployment' }, 'd', []).message).toBe(
      'Deployment.apps "d" is invalid',
    );
  });
});

describe('request decoding and negotiation failures', () => {
  it('words an undecodable body with the kind it must be and a summary of the body', () => {
    expect(unrecognizedBody('ConfigMap', 'json parse error: x', Buffer.from('[1]')).message).toBe(
      'the object provided is unrecognized (must be of type ConfigMap): json parse error: x (5b315d)',
    );
    const long = Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","data":`);
    expect(unrecognizedBody('ConfigMap', 'e', long).message).toBe(
      'the object provided is unrecognized (must be of type ConfigMap): e ({"apiVersion":"v1","kind":"Con ...)',
    );
    expect(unrecognizedBody('ConfigMap', 'e', Buffer.alloc(0)).message).toContain('(<empty>)');
    expect(
      cannotHandleKind(
        { kind: 'Secret', version: 'v1' },
        'ConfigMap',
        'converting (v1.Secret) to (core.ConfigMap): unknown conversion',
      ).message,
    ).toBe(
      'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    );
  });

  it('tells the router 415/406 from the negotiated ones', () => {
    expect(routeUnsupportedMediaType().status).toMatchObject({
      code: 415,
      reason: 'UnsupportedMediaType',
      message: '415: Unsupported Media Type',
      details: {},
    });
    expect(unsupportedMediaType(['application/json']).status.details).toBeUndefined();
    expect(notAcceptable().status).toMatchObject({ code: 406, message: '406: Not Acceptable' });
    expect(notAcceptable(['application/json', 'application/yaml']).message).toBe(
      'only the following media types are accepted: application/json, application/yaml',
    );
  });

  it('answers a JSON patch that does not apply without its error as a cause', () => {
    expect(patchNotApplicable().status).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
      details: {},
    });
  });

  it('words a generated name that collided every time, with a retry after one second', () => {
    expect(generateNameConflict({ group: '', resource: 'configmaps' }, 'gen-abcde').status).toEqual(
      {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'configmaps "gen-abcde" already exists, the server was not able to generate a unique name for the object',
        reason: 'AlreadyExists',
        details: { name: 'gen-abcde', kind: 'configmaps', retryAfterSeconds: 1 },
        code: 409,
      },
    );
  });
});
