// The Agent swap for exec-plugin client certificates (client-go's exec authenticator, whose cert
// callback hands each new TLS handshake the plugin's current certificate).
import type { Dispatcher } from 'undici';
import type { ExecCredential } from '../auth/exec.ts';
import type { RestConfig } from '../config/rest-config.ts';
import { createDispatcher } from './dispatcher.ts';

/**
 * The dispatcher requests go through: the config's injected one (never replaced nor closed here),
 * or an Agent of our own, rebuilt whenever an exec plugin hands out a different client
 * certificate. The previous Agent is closed once its in-flight requests finish.
 */
export class ExecCertificateAgent {
  readonly #config: RestConfig;
  readonly #owned: boolean;
  #current: Dispatcher;
  /** Client certificate `#current` was built with, when it came from an exec plugin. */
  #certPem: string | undefined;

  constructor(config: RestConfig) {
    this.#config = config;
    this.#owned = config.dispatcher === undefined;
    this.#current = config.dispatcher ?? createDispatcher(config, config.tls);
  }

  /** The dispatcher to send the next request with. */
  get current(): Dispatcher {
    return this.#current;
  }

  /** Rebuild the Agent when `credential` carries a client certificate other than the current one. */
  use(credential: ExecCredential): void {
    if (!this.#owned || credential.clientCertPem === undefined) return;
    if (credential.clientCertPem === this.#certPem) return;
    const previous = this.#current;
    this.#certPem = credential.clientCertPem;
    this.#current = createDispatcher(this.#config, {
      ...this.#config.tls,
      certPem: credential.clientCertPem,
      keyPem: credential.clientKeyPem,
    });
    // In-flight requests on the old Agent finish; close() waits for them.
    void previous.close().catch(() => {});
  }

  /** Close the Agent this object built (an injected dispatcher belongs to the caller). */
  async close(): Promise<void> {
    if (this.#owned) await this.#current.close();
  }
}
