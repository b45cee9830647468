import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@lasso/client';
import { describe, expect, it } from 'vitest';
import { testDrivers } from '../test/drivers.ts';
import { openSqlDatabase } from './database.ts';
import { createEncryptor } from './encryption.ts';
import { DecryptionError } from './errors.ts';
import { createSqlStore } from './store.ts';

const secretValue = 'hunter2-PLAINTEXT-VALUE-7f3a9c';
const secretBase64 = Buffer.from(secretValue).toString('base64');

function secret(
  name: string,
  value = secretValue,
): KubeObject & { data: Record<string, string>; stringData: Record<string, string> } {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace: 'ns', name, labels: { app: 'a' } },
    data: { password: Buffer.from(value).toString('base64') },
    stringData: { password: value },
  };
}

/** Every byte of the database, its WAL and shared memory, as one buffer. */
function databaseBytes(path: string): Buffer {
  return Buffer.concat(
    ['', '-wal', '-shm']
      .filter((suffix) => existsSync(path + suffix))
      .map((suffix) => readFileSync(path + suffix)),
  );
}

describe.each(testDrivers)('encryption at rest ($name)', ({ driver }) => {
  it('keeps a Secret value out of the database file, the WAL and shm, byte by byte', () => {
    const database = openSqlDatabase({ driver: driver() });
    const secrets = createSqlStore<KubeObject>(database, {
      gvk: { group: '', version: 'v1', kind: 'Secret' },
    });
    for (let i = 0; i < 50; i++) secrets.add(secret(`s${i}`));
    secrets.flush();
    // The same value in a ConfigMap (not encrypted by default) is found: the search itself works.
    const plain = openSqlDatabase({ driver: driver() });
    const configMaps = createSqlStore<KubeObject>(plain, {
      gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
    });
    configMaps.add({
      metadata: { namespace: 'ns', name: 'cm' },
      data: { v: secretValue },
    } as KubeObject);
    configMaps.flush();
    expect(databaseBytes(plain.path).indexOf(Buffer.from(secretValue))).toBeGreaterThanOrEqual(0);
    plain.close();
    // Before and after the WAL is checkpointed into the database file.
    for (const needle of [secretValue, secretBase64]) {
      expect(databaseBytes(database.path).indexOf(Buffer.from(needle))).toBe(-1);
    }
    database.checkpoint();
    for (const needle of [secretValue, secretBase64]) {
      expect(databaseBytes(database.path).indexOf(Buffer.from(needle))).toBe(-1);
    }
    expect(secrets.getByKey('ns/s1')).toEqual(secret('s1'));
    database.close();
  });

  it('encrypts any kind on request and leaves other kinds readable', () => {
    const database = openSqlDatabase({ driver: driver() });
    const things = createSqlStore<KubeObject>(database, {
      gvk: { group: 'example.com', version: 'v1', kind: 'Token' },
      encrypt: true,
    });
    things.add({ metadata: { name: 't' }, spec: { token: secretValue } } as KubeObject);
    things.flush();
    database.checkpoint();
    expect(databaseBytes(database.path).indexOf(Buffer.from(secretValue))).toBe(-1);
    expect(things.list()).toHaveLength(1);
    database.close();
  });

  it('uses a fresh nonce for every write and rotates the data key after maxUsesPerKey', () => {
    const encryptor = createEncryptor({ maxUsesPerKey: 3 });
    const a = encryptor.encrypt(Buffer.from('same'), 'aad');
    const b = encryptor.encrypt(Buffer.from('same'), 'aad');
    expect(Buffer.from(a.nonce).equals(Buffer.from(b.nonce))).toBe(false);
    expect(Buffer.from(a.ciphertext).equals(Buffer.from(b.ciphertext))).toBe(false);
    const database = openSqlDatabase({ driver: driver() });
    const store = createSqlStore<KubeObject>(database, {
      gvk: { group: '', version: 'v1', kind: 'Secret' },
      encryptor,
    });
    for (let i = 0; i < 10; i++) store.add(secret(`s${i}`, `value-${i}`));
    store.flush();
    expect(encryptor.keyCount()).toBe(4);
    const keyIds = database.read((prepare) =>
      prepare(`SELECT DISTINCT keyid FROM "${store.tableName}" ORDER BY keyid`).all(),
    );
    expect(keyIds.map((row) => row.keyid)).toEqual([0, 1, 2, 3]);
    // Objects sealed under retired keys still decrypt.
    expect(
      store
        .list()
        .map((s) => (s as ReturnType<typeof secret>).stringData.password)
        .sort(),
    ).toEqual(Array.from({ length: 10 }, (_, i) => `value-${i}`).sort());
    database.close();
  });

  it('fails cleanly, without the value in the error, under a wrong key or tampered bytes', () => {
    const sealed = createEncryptor().encrypt(Buffer.from(secretValue), 'row');
    const other = createEncryptor();
    expect(() => other.decrypt(sealed, 'row')).toThrow(DecryptionError);
    expect(() => other.decrypt({ ...sealed, keyId: 7 }, 'row')).toThrow(/unknown to this process/);
    const own = createEncryptor();
    const mine = own.encrypt(Buffer.from(secretValue), 'row');
    expect(() => own.decrypt(mine, 'another row')).toThrow(DecryptionError);
    const flipped = Buffer.from(mine.ciphertext);
    flipped[0] = (flipped[0] as number) ^ 1;
    let error: unknown;
    try {
      own.decrypt({ ...mine, ciphertext: flipped }, 'row');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DecryptionError);
    expect((error as DecryptionError).code).toBe('LASSO_SQLCACHE_DECRYPT_FAILED');
    expect(String((error as Error).message)).not.toContain(secretValue);

    // Through the store: a row sealed for another key cannot be read as this one.
    const database = openSqlDatabase({ driver: driver() });
    const store = createSqlStore<KubeObject>(database, {
      gvk: { group: '', version: 'v1', kind: 'Secret' },
    });
    store.add(secret('a'));
    store.add(secret('b'));
    store.flush();
    database.write((prepare) =>
      prepare(
        `UPDATE "${store.tableName}" SET object = (SELECT object FROM "${store.tableName}" WHERE key = 'ns/b'), nonce = (SELECT nonce FROM "${store.tableName}" WHERE key = 'ns/b') WHERE key = 'ns/a'`,
      ).run(),
    );
    expect(() => store.getByKey('ns/a')).toThrow(DecryptionError);
    expect(store.getByKey('ns/b')).toEqual(secret('b'));
    database.close();
  });

  it('refuses a bad maxUsesPerKey', () => {
    expect(() => createEncryptor({ maxUsesPerKey: 0 })).toThrow(RangeError);
  });
});

describe.each(testDrivers)('database files ($name)', ({ driver }) => {
  it('are created 0600 in a fresh temporary folder and removed with -wal and -shm on close', () => {
    const database = openSqlDatabase({ driver: driver() });
    const store = createSqlStore<KubeObject>(database, {
      gvk: { group: '', version: 'v1', kind: 'ConfigMap' },
    });
    store.add({ metadata: { namespace: 'ns', name: 'a' } });
    store.flush();
    expect(statSync(database.path).mode & 0o777).toBe(0o600);
    expect(statSync(`${database.path}-wal`).mode & 0o777).toBe(0o600);
    const folder = join(database.path, '..');
    database.close();
    expect(existsSync(folder)).toBe(false);
    expect(() => store.size()).toThrow(/closed/);
  });

  it('replace a previous database in a caller folder on start and leave the folder on close', () => {
    const folder = mkdtempSync(join(tmpdir(), 'sqlcache-test-'));
    try {
      for (const suffix of ['', '-wal', '-shm']) {
        writeFileSync(join(folder, `cache.db${suffix}`), `stale ${secretValue}`);
      }
      const database = openSqlDatabase({
        driver: driver(),
        directory: folder,
        fileName: 'cache.db',
      });
      expect(databaseBytes(database.path).indexOf(Buffer.from(secretValue))).toBe(-1);
      database.close();
      expect(readdirSync(folder)).toEqual([]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('refuses bad options', () => {
    expect(() => openSqlDatabase({ fileName: '../x.db' })).toThrow(TypeError);
    expect(() => openSqlDatabase({ busyTimeoutMs: -1 })).toThrow(RangeError);
  });
});
