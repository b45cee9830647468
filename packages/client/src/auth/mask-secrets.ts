// Masking what looks like a credential in text a program printed (an exec plugin's stderr) before it
// goes into an error message.

const MASK = '<masked>';
/** Known secret values shorter than this are not searched for (they would mask ordinary words). */
const MIN_KNOWN_SECRET = 4;

const PEM_BLOCK = /-----BEGIN [^-\r\n]*-----[\s\S]*?(?:-----END [^-\r\n]*-----|$)/g;
const JWT = /\beyJ[\w-]*\.[\w-]*(?:\.[\w-]*)?/g;
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[^\s"',;]+/gi;
/** `token=…`, `"password": "…"`, `client-key: …`, `X-Api-Key: …`: the value after a telling name. */
const NAMED_VALUE =
  /([\w.-]*(?:token|passw(?:or)?d|pwd|secret|key|credential|authorization|cookie|session)[\w.-]*["']?\s*[:=]\s*["']?)([^\s"',;]+)/gi;
/** A long run of token characters with a digit and a letter in it: an opaque credential. */
const OPAQUE_RUN = /[A-Za-z0-9+/_=.~-]{32,}/g;
/** A long run of hex digits: a key, a hash or a token. */
const HEX_RUN = /\b[0-9a-fA-F]{20,}\b/g;

/**
 * `text` with what looks like a secret replaced by `<masked>`: the `known` values (exec env values),
 * PEM blocks, JWTs, `Bearer`/`Basic` credentials, the value after a name like token, password,
 * secret or key, and long opaque runs (32+ token characters mixing letters and digits, 20+ hex
 * digits). It masks too much rather than too little: paths with long hashes are masked too.
 */
export function maskSecrets(text: string, known: readonly string[] = []): string {
  let out = text;
  for (const value of known) {
    if (typeof value === 'string' && value.length >= MIN_KNOWN_SECRET) {
      out = out.split(value).join(MASK);
    }
  }
  return out
    .replace(PEM_BLOCK, MASK)
    .replace(JWT, MASK)
    .replace(AUTH_SCHEME, (_all, scheme: string) => `${scheme} ${MASK}`)
    .replace(NAMED_VALUE, (_all, name: string) => `${name}${MASK}`)
    .replace(OPAQUE_RUN, (run) => (/\d/.test(run) && /[A-Za-z]/.test(run) ? MASK : run))
    .replace(HEX_RUN, MASK);
}
