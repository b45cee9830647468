// Request authentication of a transport: bearer token, token file, basic auth and exec plugin
// (client-go transport's bearer/basic round trippers and plugin/pkg/client/auth/exec). Client
// certificates are TLS: see dispatcher.ts and exec-certificate-agent.ts.
import type { Clock, Logger } from '@lasso/core';
import { type ExecCredential, ExecCredentialProvider } from '../auth/exec.ts';
import { TokenFileSource } from '../auth/token-file.ts';
import { defaultServerScheme, type RestConfig } from '../config/rest-config.ts';

/**
 * Puts the `Authorization` header of a config's `auth` on each request, and after a 401 makes the
 * refreshable sources (token file, exec plugin) fetch a new credential. A static token or basic
 * auth cannot be refreshed.
 */
export class Authenticator {
  readonly #config: RestConfig;
  readonly #tokenFile: TokenFileSource | undefined;
  readonly #exec: ExecCredentialProvider | undefined;

  constructor(config: RestConfig, options: { clock: Clock; logger: Logger }) {
    this.#config = config;
    const auth = config.auth;
    if (auth?.type === 'tokenFile') {
      this.#tokenFile = new TokenFileSource(auth.path, {
        clock: options.clock,
        refreshMs: auth.refreshMs,
        logger: options.logger,
      });
    } else if (auth?.type === 'exec') {
      this.#exec = new ExecCredentialProvider(auth.exec, {
        clock: options.clock,
        cluster: {
          server: defaultServerScheme(config.server, config.tls),
          tlsServerName: config.tls?.serverName,
          insecureSkipTLSVerify: config.tls?.insecureSkipTLSVerify,
          caPem: config.tls?.caPem,
          proxyUrl: config.proxyUrl,
          ...(auth.exec.clusterConfig !== undefined ? { config: auth.exec.clusterConfig } : {}),
        },
      });
    }
  }

  /** The exec credential provider, when the config authenticates with an exec plugin. */
  get execProvider(): ExecCredentialProvider | undefined {
    return this.#exec;
  }

  /** Whether a 401 is worth one more attempt: the credential comes from a file or a plugin. */
  get canRefresh(): boolean {
    return this.#tokenFile !== undefined || this.#exec !== undefined;
  }

  /**
   * Set `headers.authorization` for the next request. Returns the exec credential used (it may also
   * carry a client certificate), so that a 401 invalidates exactly that one.
   */
  async authorize(headers: Record<string, string | string[]>): Promise<ExecCredential | undefined> {
    const auth = this.#config.auth;
    if (auth?.type === 'token') {
      headers.authorization = `Bearer ${auth.token}`;
    } else if (auth?.type === 'basic') {
      headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
    } else if (this.#tokenFile !== undefined) {
      headers.authorization = `Bearer ${await this.#tokenFile.token()}`;
    } else if (this.#exec !== undefined) {
      const credential = await this.#exec.credential();
      if (credential.token !== undefined) headers.authorization = `Bearer ${credential.token}`;
      return credential;
    }
    return undefined;
  }

  /** Kill a running exec plugin (the transport is closing). */
  close(): void {
    this.#exec?.close();
  }

  /**
   * After a 401: re-read the token file and drop `rejected` (the exec credential the refused
   * request carried; a newer one fetched meanwhile is kept).
   */
  refresh(rejected: ExecCredential | undefined): void {
    this.#tokenFile?.invalidate();
    this.#exec?.invalidate(rejected);
  }
}
