// Checks of PEM certificates and keys before they reach a TLS handshake, as client-go's
// transport.TLSConfigFor does with tls.X509KeyPair and CertPool.AppendCertsFromPEM.
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** The names the messages give to the PEM texts: a kubeconfig field, an option, a file. */
export interface TlsMaterialNames {
  caPem: string;
  certPem: string;
  keyPem: string;
}

/**
 * What is wrong with the PEM texts of `tls`, or undefined when nothing is: every `CERTIFICATE`
 * block of the CA bundle and of the client certificate must parse as X.509, the key must parse,
 * and it must be the private key of the client certificate's first (leaf) certificate. Messages
 * never quote the PEM text.
 *
 * **Gotchas**: Go's `AppendCertsFromPEM` skips a broken certificate in a bundle and fails only
 * when none is left; here any broken one is refused, since Node's TLS would not say which.
 */
export function tlsMaterialProblem(
  tls: { caPem?: string | undefined; certPem?: string | undefined; keyPem?: string | undefined },
  names: TlsMaterialNames,
): string | undefined {
  if (tls.caPem !== undefined) {
    const problem = certificatesProblem(tls.caPem, names.caPem);
    if (problem !== undefined) return problem;
  }
  if (tls.certPem === undefined || tls.keyPem === undefined) return undefined;
  const problem = certificatesProblem(tls.certPem, names.certPem);
  if (problem !== undefined) return problem;
  let key: KeyObject;
  try {
    key = createPrivateKey(tls.keyPem);
  } catch {
    // No cause: OpenSSL's error says nothing the message does not, and the key is a secret.
    return `${names.keyPem} is not a valid private key`;
  }
  const [leaf] = tls.certPem.match(CERTIFICATE_BLOCK) ?? [];
  if (leaf === undefined || !new X509Certificate(leaf).checkPrivateKey(key)) {
    return `${names.keyPem} does not match ${names.certPem}`;
  }
  return undefined;
}

/** `<name>: certificate i of n is not a valid X.509 certificate`, for the first broken block. */
function certificatesProblem(pem: string, name: string): string | undefined {
  const blocks = pem.match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) return `${name} holds no PEM certificate`;
  for (const [index, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      return `${name}: certificate ${index + 1} of ${blocks.length} is not a valid X.509 certificate`;
    }
  }
  return undefined;
}
