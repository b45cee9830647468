// The undici Agent of a transport: the cluster's TLS, the client certificate and an optional proxy
// (client-go transport.New / TLSConfigFor, http.Transport.Proxy).
import { Agent, type Dispatcher, ProxyAgent } from 'undici';
import type { RestConfig, TlsConfig } from '../config/rest-config.ts';

/**
 * A keep-alive, HTTP/1.1 undici Agent for `config` with the TLS settings `tls` (the config's own,
 * or those with an exec plugin's client certificate), tunnelled through `config.proxyUrl` when set.
 */
export function createDispatcher(config: RestConfig, tls: TlsConfig | undefined): Dispatcher {
  const connect = {
    ...(tls?.caPem !== undefined ? { ca: tls.caPem } : {}),
    ...(tls?.certPem !== undefined ? { cert: tls.certPem } : {}),
    ...(tls?.keyPem !== undefined ? { key: tls.keyPem } : {}),
    ...(tls?.serverName !== undefined ? { servername: tls.serverName } : {}),
    rejectUnauthorized: tls?.insecureSkipTLSVerify !== true,
  };
  // Our own clock-driven timeouts replace undici's real-time ones (a quiet watch is not an error).
  const common = { keepAliveTimeout: 30_000, headersTimeout: 0, bodyTimeout: 0, allowH2: false };
  if (config.proxyUrl !== undefined) {
    // As client-go (Go's http.Transport), the cluster's CA and insecure-skip-tls-verify also govern
    // an https proxy's certificate; the client certificate and tls-server-name are for the server only.
    const proxyTls = {
      ...(tls?.caPem !== undefined ? { ca: tls.caPem } : {}),
      rejectUnauthorized: tls?.insecureSkipTLSVerify !== true,
    };
    return new ProxyAgent({ uri: config.proxyUrl, requestTls: connect, proxyTls, ...common });
  }
  return new Agent({ connect, ...common });
}
