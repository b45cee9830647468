// RestConfig: where and how to reach one API server as one user (client-go rest.Config), secrets redacted
// from util.inspect and JSON.
import { inspect } from 'node:util';
import type { Clock, Logger, MetricsProvider, TracerProvider } from '@lasso/core';
import type { Dispatcher } from 'undici';
import { tlsMaterialProblem } from './tls-material.ts';

/** TLS settings of a cluster and the client certificate of a user, all PEM text. */
export interface TlsConfig {
  /** CA bundle that signed the server's certificate; system roots when absent. */
  caPem?: string | undefined;
  /** Client certificate (PEM). */
  certPem?: string | undefined;
  /** Client private key (PEM). A secret: redacted from inspect and JSON. */
  keyPem?: string | undefined;
  /** Skip server certificate verification (kubeconfig `insecure-skip-tls-verify`). */
  insecureSkipTLSVerify?: boolean | undefined;
  /** Name to verify the server certificate against (kubeconfig `tls-server-name`). */
  serverName?: string | undefined;
}

/** An exec credential plugin (kubeconfig `users[].user.exec`). */
export interface ExecConfig {
  /** `client.authentication.k8s.io/v1` or `client.authentication.k8s.io/v1beta1`. */
  apiVersion: string;
  command: string;
  args?: string[] | undefined;
  env?: Array<{ name: string; value: string }> | undefined;
  /** Pass the cluster to the plugin in `KUBERNETES_EXEC_INFO`. */
  provideClusterInfo?: boolean | undefined;
  /**
   * The cluster's `extensions[client.authentication.k8s.io/exec]`, passed as `spec.cluster.config`
   * when `provideClusterInfo` is set.
   */
  clusterConfig?: unknown;
  installHint?: string | undefined;
  /**
   * Plugins never get a terminal here (`spec.interactive` is false, stdin is empty), so `Always`
   * fails the credential request with `LASSO_EXEC_PLUGIN_FAILED`, as client-go does without a TTY.
   */
  interactiveMode?: 'Never' | 'IfAvailable' | 'Always' | undefined;
  /**
   * Kill the plugin (SIGKILL) when it has not exited after this long, on the config's clock, and
   * fail the credential with `LASSO_EXEC_PLUGIN_FAILED` (default 60 000 ms; 0: no limit, as in
   * client-go). A browser login (kubelogin) may need more.
   */
  timeoutMs?: number | undefined;
  /**
   * Directory a relative command path (one with a `/`, as `./bin/plugin`) resolves against: the
   * kubeconfig's directory. The plugin itself runs in the process's working directory (as kubectl).
   */
  workingDirectory?: string | undefined;
  /** Where this plugin was configured, for error messages (`<file>: users[name].user.exec`). */
  source?: string | undefined;
}

/** How requests authenticate. Client certificates live in {@link TlsConfig}. */
export type AuthConfig =
  | { type: 'token'; token: string }
  | {
      type: 'tokenFile';
      path: string;
      /** Re-read the file at most this often (default 60 000 ms) and at once after a 401. */
      refreshMs?: number | undefined;
    }
  | { type: 'basic'; username: string; password: string }
  | { type: 'exec'; exec: ExecConfig };

/** `Impersonate-*` headers: act as another user (needs the `impersonate` verb). */
export interface Impersonation {
  user: string;
  uid?: string | undefined;
  groups?: string[] | undefined;
  extra?: Record<string, string[]> | undefined;
}

/**
 * Where and how to reach one API server as one user: client-go's `rest.Config`. Produced by
 * {@link loadKubeConfig}, {@link loadInClusterConfig}, {@link loadDefaultConfig} or
 * {@link createRestConfig}. Clients built from the same RestConfig object share one transport
 * (one undici Agent, keep-alive connections).
 *
 * **Gotchas**: `util.inspect` and `JSON.stringify` of a config made by the loaders or
 * `createRestConfig` redact tokens, passwords, private keys and exec env values; a plain object
 * literal typed as RestConfig has no such protection.
 */
export interface RestConfig {
  /** `https://host:port` (a path prefix is kept: `https://host/k8s/clusters/c-1`). */
  server: string;
  tls?: TlsConfig | undefined;
  auth?: AuthConfig | undefined;
  /** Replaces the default User-Agent `lasso/<version> (<platform>/<arch>) <program>`. */
  userAgent?: string | undefined;
  /**
   * Total deadline of each attempt of a short request: every call but list and watch (get, create,
   * update, patch, delete, deleteCollection, subresources, discovery). Default 30 000 ms; 0: none.
   * Lists and watches have no total deadline unless the call sets one (see `TIMEOUT_POLICY`).
   */
  timeoutMs?: number | undefined;
  /**
   * Progress deadline of each list page: it fails when no response bytes arrived for this long (the
   * wait for the headers included), however long the whole body takes. Default 30 000 ms; 0: none.
   */
  progressTimeoutMs?: number | undefined;
  /**
   * The largest response body read, in bytes (default 512 MiB: about V8's longest string; objects
   * are at most 1.5 MiB in etcd, but a list of all of them is not). Past it the request fails with
   * `LASSO_RESPONSE_TOO_LARGE` and its connection is closed. Watches are bounded per event instead.
   */
  maxResponseBytes?: number | undefined;
  /**
   * The largest watch event (one line of the stream), in bytes (default 16 MiB, as client-go's
   * watch decoder). Past it the watch fails with `LASSO_RESPONSE_TOO_LARGE` and its connection is
   * closed.
   */
  maxWatchEventBytes?: number | undefined;
  /** Client-side token-bucket limit in requests/s; off when absent or 0. */
  qps?: number | undefined;
  /** Bucket size of the client-side limit (default `ceil(qps)`, at least 1). */
  burst?: number | undefined;
  impersonation?: Impersonation | undefined;
  /** The namespace of the kubeconfig context (or the pod's namespace in a cluster). */
  namespace?: string | undefined;
  /** HTTP(S) proxy (kubeconfig `proxy-url`). */
  proxyUrl?: string | undefined;
  /** Which source produced this config: `kubeconfig:<paths>#<context>` or `in-cluster`. */
  source?: string | undefined;
  /** Time source of timeouts, retries and credential expiry. */
  clock?: Clock | undefined;
  logger?: Logger | undefined;
  /**
   * Where the transport counts requests: client-go's `rest_client_requests_total` (code, method,
   * host; code `<error>` for a connection failure), `rest_client_request_duration_seconds` (verb,
   * host; to the response headers) and `rest_client_request_retries_total` (code, verb, host).
   */
  metrics?: MetricsProvider | undefined;
  /**
   * Where the transport's OpenTelemetry spans go: one `CLIENT` span per request (`get configmaps`, attributes
   * `lasso.verb`, `lasso.resource`, `http.response.status_code`, ...), a child of the reconcile whose signal
   * the request carries. Default: the global provider of `@opentelemetry/api` when that optional peer
   * dependency is installed; without it no span is made.
   */
  tracerProvider?: TracerProvider | undefined;
  /** Replace the undici Agent (tests pass a MockAgent). */
  dispatcher?: Dispatcher | undefined;
}

const REDACTED = '<redacted>';

/** @internal Throws a RangeError naming `where` unless `value` is undefined or an integer >= 1. */
export function checkByteLimit(value: unknown, where: string): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 1)) {
    throw new RangeError(`${where} must be an integer number of bytes >= 1, got ${String(value)}`);
  }
}

/**
 * `server` with a scheme, as client-go's `DefaultServerURL` gives it: a `host:port` or a bare host
 * (anything without both a scheme and a host, `localhost:6443` included) gets `https://` when
 * `tls` sets a CA, a client certificate or `insecureSkipTLSVerify`, else `http://`. A URL, or a
 * text with `://` that fails to parse, is returned as it is.
 */
export function defaultServerScheme(server: string, tls: TlsConfig | undefined): string {
  // Unlike Go, a broken URL is not prefixed: `http://https://x:bad` would parse, host `https`.
  if (server.includes('://')) return server;
  try {
    if (new URL(server).host !== '') return server;
  } catch {
    // Not a URL: a host or host:port.
  }
  const secure =
    tls?.caPem !== undefined || tls?.certPem !== undefined || tls?.insecureSkipTLSVerify === true;
  return `${secure ? 'https' : 'http'}://${server}`;
}

/**
 * `url` without its userinfo (`https://user:pass@host` -> `https://redacted@host/`); a text that
 * does not parse is replaced whole when it may hold userinfo (an `@`).
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.includes('@') ? REDACTED : url;
  }
  if (parsed.username === '' && parsed.password === '') return url;
  parsed.username = 'redacted';
  parsed.password = '';
  return parsed.toString();
}

/**
 * A copy of `config` safe to print: token, password, private key, exec env values and the userinfo
 * of `server` and `proxyUrl` replaced.
 */
export function redactRestConfig(config: RestConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (
      value === undefined ||
      key === 'clock' ||
      key === 'logger' ||
      key === 'metrics' ||
      key === 'tracerProvider' ||
      key === 'dispatcher'
    ) {
      continue;
    }
    out[key] = value;
  }
  if (typeof config.server === 'string') out.server = redactUrl(config.server);
  if (config.proxyUrl !== undefined) {
    try {
      const proxy = new URL(config.proxyUrl);
      if (proxy.password !== '') proxy.password = 'redacted';
      out.proxyUrl = proxy.toString();
    } catch {
      out.proxyUrl = REDACTED;
    }
  }
  if (config.tls !== undefined) {
    out.tls = {
      ...config.tls,
      ...(config.tls.keyPem !== undefined ? { keyPem: REDACTED } : {}),
      ...(config.tls.caPem !== undefined ? { caPem: `<${config.tls.caPem.length} chars>` } : {}),
      ...(config.tls.certPem !== undefined
        ? { certPem: `<${config.tls.certPem.length} chars>` }
        : {}),
    };
  }
  const auth = config.auth;
  if (auth !== undefined) {
    switch (auth.type) {
      case 'token':
        out.auth = { type: 'token', token: REDACTED };
        break;
      case 'basic':
        out.auth = { type: 'basic', username: auth.username, password: REDACTED };
        break;
      case 'exec':
        out.auth = {
          type: 'exec',
          exec: {
            ...auth.exec,
            ...(auth.exec.env !== undefined
              ? { env: auth.exec.env.map((e) => ({ name: e.name, value: REDACTED })) }
              : {}),
          },
        };
        break;
      default:
        out.auth = { ...auth };
    }
  }
  return out;
}

/** Attach the redacting `toJSON` and `util.inspect` hooks (non-enumerable) to a config. */
function protect<T extends RestConfig>(config: T): T {
  Object.defineProperty(config, 'toJSON', {
    value: () => redactRestConfig(config),
    enumerable: false,
    configurable: true,
  });
  Object.defineProperty(config, inspect.custom, {
    value: (_depth: number, options: object, inspectFn: typeof inspect) =>
      `RestConfig ${inspectFn(redactRestConfig(config), options)}`,
    enumerable: false,
    configurable: true,
  });
  return config;
}

/**
 * Check and freeze-by-convention a RestConfig: validates `server`, `timeoutMs`, `progressTimeoutMs`, `qps`, `burst`
 * and the TLS material (every certificate parses, the key parses and belongs to `tls.certPem`),
 * throwing a TypeError/RangeError naming the option, and attaches redacting `toJSON` /
 * `util.inspect` hooks.
 * A `server` without scheme (`localhost:6443`) gets one as in client-go: see
 * {@link defaultServerScheme}.
 *
 * @example
 * ```ts
 * const token = process.env.KUBE_TOKEN ?? '';
 * const config = createRestConfig({ server: 'https://127.0.0.1:6443', auth: { type: 'token', token } });
 * ```
 */
export function createRestConfig(init: RestConfig): RestConfig {
  if (typeof init.server !== 'string' || init.server === '') {
    throw new TypeError('createRestConfig: server must be a non-empty URL string');
  }
  const server = defaultServerScheme(init.server, init.tls);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    // Not quoted: the text may hold userinfo (`https://user:password@host`).
    throw new TypeError('createRestConfig: server is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`createRestConfig: server must be http(s), got ${url.protocol}`);
  }
  const tls = init.tls;
  if (tls !== undefined && (tls.certPem === undefined) !== (tls.keyPem === undefined)) {
    throw new TypeError('createRestConfig: tls.certPem and tls.keyPem must be given together');
  }
  const problem =
    tls !== undefined
      ? tlsMaterialProblem(tls, {
          caPem: 'tls.caPem',
          certPem: 'tls.certPem',
          keyPem: 'tls.keyPem',
        })
      : undefined;
  if (problem !== undefined) throw new TypeError(`createRestConfig: ${problem}`);
  for (const key of ['timeoutMs', 'progressTimeoutMs', 'qps', 'burst'] as const) {
    const value = init[key];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new RangeError(`createRestConfig: ${key} must be a finite number >= 0, got ${value}`);
    }
  }
  for (const key of ['maxResponseBytes', 'maxWatchEventBytes'] as const) {
    checkByteLimit(init[key], `createRestConfig: ${key}`);
  }
  if (init.proxyUrl !== undefined) {
    let proxy: URL;
    try {
      proxy = new URL(init.proxyUrl);
    } catch {
      // The URL may carry a proxy password: it is not quoted.
      throw new TypeError('createRestConfig: proxyUrl is not a valid URL');
    }
    if (proxy.protocol !== 'http:' && proxy.protocol !== 'https:') {
      throw new TypeError(`createRestConfig: proxyUrl must be http(s), got ${proxy.protocol}`);
    }
  }
  return protect({ ...init, server });
}
