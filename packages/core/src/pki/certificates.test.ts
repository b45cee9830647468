import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock.ts';
import { createCertificateAuthority, createSignedCertificate } from './certificates.ts';

describe('createCertificateAuthority', () => {
  it('creates a self-signed CA certificate whose key verifies its signature', () => {
    const ca = createCertificateAuthority({ commonName: 'test-ca' });
    const cert = new X509Certificate(ca.certPem);
    expect(cert.ca).toBe(true);
    expect(cert.subject).toBe('CN=test-ca');
    expect(cert.issuer).toBe('CN=test-ca');
    expect(cert.checkIssued(cert)).toBe(true);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(ca.keyPem).toContain('-----BEGIN PRIVATE KEY-----');
    expect(cert.toLegacyObject().ext_key_usage).toBeUndefined();
  });

  it('sets the validity window from the clock, backdated by an hour', () => {
    const clock = new FakeClock(Date.UTC(2030, 0, 15, 12, 0, 0));
    const cert = new X509Certificate(createCertificateAuthority({ validDays: 10, clock }).certPem);
    expect(new Date(cert.validFrom).toISOString()).toBe('2030-01-15T11:00:00.000Z');
    expect(new Date(cert.validTo).toISOString()).toBe('2030-01-25T12:00:00.000Z');
  });

  it('encodes dates from 2050 on as GeneralizedTime', () => {
    const clock = new FakeClock(Date.UTC(2049, 11, 1));
    const cert = new X509Certificate(createCertificateAuthority({ validDays: 365, clock }).certPem);
    expect(new Date(cert.validTo).toISOString()).toBe('2050-12-01T00:00:00.000Z');
  });

  it('uses a distinct positive serial number for every certificate', () => {
    const a = new X509Certificate(createCertificateAuthority().certPem);
    const b = new X509Certificate(createCertificateAuthority().certPem);
    expect(a.serialNumber).not.toBe(b.serialNumber);
    expect(Number.parseInt(a.serialNumber.slice(0, 2), 16) & 0x80).toBe(0);
  });

  it('rejects a non-positive validDays with a RangeError naming the option', () => {
    expect(() => createCertificateAuthority({ validDays: 0 })).toThrow(/validDays/);
    expect(() => createCertificateAuthority({ validDays: -1 })).toThrow(RangeError);
  });
});

describe('createSignedCertificate', () => {
  const ca = createCertificateAuthority({ commonName: 'envtest-ca' });
  const caCert = new X509Certificate(ca.certPem);

  it('creates a serving certificate with DNS and IP subject alternative names', () => {
    const pair = createSignedCertificate(ca, {
      commonName: 'localhost',
      dnsNames: ['localhost', 'api.example.com'],
      ipAddresses: ['127.0.0.1', '::1', '2001:db8::ffff:10.0.0.1'],
      usage: 'server',
    });
    const cert = new X509Certificate(pair.certPem);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(caCert)).toBe(true);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.issuer).toBe('CN=envtest-ca');
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkHost('api.example.com')).toBe('api.example.com');
    expect(cert.checkHost('other.example.com')).toBeUndefined();
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkIP('::1')).toBe('::1');
    expect(cert.subjectAltName).toContain('IP Address:2001:DB8:0:0:0:FFFF:A00:1');
    expect(cert.checkIP('127.0.0.2')).toBeUndefined();
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });

  it('creates a client certificate with CN as user and O entries as groups', () => {
    const pair = createSignedCertificate(ca, {
      commonName: 'admin',
      organizations: ['system:masters', 'team-a'],
      usage: 'client',
    });
    const cert = new X509Certificate(pair.certPem);
    expect(cert.subject.split('\n')).toEqual(['O=system:masters', 'O=team-a', 'CN=admin']);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(cert.verify(caCert.publicKey)).toBe(true);
    expect(cert.subjectAltName).toBeUndefined();
  });

  it('rejects a CA whose key does not match its certificate', () => {
    const other = createCertificateAuthority();
    expect(() =>
      createSignedCertificate(
        { certPem: ca.certPem, keyPem: other.keyPem },
        { commonName: 'x', usage: 'client' },
      ),
    ).toThrow(/does not match/);
  });

  it('rejects malformed arguments with a TypeError naming the option', () => {
    expect(() => createSignedCertificate(ca, { commonName: '', usage: 'client' })).toThrow(
      /commonName/,
    );
    expect(() =>
      createSignedCertificate(ca, { commonName: 'x', usage: 'peer' as 'client' }),
    ).toThrow(/usage/);
    expect(() =>
      createSignedCertificate(ca, { commonName: 'x', ipAddresses: ['localhost'], usage: 'server' }),
    ).toThrow(/ipAddresses/);
    expect(() =>
      createSignedCertificate(
        { certPem: 'nope', keyPem: ca.keyPem },
        { commonName: 'x', usage: 'server' },
      ),
    ).toThrow(TypeError);
  });

  it('completes a mutual TLS handshake that presents the client identity to the server', async () => {
    const serving = createSignedCertificate(ca, {
      commonName: 'localhost',
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1'],
      usage: 'server',
    });
    const client = createSignedCertificate(ca, {
      commonName: 'alice',
      organizations: ['system:masters'],
      usage: 'client',
    });
    const server = https.createServer(
      {
        cert: serving.certPem,
        key: serving.keyPem,
        ca: ca.certPem,
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        res.end(JSON.stringify({ cn: peer.subject.CN, o: peer.subject.O }));
      },
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const body = await new Promise<string>((resolve, reject) => {
        const request = https.get(
          {
            host: '127.0.0.1',
            port,
            path: '/',
            ca: ca.certPem,
            cert: client.certPem,
            key: client.keyPem,
            rejectUnauthorized: true,
            agent: false,
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              text += chunk;
            });
            res.on('end', () => resolve(text));
            res.on('error', reject);
          },
        );
        request.on('error', reject);
      });
      expect(JSON.parse(body)).toEqual({ cn: 'alice', o: 'system:masters' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('fails the handshake when the client certificate comes from another CA', async () => {
    const serving = createSignedCertificate(ca, {
      commonName: 'localhost',
      ipAddresses: ['127.0.0.1'],
      usage: 'server',
    });
    const stranger = createSignedCertificate(createCertificateAuthority(), {
      commonName: 'eve',
      usage: 'client',
    });
    const server = https.createServer(
      {
        cert: serving.certPem,
        key: serving.keyPem,
        ca: ca.certPem,
        requestCert: true,
        rejectUnauthorized: true,
      },
      (_req, res) => res.end('ok'),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const outcome = await new Promise<string>((resolve) => {
        const request = https.get(
          {
            host: '127.0.0.1',
            port,
            ca: ca.certPem,
            cert: stranger.certPem,
            key: stranger.keyPem,
            agent: false,
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(`status ${String(res.statusCode)}`));
            res.on('error', () => resolve('rejected'));
          },
        );
        request.on('error', () => resolve('rejected'));
      });
      expect(outcome).toBe('rejected');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
