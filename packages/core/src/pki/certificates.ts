// X.509 certificates for tests and local runs (CA, serving and client certificates) built with node:crypto and a
// small DER encoder, the way controller-runtime's envtest (pkg/internal/testing/certs) generates them. Used by the
// in-process API server, envtest's real binaries and the webhook server's self-signed helper.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
} from 'node:crypto';
import { isIP } from 'node:net';
import { type Clock, systemClock } from '../clock.ts';

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface CertificatePair {
  /** `-----BEGIN CERTIFICATE-----` block. */
  certPem: string;
  /** `-----BEGIN PRIVATE KEY-----` block (PKCS#8, EC P-256). */
  keyPem: string;
}

/** Options of {@link createCertificateAuthority}. */
export interface CertificateAuthorityOptions {
  /** Subject and issuer CN (default `lasso-envtest-ca`). */
  commonName?: string | undefined;
  /** Validity in days from now (default 365). */
  validDays?: number | undefined;
  /** Source of the current time for the validity window (default `systemClock`). */
  clock?: Clock | undefined;
}

/** Options of {@link createSignedCertificate}. */
export interface SignedCertificateOptions {
  /** Subject CN: the user name for client certificates. */
  commonName: string;
  /** Subject O entries: the groups for client certificates (e.g. `system:masters`). */
  organizations?: string[] | undefined;
  /** subjectAltName DNS entries. */
  dnsNames?: string[] | undefined;
  /** subjectAltName IP entries (IPv4 or IPv6 text). */
  ipAddresses?: string[] | undefined;
  /** `server` sets extKeyUsage serverAuth, `client` sets clientAuth. */
  usage: 'server' | 'client';
  /** Validity in days from now (default 365). */
  validDays?: number | undefined;
  /** Source of the current time for the validity window (default `systemClock`). */
  clock?: Clock | undefined;
}

// ---- DER encoding (X.690), only what a certificate needs ----

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeLength(content.length), content]);
}

const derSequence = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
// SET OF needs its elements sorted by encoding (X.690 11.6).
const derSet = (...items: Buffer[]): Buffer =>
  tlv(0x31, Buffer.concat([...items].sort(Buffer.compare)));
const derBoolean = (value: boolean): Buffer => tlv(0x01, Buffer.from([value ? 0xff : 0x00]));
const derOctetString = (content: Buffer): Buffer => tlv(0x04, content);
const derUtf8String = (value: string): Buffer => tlv(0x0c, Buffer.from(value, 'utf8'));
const derBitString = (content: Buffer, unusedBits = 0): Buffer =>
  tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), content]));
const derExplicit = (tagNumber: number, content: Buffer): Buffer => tlv(0xa0 | tagNumber, content);

function derInteger(value: Buffer | number): Buffer {
  let bytes = typeof value === 'number' ? Buffer.from([value]) : value;
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0 && ((bytes[start + 1] ?? 0) & 0x80) === 0) {
    start++;
  }
  bytes = bytes.subarray(start);
  // A set top bit would make the integer negative: prefix a zero byte.
  if (((bytes[0] ?? 0) & 0x80) !== 0) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return tlv(0x02, bytes);
}

function derOid(oid: string): Buffer {
  const arcs = oid.split('.').map(Number);
  const [first = 0, second = 0, ...rest] = arcs;
  const bytes: number[] = [40 * first + second];
  for (const arc of rest) {
    const chunk: number[] = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128)) {
      chunk.unshift((value & 0x7f) | 0x80);
    }
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

// RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050.
function derTime(date: Date): Buffer {
  const pad = (n: number): string => String(n).padStart(2, '0');
  const year = date.getUTCFullYear();
  const rest = `${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(
    date.getUTCMinutes(),
  )}${pad(date.getUTCSeconds())}Z`;
  if (year >= 1950 && year < 2050)
    return tlv(0x17, Buffer.from(`${pad(year % 100)}${rest}`, 'ascii'));
  return tlv(0x18, Buffer.from(`${String(year).padStart(4, '0')}${rest}`, 'ascii'));
}

// ---- minimal DER reading, to take the issuer name and key id from a CA certificate ----

interface DerElement {
  tag: number;
  /** The whole encoding (tag, length, content). */
  raw: Buffer;
  content: Buffer;
}

function readElement(buffer: Buffer, offset: number): DerElement {
  const tag = buffer[offset];
  let lengthByte = buffer[offset + 1];
  if (tag === undefined || lengthByte === undefined) throw new TypeError('truncated DER element');
  let cursor = offset + 2;
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    length = 0;
    for (let i = 0; i < count; i++) {
      lengthByte = buffer[cursor++];
      if (lengthByte === undefined) throw new TypeError('truncated DER length');
      length = length * 256 + lengthByte;
    }
  }
  if (cursor + length > buffer.length) throw new TypeError('truncated DER content');
  return {
    tag,
    raw: buffer.subarray(offset, cursor + length),
    content: buffer.subarray(cursor, cursor + length),
  };
}

function readChildren(element: DerElement): DerElement[] {
  const children: DerElement[] = [];
  for (let offset = 0; offset < element.content.length; ) {
    const child = readElement(element.content, offset);
    children.push(child);
    offset += child.raw.length;
  }
  return children;
}

function pemToDer(pem: string, label: string): Buffer {
  const match = new RegExp(`-----BEGIN ${label}-----([\\s\\S]+?)-----END ${label}-----`).exec(pem);
  if (!match?.[1]) throw new TypeError(`expected a PEM ${label} block`);
  return Buffer.from(match[1].replace(/\s+/g, ''), 'base64');
}

function derToPem(der: Buffer, label: string): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

// ---- certificate building ----

const oids = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

const signatureAlgorithm = derSequence(derOid(oids.ecdsaWithSha256));

// One RDN per attribute, organizations first, as Go's pkix.Name orders them (O before CN).
function encodeName(commonName: string, organizations: readonly string[]): Buffer {
  const rdns = organizations.map((o) =>
    derSet(derSequence(derOid(oids.organization), derUtf8String(o))),
  );
  rdns.push(derSet(derSequence(derOid(oids.commonName), derUtf8String(commonName))));
  return derSequence(...rdns);
}

function spkiDer(publicKey: KeyObject): Buffer {
  return publicKey.export({ type: 'spki', format: 'der' });
}

// RFC 5280 4.2.1.2 method (1): SHA-1 of the subjectPublicKey BIT STRING value.
function keyIdentifier(spki: Buffer): Buffer {
  const [, bitString] = readChildren(readElement(spki, 0));
  if (!bitString) throw new TypeError('malformed SubjectPublicKeyInfo');
  return createHash('sha1').update(bitString.content.subarray(1)).digest();
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return critical
    ? derSequence(derOid(oid), derBoolean(true), derOctetString(value))
    : derSequence(derOid(oid), derOctetString(value));
}

// Named bits, bit 0 = most significant bit of the first byte; DER drops trailing zero bits.
function namedBits(bits: readonly number[]): Buffer {
  const max = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(max / 8) + 1);
  for (const bit of bits) bytes[bit >> 3] = (bytes[bit >> 3] ?? 0) | (0x80 >> (bit & 7));
  return derBitString(bytes, 7 - (max & 7));
}

function ipBytes(address: string): Buffer {
  const version = isIP(address);
  if (version === 4) return Buffer.from(address.split('.').map(Number));
  if (version !== 6) throw new TypeError(`ipAddresses: "${address}" is not an IP address`);
  let text = address;
  const tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    tail.push(...v4[1].split('.').map(Number));
    text = `${text.slice(0, -v4[1].length)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const before = groups(head);
  const after = rest === undefined ? [] : groups(rest);
  const all = [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
  const bytes = Buffer.alloc(16);
  all.forEach((group, index) => {
    bytes.writeUInt16BE(Number.parseInt(group, 16), index * 2);
  });
  if (tail.length === 4) Buffer.from(tail).copy(bytes, 12);
  return bytes;
}

interface BuildOptions {
  subject: Buffer;
  issuer: Buffer;
  subjectPublicKey: KeyObject;
  issuerKeyId: Buffer;
  signingKey: KeyObject;
  validDays: number;
  now: number;
  extensions: Buffer[];
}

function buildCertificate(options: BuildOptions): string {
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40; // positive and never zero
  // Backdate by an hour so a peer whose clock is slightly behind accepts the certificate at once.
  const notBefore = new Date(Math.floor(options.now / 1000) * 1000 - 3_600_000);
  const notAfter = new Date(Math.floor(options.now / 1000) * 1000 + options.validDays * 86_400_000);
  const spki = spkiDer(options.subjectPublicKey);
  const extensions = [
    ...options.extensions,
    extension(oids.subjectKeyIdentifier, false, derOctetString(keyIdentifier(spki))),
    extension(oids.authorityKeyIdentifier, false, derSequence(tlv(0x80, options.issuerKeyId))),
  ];
  const tbs = derSequence(
    derExplicit(0, derInteger(2)),
    derInteger(serial),
    signatureAlgorithm,
    options.issuer,
    derSequence(derTime(notBefore), derTime(notAfter)),
    options.subject,
    spki,
    derExplicit(3, derSequence(...extensions)),
  );
  const signature = sign('sha256', tbs, options.signingKey);
  return derToPem(derSequence(tbs, signatureAlgorithm, derBitString(signature)), 'CERTIFICATE');
}

function resolveValidDays(validDays: number | undefined): number {
  const days = validDays ?? 365;
  if (!Number.isFinite(days) || days <= 0) {
    throw new RangeError(`validDays must be a positive number, got ${String(validDays)}`);
  }
  return days;
}

function requireText(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new TypeError(`${name} must be a non-empty string`);
  }
  return value;
}

/**
 * Generate a self-signed certificate authority (EC P-256, ecdsa-with-SHA256) with a critical
 * `basicConstraints CA:TRUE` and `keyCertSign`/`cRLSign` key usage.
 *
 * @example
 * ```ts
 * import { createCertificateAuthority, createSignedCertificate } from '@lasso/core/pki';
 * const ca = createCertificateAuthority();
 * const serving = createSignedCertificate(ca, { commonName: 'localhost', ipAddresses: ['127.0.0.1'], usage: 'server' });
 * ```
 */
export function createCertificateAuthority(
  options: CertificateAuthorityOptions = {},
): CertificatePair {
  const commonName = requireText(options.commonName ?? 'lasso-envtest-ca', 'commonName');
  const validDays = resolveValidDays(options.validDays);
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const name = encodeName(commonName, []);
  const certPem = buildCertificate({
    subject: name,
    issuer: name,
    subjectPublicKey: publicKey,
    issuerKeyId: keyIdentifier(spkiDer(publicKey)),
    signingKey: privateKey,
    validDays,
    now: (options.clock ?? systemClock).now(),
    extensions: [
      extension(oids.keyUsage, true, namedBits([0, 5, 6])), // digitalSignature, keyCertSign, cRLSign
      extension(oids.basicConstraints, true, derSequence(derBoolean(true))),
    ],
  });
  return { certPem, keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/**
 * Generate a certificate signed by `ca` (EC P-256): a serving certificate (`usage: 'server'`,
 * serverAuth, SANs from `dnsNames`/`ipAddresses`) or a client certificate (`usage: 'client'`,
 * clientAuth; kube-apiserver reads the user from CN and the groups from O).
 *
 * Throws `TypeError` when `ca` is not a PEM certificate and key or an option is malformed.
 *
 * @example
 * ```ts
 * import { createCertificateAuthority, createSignedCertificate } from '@lasso/core/pki';
 * const ca = createCertificateAuthority();
 * const user = createSignedCertificate(ca, { commonName: 'jane', organizations: ['dev'], usage: 'client' });
 * // send user.certPem and user.keyPem as the client certificate of a server that trusts ca.certPem
 * ```
 */
export function createSignedCertificate(
  ca: CertificatePair,
  options: SignedCertificateOptions,
): CertificatePair {
  const commonName = requireText(options.commonName, 'commonName');
  if (options.usage !== 'server' && options.usage !== 'client') {
    throw new TypeError(`usage must be 'server' or 'client', got ${String(options.usage)}`);
  }
  const validDays = resolveValidDays(options.validDays);
  const organizations = (options.organizations ?? []).map((o) => requireText(o, 'organizations[]'));
  const dnsNames = (options.dnsNames ?? []).map((d) => requireText(d, 'dnsNames[]'));
  const ipAddresses = (options.ipAddresses ?? []).map(ipBytes);

  const caDer = pemToDer(ca.certPem, 'CERTIFICATE');
  const [tbs] = readChildren(readElement(caDer, 0));
  // TBSCertificate: [0] version, serial, signature, issuer, validity, subject, spki, ...
  const tbsFields = tbs ? readChildren(tbs) : [];
  const caSubject = tbsFields[5];
  const caSpki = tbsFields[6];
  if (!caSubject || !caSpki) throw new TypeError('ca.certPem is not an X.509 certificate');
  let caKey: KeyObject;
  try {
    caKey = createPrivateKey(ca.keyPem);
  } catch (error) {
    throw new TypeError('ca.keyPem is not a PEM private key', { cause: error });
  }
  if (!createPublicKey(caKey).export({ type: 'spki', format: 'der' }).equals(caSpki.raw)) {
    throw new TypeError('ca.keyPem does not match ca.certPem');
  }

  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const extensions = [
    extension(oids.keyUsage, true, namedBits([0])), // digitalSignature (EC keys do not encipher)
    extension(
      oids.extKeyUsage,
      false,
      derSequence(derOid(options.usage === 'server' ? oids.serverAuth : oids.clientAuth)),
    ),
    extension(oids.basicConstraints, true, derSequence()),
  ];
  if (dnsNames.length > 0 || ipAddresses.length > 0) {
    const names = [
      ...dnsNames.map((d) => tlv(0x82, Buffer.from(d, 'ascii'))),
      ...ipAddresses.map((ip) => tlv(0x87, ip)),
    ];
    extensions.push(extension(oids.subjectAltName, false, derSequence(...names)));
  }
  const certPem = buildCertificate({
    subject: encodeName(commonName, organizations),
    issuer: caSubject.raw,
    subjectPublicKey: publicKey,
    issuerKeyId: keyIdentifier(caSpki.raw),
    signingKey: caKey,
    validDays,
    now: (options.clock ?? systemClock).now(),
    extensions,
  });
  return { certPem, keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
