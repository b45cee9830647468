import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { restConfigFromCredentials } from './credentials.ts';

// Real PEM: createRestConfig checks that the certificates parse and the key matches.
const pem = (name: string): string =>
  readFileSync(join(import.meta.dirname, '..', 'config', '__fixtures__', 'pki', name), 'utf8');
const [CA, CERT, KEY] = [pem('ca.crt'), pem('client.crt'), pem('client.key')];
const credentials = {
  server: 'https://127.0.0.1:6443',
  caPem: CA,
  clientCertPem: CERT,
  clientKeyPem: KEY,
  token: 'admin-token',
};

describe('restConfigFromCredentials', () => {
  it('uses the client certificate when there is one', () => {
    const config = restConfigFromCredentials(credentials);
    expect(config.tls).toEqual({ caPem: CA, certPem: CERT, keyPem: KEY });
    expect(config.auth).toBeUndefined();
  });

  it('uses the token when asked or when there is no certificate', () => {
    expect(restConfigFromCredentials(credentials, { prefer: 'token' })).toMatchObject({
      tls: { caPem: CA },
      auth: { type: 'token', token: 'admin-token' },
    });
    expect(restConfigFromCredentials({ server: 'https://x', token: 't' }).auth).toEqual({
      type: 'token',
      token: 't',
    });
  });
});
