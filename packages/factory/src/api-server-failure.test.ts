// Unit tests of how a failed health ping is named (the health gate's warnings, the start's error) and of the
// server URL shown without its credentials.
import { ApiError } from '@lasso/client';
import { isLassoError, LassoError } from '@lasso/core';
import { describe, expect, it } from 'vitest';
import {
  ApiServerUnavailableError,
  apiServerFailureCause,
  displayServer,
} from './api-server-failure.ts';

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });
// As @lasso/client throws it: LASSO_CONNECTION_FAILED around undici's error around the errno.
const wrapped = (code: string) =>
  new LassoError('LASSO_CONNECTION_FAILED', `GET /version: connection failed (${code})`, {
    cause: Object.assign(new TypeError('fetch failed'), { cause: withCode(code) }),
  });

describe('apiServerFailureCause', () => {
  it.for([
    { error: wrapped('ECONNREFUSED'), cause: 'connection refused' },
    { error: wrapped('ENOTFOUND'), cause: 'DNS lookup failed' },
    { error: wrapped('EAI_AGAIN'), cause: 'DNS lookup failed' },
    { error: wrapped('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), cause: 'TLS failure' },
    { error: wrapped('DEPTH_ZERO_SELF_SIGNED_CERT'), cause: 'TLS failure' },
    { error: wrapped('ERR_TLS_CERT_ALTNAME_INVALID'), cause: 'TLS failure' },
    { error: wrapped('ECONNRESET'), cause: 'connection reset' },
    { error: wrapped('UND_ERR_CONNECT_TIMEOUT'), cause: 'timed out' },
    { error: new ApiError({ status: 401, message: 'Unauthorized' }), cause: 'unauthorized (401)' },
    { error: new ApiError({ status: 403, message: 'forbidden' }), cause: 'forbidden (403)' },
    { error: new ApiError({ status: 503, message: 'unavailable' }), cause: 'HTTP 503' },
    { error: new Error('something else'), cause: 'unreachable' },
    { error: 'a string', cause: 'unreachable' },
    { error: undefined, cause: 'unreachable' },
  ])('names $cause', ({ error, cause }) => {
    expect(apiServerFailureCause(error)).toBe(cause);
  });

  it('never throws on a hostile value', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(apiServerFailureCause(proxy)).toBe('unreachable');
  });
});

describe('displayServer', () => {
  it('drops a user, a password and a query', () => {
    expect(displayServer('https://admin:secret@10.0.0.1:6443/?token=x')).toBe(
      'https://10.0.0.1:6443',
    );
    expect(displayServer('https://rancher.example/k8s/clusters/c-1')).toBe(
      'https://rancher.example/k8s/clusters/c-1',
    );
    expect(displayServer('not a url')).toBe('(unparsable server URL)');
  });
});

describe('ApiServerUnavailableError', () => {
  it('names the server, why the wait ended and the last cause', () => {
    const error = new ApiServerUnavailableError({
      server: 'https://user:pw@10.0.0.1:6443',
      reason: 'deadline',
      waitedMs: 30_000,
      lastCause: 'connection refused',
      lastError: new Error('connect ECONNREFUSED 10.0.0.1:6443'),
    });
    expect(isLassoError(error, 'LASSO_API_SERVER_UNAVAILABLE')).toBe(true);
    expect(error.message).toBe(
      'gave up waiting for the API server at https://10.0.0.1:6443 to answer /version: startTimeoutMs passed (30000 ms); last failure: connection refused (connect ECONNREFUSED 10.0.0.1:6443)',
    );
    expect(error).toMatchObject({ server: 'https://10.0.0.1:6443', reason: 'deadline' });
  });
});
