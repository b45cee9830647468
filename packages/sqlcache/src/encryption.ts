// Encryption at rest: AES-256-GCM with random 32-byte data keys held in memory only (lasso's
// pkg/cache/sql/encryption). A database written by one process is unreadable by the next, which matches the
// wipe-on-start policy of the cache.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptionError } from './errors.ts';

/**
 * What {@link Encryptor.encrypt} returns: ciphertext with its 16-byte tag appended, the nonce and the key id.
 *
 * @example
 * ```ts
 * const sealed: Sealed = createEncryptor().encrypt(Buffer.from('{}'), 'aad');
 * console.log(sealed.keyId, sealed.nonce.length); // 0 12
 * ```
 */
export interface Sealed {
  readonly ciphertext: Uint8Array;
  readonly nonce: Uint8Array;
  readonly keyId: number;
}

/**
 * Options of {@link createEncryptor}.
 *
 * @example
 * ```ts
 * const options: EncryptorOptions = { maxUsesPerKey: 1_000_000 };
 * const encryptor = createEncryptor(options);
 * ```
 */
export interface EncryptorOptions {
  /**
   * A data key is retired after this many encryptions and a fresh one made (random 96-bit nonces stay far
   * from GCM's 2^32 bound per key, NIST SP 800-38D). Default 2^32 - 1.
   */
  maxUsesPerKey?: number | undefined;
}

const nonceBytes = 12;
const tagBytes = 16;
/** NIST SP 800-38D: at most 2^32 invocations of GCM with random nonces under one key. */
const defaultMaxUses = 2 ** 32 - 1;

/**
 * Encrypts and decrypts stored objects. Every call to `encrypt` uses a fresh random nonce; `aad` (the table and
 * key of the row) binds a ciphertext to its row, so bytes moved to another row do not decrypt.
 *
 * @example
 * ```ts
 * const encryptor = createEncryptor();
 * const sealed = encryptor.encrypt(Buffer.from('{"data":{}}'), 'v1/Secret default/a');
 * const plain = encryptor.decrypt(sealed, 'v1/Secret default/a');
 * ```
 */
export interface Encryptor {
  encrypt(plaintext: Uint8Array, aad: string): Sealed;
  /** Throws a {@link DecryptionError} for an unknown key id or bytes that do not authenticate. */
  decrypt(sealed: Sealed, aad: string): Buffer;
  /** Number of data keys made so far (1 + rotations). */
  keyCount(): number;
}

/**
 * Create an {@link Encryptor} with a fresh random data key. Keys never leave the process.
 *
 * @example
 * ```ts
 * const encryptor = createEncryptor({ maxUsesPerKey: 1_000_000 });
 * ```
 */
export function createEncryptor(options: EncryptorOptions = {}): Encryptor {
  const maxUses = options.maxUsesPerKey ?? defaultMaxUses;
  if (!Number.isSafeInteger(maxUses) || maxUses < 1) {
    throw new RangeError(
      `createEncryptor: maxUsesPerKey must be an integer >= 1, got ${String(maxUses)}`,
    );
  }
  const keys: Buffer[] = [randomBytes(32)];
  let uses = 0;
  return Object.freeze({
    encrypt(plaintext: Uint8Array, aad: string): Sealed {
      if (uses >= maxUses) {
        keys.push(randomBytes(32));
        uses = 0;
      }
      uses++;
      const keyId = keys.length - 1;
      const nonce = randomBytes(nonceBytes);
      const cipher = createCipheriv('aes-256-gcm', keys[keyId] as Buffer, nonce);
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const body = cipher.update(plaintext);
      const final = cipher.final();
      const ciphertext = Buffer.concat([body, final, cipher.getAuthTag()]);
      return { ciphertext, nonce, keyId };
    },
    decrypt(sealed: Sealed, aad: string): Buffer {
      const key = Number.isInteger(sealed.keyId) ? keys[sealed.keyId] : undefined;
      if (key === undefined) {
        throw new DecryptionError(
          `data key ${String(sealed.keyId)} is unknown to this process (keys live in memory only)`,
        );
      }
      if (sealed.nonce.length !== nonceBytes || sealed.ciphertext.length < tagBytes) {
        throw new DecryptionError('stored ciphertext is malformed');
      }
      const ciphertext = Buffer.from(
        sealed.ciphertext.buffer,
        sealed.ciphertext.byteOffset,
        sealed.ciphertext.byteLength,
      );
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, sealed.nonce);
        decipher.setAAD(Buffer.from(aad, 'utf8'));
        decipher.setAuthTag(ciphertext.subarray(ciphertext.length - tagBytes));
        return Buffer.concat([
          decipher.update(ciphertext.subarray(0, ciphertext.length - tagBytes)),
          decipher.final(),
        ]);
      } catch (error) {
        throw new DecryptionError(
          `stored object does not authenticate under data key ${sealed.keyId}`,
          { cause: error },
        );
      }
    },
    keyCount: () => keys.length,
  });
}
