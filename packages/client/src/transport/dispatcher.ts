// The undici Agent of a transport: the cluster's TLS, the client certificate and an optional proxy
// (client-go transport.New / TLSConfigFor, http.Transport.Proxy).
/// <reference path="./undici-modules.d.ts" />
// undici's classes by file, not `from 'undici'`: its index loads all of undici (fetch, WebSocket, caches, mocks)
// and, by touching globalThis.File and Headers, Node's own bundled copy too: 4.8 MiB of heap in every process that
// imports @lasso/client, against 1.9 MiB for the files below (measured on Node 20; issue 32's per-replica heap).
// undici 7 has no exports map, so these paths resolve; a version that adds one fails dispatcher.test.ts and the
// packed-package check, not users. Types still come from the index (`import type` loads nothing).
import type { Dispatcher } from 'undici';
import dispatcherApi from 'undici/lib/api/index.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import UndiciDispatcher from 'undici/lib/dispatcher/dispatcher.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';
import type { RestConfig, TlsConfig } from '../config/rest-config.ts';

/**
 * What undici's index does on load and this file must do instead: request() (our transport's call) and connect()
 * (a ProxyAgent's CONNECT to its proxy) are mixed into Dispatcher.prototype there, not defined by the classes.
 * The same functions of the same files, so a program that also imports undici's index gets the same prototype.
 */
function installDispatcherApi(): void {
  if (typeof UndiciDispatcher.prototype.request !== 'function') {
    Object.assign(UndiciDispatcher.prototype, dispatcherApi);
  }
}

/**
 * A keep-alive, HTTP/1.1 undici Agent for `config` with the TLS settings `tls` (the config's own,
 * or those with an exec plugin's client certificate), tunnelled through `config.proxyUrl` when set.
 */
export function createDispatcher(config: RestConfig, tls: TlsConfig | undefined): Dispatcher {
  installDispatcherApi();
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
