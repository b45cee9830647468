// A self-signed CA and a serving certificate for a webhook server in tests and local runs, built on
// @lasso/core/pki, optionally written as cert-manager names its files (tls.crt, tls.key, ca.crt).
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '@lasso/core';
import { createCertificateAuthority, createSignedCertificate } from '@lasso/core/pki';

/** Options of {@link createSelfSignedCertificates}. */
export interface SelfSignedCertificatesOptions {
  /** DNS names of the serving certificate (default `['localhost']`; add `<service>.<namespace>.svc` in a cluster). */
  dnsNames?: readonly string[] | undefined;
  /** IP addresses of the serving certificate (default `['127.0.0.1', '::1']`). */
  ipAddresses?: readonly string[] | undefined;
  /** Validity in days (default 365). */
  validDays?: number | undefined;
  clock?: Clock | undefined;
}

/** A CA and the serving certificate it signed, PEM. */
export interface SelfSignedCertificates {
  /** The CA certificate: the `caPem` of the configurations, and what clients trust. */
  readonly caPem: string;
  /** The serving certificate (`tls.certPem` of the server). */
  readonly certPem: string;
  /** The serving key, PKCS#8. */
  readonly keyPem: string;
}

/**
 * A fresh self-signed CA (EC P-256) and a serving certificate for `dnsNames` and `ipAddresses` signed by it, for
 * tests and local runs; in a cluster, cert-manager or your PKI issues the certificate instead.
 *
 * Throws a TypeError or RangeError for a malformed name, address or validity.
 *
 * @example
 * ```ts
 * const certificates = createSelfSignedCertificates();
 * const server = createWebhookServer({ tls: { certPem: certificates.certPem, keyPem: certificates.keyPem }, host: '127.0.0.1', port: 0 });
 * ```
 */
export function createSelfSignedCertificates(
  options: SelfSignedCertificatesOptions = {},
): SelfSignedCertificates {
  const validDays = options.validDays ?? 365;
  const ca = createCertificateAuthority({
    commonName: 'lasso-webhook-ca',
    validDays,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const serving = createSignedCertificate(ca, {
    commonName: options.dnsNames?.[0] ?? 'localhost',
    dnsNames: [...(options.dnsNames ?? ['localhost'])],
    ipAddresses: [...(options.ipAddresses ?? ['127.0.0.1', '::1'])],
    usage: 'server',
    validDays,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  return Object.freeze({ caPem: ca.certPem, certPem: serving.certPem, keyPem: serving.keyPem });
}

/** Where {@link writeSelfSignedCertificates} put the files. */
export interface WrittenCertificates extends SelfSignedCertificates {
  readonly certFile: string;
  readonly keyFile: string;
  readonly caFile: string;
}

/**
 * Write `certificates` (or new ones) into `directory` as `tls.crt`, `tls.key` (mode 0600) and `ca.crt`, each
 * through a temporary file and a rename, so a server watching the directory never reads half a file.
 *
 * @example
 * ```ts
 * const files = await writeSelfSignedCertificates('/tmp/webhook-certs');
 * const server = createWebhookServer({ tls: { certFile: files.certFile, keyFile: files.keyFile } });
 * ```
 */
export async function writeSelfSignedCertificates(
  directory: string,
  certificates: SelfSignedCertificates = createSelfSignedCertificates(),
): Promise<WrittenCertificates> {
  if (typeof directory !== 'string' || directory === '') {
    throw new TypeError('writeSelfSignedCertificates: directory must be a non-empty path');
  }
  await mkdir(directory, { recursive: true });
  const files = {
    certFile: join(directory, 'tls.crt'),
    keyFile: join(directory, 'tls.key'),
    caFile: join(directory, 'ca.crt'),
  };
  const put = async (file: string, text: string, mode: number): Promise<void> => {
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, text, { mode });
    await rename(temporary, file);
  };
  // Key first: a reader that sees the new certificate then finds its key already in place.
  await put(files.keyFile, certificates.keyPem, 0o600);
  await put(files.certFile, certificates.certPem, 0o644);
  await put(files.caFile, certificates.caPem, 0o644);
  return Object.freeze({ ...certificates, ...files });
}
