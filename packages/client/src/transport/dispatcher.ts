// The undici Agent of a transport: the cluster's TLS, the client certificate and an optional proxy
// (client-go transport.New / TLSConfigFor, http.Transport.Proxy).
// undici's classes by file, not through its index: the index loads all of undici (fetch, WebSocket, caches, mocks)
// and, by touching globalThis.File and Headers, Node's own bundled copy too: 4.8 MiB of heap in every process that
// makes a client, against 1.9 MiB for the files below (measured on Node 20; issue 32's per-replica heap). These
// are undici's internal paths (undici 7 has no exports map): a release that moves or hides them must not break
// anyone, so they are required at first use and a failure falls back to the whole index (more heap, same
// behaviour). Types come from the index (`import type` loads nothing).
// Aliased: bundles that prepend the usual ESM `require` shim must not see a second top-level `createRequire`.
import { createRequire as createModuleRequire } from 'node:module';
import type { Dispatcher, Agent as UndiciAgent, ProxyAgent as UndiciProxyAgent } from 'undici';
import type { RestConfig, TlsConfig } from '../config/rest-config.ts';

/** @internal What createDispatcher needs of undici. */
export interface UndiciParts {
  Agent: typeof UndiciAgent;
  ProxyAgent: typeof UndiciProxyAgent;
  /** `file`: loaded by path (the light way); `index`: the whole package. */
  via: 'file' | 'index';
}

/** @internal A CommonJS `require`. */
export type RequireFn = (id: string) => unknown;

/**
 * @internal undici's Agent and ProxyAgent through `load`: by file, with what undici's index would otherwise mix
 * into Dispatcher.prototype on load (request() for our transport, connect() for a ProxyAgent's CONNECT: the same
 * functions of the same file, so a program that also loads the index gets an identical prototype); else the index.
 */
export function loadUndiciParts(load: RequireFn): UndiciParts {
  try {
    const base = load('undici/lib/dispatcher/dispatcher.js') as typeof Dispatcher;
    if (typeof base.prototype.request !== 'function') {
      Object.assign(base.prototype, load('undici/lib/api/index.js') as object);
    }
    const Agent = load('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
    const ProxyAgent = load('undici/lib/dispatcher/proxy-agent.js') as typeof UndiciProxyAgent;
    if (typeof Agent !== 'function' || typeof ProxyAgent !== 'function') {
      throw new TypeError('undici files are not the classes expected');
    }
    return { Agent, ProxyAgent, via: 'file' };
  } catch {
    const whole = load('undici') as {
      Agent: typeof UndiciAgent;
      ProxyAgent: typeof UndiciProxyAgent;
    };
    return { Agent: whole.Agent, ProxyAgent: whole.ProxyAgent, via: 'index' };
  }
}

let parts: UndiciParts | undefined;

// A require from this file's URL in ES modules; a CommonJS bundle empties import.meta.url and has its own.
function undici(): UndiciParts {
  if (parts === undefined) {
    const url: unknown = import.meta.url;
    parts = loadUndiciParts(typeof url === 'string' ? createModuleRequire(url) : require);
  }
  return parts;
}

/**
 * A keep-alive, HTTP/1.1 undici Agent for `config` with the TLS settings `tls` (the config's own,
 * or those with an exec plugin's client certificate), tunnelled through `config.proxyUrl` when set.
 */
export function createDispatcher(config: RestConfig, tls: TlsConfig | undefined): Dispatcher {
  const { Agent, ProxyAgent } = undici();
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
