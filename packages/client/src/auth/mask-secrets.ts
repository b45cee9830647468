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
/**
 * Prefixes that issuers put on their tokens (GitHub, GitLab, Slack, OpenAI-style `sk-`, OpenShift
 * `sha256~`, EKS `k8s-aws-v1.`): the word is a credential whatever follows, once 8 characters do.
 */
const KNOWN_PREFIX =
  /\b(?:gh[pousr]_|github_pat_|glpat-|xox[abeoprs]-|sk-|sha256~|k8s-aws-v1\.)[\w.~+/=-]{8,}/g;
/** A long run of token characters with a digit and a letter in it: an opaque credential. */
const OPAQUE_RUN = /[A-Za-z0-9+/_=.~-]{32,}/g;
/**
 * A shorter word of the base64 / base64url / hex alphabet (no `.`: host names and versions are not
 * words here). Masked when it reads as random rather than as a name ({@link looksRandom}).
 */
const TOKEN_WORD = /(?<![\w+/=~-])[A-Za-z0-9+/_=~-]{16,}(?![\w+/=~-])/g;
/** A long run of hex digits: a key, a hash or a token. */
const HEX_RUN = /\b[0-9a-fA-F]{20,}\b/g;

/**
 * Whether a 16+ character word reads as a random token: it mixes letters and digits (a 20-character
 * API key, hex with letters in it, a UUID), or its case flips between at least 40% of its adjacent
 * letters (base64 without a digit flips about half the time; `ServiceAccountToken` and
 * `HTTPSConnectionPool` flip at a word's start only). A path (`/usr/bin/...`) is never one.
 */
function looksRandom(word: string): boolean {
  if (word.startsWith('/')) return false;
  const letters = word.replace(/[^A-Za-z]/g, '');
  if (letters.length === 0) return false;
  if (/\d/.test(word)) return true;
  let flips = 0;
  for (let i = 1; i < letters.length; i++) {
    const upper = letters.charCodeAt(i) < 97;
    if (upper !== letters.charCodeAt(i - 1) < 97) flips++;
  }
  return flips * 5 >= (letters.length - 1) * 2;
}

/**
 * `text` with what looks like a secret replaced by `<masked>`: the `known` values (exec env values),
 * PEM blocks, JWTs, `Bearer`/`Basic` credentials, the value after a name like token, password,
 * secret or key, words with a known token prefix (`ghp_`, `glpat-`, `xoxb-`, `sk-`, `sha256~`,
 * `k8s-aws-v1.`), any word of 16+ base64/base64url/hex characters that reads as random (letters with
 * digits, or case flipping often), long opaque runs (32+ token characters mixing letters
 * and digits) and 20+ hex digits. It masks too much rather than too little: a UUID or a long versioned
 * file name is masked too.
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
    .replace(KNOWN_PREFIX, MASK)
    .replace(OPAQUE_RUN, (run) => (/\d/.test(run) && /[A-Za-z]/.test(run) ? MASK : run))
    .replace(TOKEN_WORD, (word) => (looksRandom(word) ? MASK : word))
    .replace(HEX_RUN, MASK);
}
