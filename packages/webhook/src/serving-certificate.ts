// The serving certificate of the webhook server: PEM given inline, or files watched on disk and swapped into the
// running server (server.setSecureContext) when they change, as cert-manager and kubelet's Secret volumes rotate
// them (an atomic `..data` symlink swap, or plain rewrites of each file).
import { X509Certificate } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { type Clock, errorMessage, type Logger, type TimerHandle } from '@lasso/core';
import { WebhookTlsError } from './errors.ts';

/**
 * The serving certificate: PEM files (reloaded when they change) or PEM text (fixed). The certificate file may
 * hold the chain after the leaf.
 */
export type WebhookTlsOptions =
  | {
      /** PEM certificate (chain) file, e.g. cert-manager's `tls.crt`. */
      certFile: string;
      /** PEM private key file, e.g. `tls.key`. */
      keyFile: string;
      /** Wait this long after a change on disk before reloading, so both files of a rewrite land (default 100). */
      reloadDelayMs?: number | undefined;
    }
  | {
      certPem: string;
      keyPem: string;
    };

/** A certificate and key that node:tls accepted. */
export interface LoadedCertificate {
  readonly cert: string;
  readonly key: string;
  /** SHA-256 fingerprint of the leaf (public, safe to log). */
  readonly fingerprint256: string;
  readonly validTo: string;
}

function check(cert: string, key: string, where: string): LoadedCertificate {
  try {
    // createSecureContext checks that the key matches the certificate (OpenSSL's check_private_key).
    createSecureContext({ cert, key });
    const leaf = new X509Certificate(cert);
    return { cert, key, fingerprint256: leaf.fingerprint256, validTo: leaf.validTo };
  } catch (error) {
    // The message of node:tls never holds key material; the key itself is never part of one.
    throw new WebhookTlsError(`${where}: ${errorMessage(error)}`, { cause: error });
  }
}

/** @internal Reads, checks and (for files) watches the serving certificate of one server run. */
export class ServingCertificate {
  readonly #options: WebhookTlsOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #onReload: (certificate: LoadedCertificate) => void;
  readonly #onReloadFailure: () => void;
  #current: LoadedCertificate | undefined;
  #watchers: FSWatcher[] = [];
  #timer: TimerHandle | undefined;
  #reloading: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(init: {
    options: WebhookTlsOptions;
    clock: Clock;
    logger: Logger;
    onReload: (certificate: LoadedCertificate) => void;
    onReloadFailure: () => void;
  }) {
    this.#options = init.options;
    this.#clock = init.clock;
    this.#logger = init.logger;
    this.#onReload = init.onReload;
    this.#onReloadFailure = init.onReloadFailure;
  }

  /** Validate the options' shape: a TypeError or RangeError naming the bad option. */
  static checkOptions(options: WebhookTlsOptions): void {
    if (typeof options !== 'object' || options === null) {
      throw new TypeError(
        'createWebhookServer: options.tls must be { certFile, keyFile } or { certPem, keyPem }',
      );
    }
    if ('certFile' in options) {
      for (const name of ['certFile', 'keyFile'] as const) {
        if (typeof options[name] !== 'string' || options[name] === '') {
          throw new TypeError(`createWebhookServer: options.tls.${name} must be a non-empty path`);
        }
      }
      const delay = options.reloadDelayMs ?? 100;
      if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0) {
        throw new RangeError(
          `createWebhookServer: options.tls.reloadDelayMs must be a number >= 0, got ${String(options.reloadDelayMs)}`,
        );
      }
    } else {
      const pem = options as { certPem?: unknown; keyPem?: unknown };
      for (const name of ['certPem', 'keyPem'] as const) {
        if (typeof pem[name] !== 'string' || pem[name] === '') {
          throw new TypeError(
            `createWebhookServer: options.tls.${name} must be a non-empty PEM string`,
          );
        }
      }
    }
  }

  /** The certificate now served. */
  get current(): LoadedCertificate | undefined {
    return this.#current;
  }

  /** Read and check the certificate; throws a {@link WebhookTlsError}. */
  async load(): Promise<LoadedCertificate> {
    const options = this.#options;
    if (!('certFile' in options)) {
      this.#current = check(options.certPem, options.keyPem, 'options.tls');
      return this.#current;
    }
    this.#current = await this.#readFiles(options.certFile, options.keyFile);
    return this.#current;
  }

  async #readFiles(certFile: string, keyFile: string): Promise<LoadedCertificate> {
    let cert: string;
    let key: string;
    try {
      [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    } catch (error) {
      throw new WebhookTlsError(`reading ${certFile} and ${keyFile}: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    return check(cert, key, `${certFile} and ${keyFile}`);
  }

  /** Watch the files' directories (nothing for inline PEM) until {@link stop}. */
  watch(): void {
    const options = this.#options;
    if (!('certFile' in options)) return;
    this.#stopped = false;
    const certFile = resolve(options.certFile);
    const keyFile = resolve(options.keyFile);
    const names = new Set([basename(certFile), basename(keyFile), '..data']);
    // The directory, not the files: an atomic rename replaces the inode a file watch would follow.
    for (const directory of new Set([dirname(certFile), dirname(keyFile)])) {
      try {
        const watcher = watch(directory, { persistent: false }, (_event, name) => {
          if (name === null || names.has(String(name)))
            this.#schedule(options.reloadDelayMs ?? 100);
        });
        watcher.on('error', (error) => {
          this.#logger.error('watching the serving certificate failed; rotations are not seen', {
            directory,
            error: errorMessage(error),
          });
        });
        this.#watchers.push(watcher);
      } catch (error) {
        this.#logger.error('watching the serving certificate failed; rotations are not seen', {
          directory,
          error: errorMessage(error),
        });
      }
    }
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    if (delayMs === 0) {
      this.#queueReload();
      return;
    }
    if (this.#timer !== undefined) return; // coalesce a burst of events into one reload
    this.#timer = this.#clock.schedule(delayMs, () => {
      this.#timer = undefined;
      this.#queueReload();
    });
  }

  #queueReload(): void {
    // One reload at a time, in order: the last event's read wins.
    this.#reloading = this.#reloading.then(() => this.#reload());
  }

  async #reload(): Promise<void> {
    const options = this.#options;
    if (this.#stopped || !('certFile' in options)) return;
    let next: LoadedCertificate;
    try {
      next = await this.#readFiles(options.certFile, options.keyFile);
    } catch (error) {
      if (this.#stopped) return;
      // Half of a rotation (a new certificate beside the old key) lands here; the next event completes it.
      this.#logger.warn('serving certificate reload failed; keeping the previous one', {
        error: errorMessage(error),
      });
      this.#onReloadFailure();
      return;
    }
    if (this.#stopped) return;
    if (this.#current?.cert === next.cert && this.#current.key === next.key) return;
    this.#current = next;
    this.#onReload(next);
    this.#logger.info('serving certificate reloaded', {
      fingerprint256: next.fingerprint256,
      validTo: next.validTo,
    });
  }

  /** Stop watching; a reload in progress is dropped. Resolves once it has settled. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    for (const watcher of this.#watchers.splice(0)) watcher.close();
    await this.#reloading;
  }
}
