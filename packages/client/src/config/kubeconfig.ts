// Kubeconfig loading (client-go tools/clientcmd): KUBECONFIG lists merged as kubectl does, contexts, TLS, auth.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import {
  type Clock,
  errorMessage,
  LassoError,
  type Logger,
  type MetricsProvider,
} from '@lasso/core';
import {
  type AuthConfig,
  createRestConfig,
  defaultServerScheme,
  type ExecConfig,
  type Impersonation,
  type RestConfig,
  type TlsConfig,
} from './rest-config.ts';
import { tlsMaterialProblem } from './tls-material.ts';

/** Options of {@link loadKubeConfig}. */
export interface LoadKubeConfigOptions {
  /** One file or several (merged as the KUBECONFIG list). Default: `$KUBECONFIG`, else `~/.kube/config`. */
  path?: string | string[] | undefined;
  /** Context to use instead of `current-context`. */
  context?: string | undefined;
  /** Environment to read `KUBECONFIG` from (default `process.env`). */
  env?: Record<string, string | undefined> | undefined;
  /** Home directory for `~/.kube/config` (default `os.homedir()`). */
  homeDir?: string | undefined;
  /** Passed into the RestConfig. */
  clock?: Clock | undefined;
  logger?: Logger | undefined;
  metrics?: MetricsProvider | undefined;
  /** The RestConfig's `timeoutMs`: total deadline of short requests (default 30 s). */
  timeoutMs?: number | undefined;
  /** The RestConfig's `progressTimeoutMs`: progress deadline of lists (default 30 s). */
  progressTimeoutMs?: number | undefined;
}

type Entry = { name: string; value: Record<string, unknown>; file: string };

interface MergedKubeConfig {
  files: string[];
  currentContext: string | undefined;
  clusters: Map<string, Entry>;
  users: Map<string, Entry>;
  contexts: Map<string, Entry>;
}

const invalid = (message: string, cause?: unknown): LassoError =>
  new LassoError('LASSO_CONFIG_INVALID', message, cause === undefined ? undefined : { cause });

/** The kubeconfig files to read: the `path` option, else `$KUBECONFIG` (list), else `~/.kube/config`. */
export function kubeConfigPaths(
  options: Pick<LoadKubeConfigOptions, 'path' | 'env' | 'homeDir'> = {},
): {
  paths: string[];
  explicit: boolean;
} {
  if (options.path !== undefined) {
    const paths = Array.isArray(options.path) ? options.path : [options.path];
    if (paths.length === 0 || paths.some((p) => typeof p !== 'string' || p === '')) {
      throw new TypeError('loadKubeConfig: path must be a non-empty string or array of strings');
    }
    return { paths, explicit: paths.length === 1 };
  }
  const env = options.env ?? process.env;
  const list = env.KUBECONFIG;
  if (list !== undefined && list !== '') {
    return { paths: list.split(delimiter).filter((p) => p !== ''), explicit: false };
  }
  return { paths: [join(options.homeDir ?? homedir(), '.kube', 'config')], explicit: true };
}

/**
 * Load a kubeconfig as kubectl does: the files of the KUBECONFIG list merged (the first file to
 * define a cluster, user, context or current-context wins; missing list entries are skipped),
 * then the chosen context resolved into a {@link RestConfig}. Relative file paths resolve against
 * the file that names them.
 *
 * Errors are `LASSO_CONFIG_INVALID` LassoErrors naming the file and field (a missing file,
 * unparsable YAML, an unknown context, a missing cluster or user, a CA that is not PEM); they never
 * contain a secret.
 *
 * @example
 * ```ts
 * const rest = await loadKubeConfig({ context: 'kind-dev' });
 * const pods = new Client({ gvr: { group: '', version: 'v1', resource: 'pods' }, kind: 'Pod', namespaced: true, rest });
 * ```
 */
export async function loadKubeConfig(options: LoadKubeConfigOptions = {}): Promise<RestConfig> {
  const { paths, explicit } = kubeConfigPaths(options);
  const documents: Array<{ file: string; document: Record<string, unknown> }> = [];
  for (const path of paths) {
    const file = resolve(path);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if (!explicit && (error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw invalid(`cannot read kubeconfig ${file}: ${errorMessage(error)}`, error);
    }
    documents.push({ file, document: await parseKubeConfigYaml(text, file) });
  }
  if (documents.length === 0) {
    throw invalid(`no kubeconfig found: none of ${paths.map((p) => resolve(p)).join(', ')} exists`);
  }
  const merged = mergeKubeConfigs(documents);
  return restConfigFromKubeConfig(merged, options);
}

/**
 * A {@link RestConfig} from the text of one kubeconfig (YAML or JSON) held in memory rather than in a file:
 * what another client's configuration exports (`@kubernetes/client-node`'s `KubeConfig.exportConfig()`), a
 * secret's value. Read as {@link loadKubeConfig} reads a file; relative file paths in it are resolved from
 * `options.directory` (default the working directory), and errors name `options.source` (default
 * `<kubeconfig text>`), never the text.
 *
 * @example
 * ```ts
 * const text = JSON.stringify({
 *   apiVersion: 'v1',
 *   kind: 'Config',
 *   clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }],
 *   users: [{ name: 'u', user: { token: 'abc' } }],
 *   contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
 *   'current-context': 'x',
 * });
 * const rest = await loadKubeConfigFromString(text);
 * ```
 */
export async function loadKubeConfigFromString(
  text: string,
  options: Omit<LoadKubeConfigOptions, 'path' | 'env' | 'homeDir'> & {
    directory?: string | undefined;
    source?: string | undefined;
  } = {},
): Promise<RestConfig> {
  if (typeof text !== 'string') {
    throw new TypeError(`loadKubeConfigFromString: text must be a string, got ${typeof text}`);
  }
  const source = options.source ?? '<kubeconfig text>';
  // Relative paths resolve against the file's directory: a name in `directory` stands for the text.
  const file = resolve(options.directory ?? '.', source);
  const document = await parseKubeConfigYaml(text, source);
  const merged = mergeKubeConfigs([{ file, document }]);
  merged.files = [source];
  return restConfigFromKubeConfig(merged, options);
}

/**
 * Parse one kubeconfig document; errors name `source`. The YAML parser is loaded here, on the first kubeconfig
 * read, not with the package: a process configured in-cluster or by `createRestConfig` never reads YAML, and the
 * parser is about 0.9 MiB of heap for the life of the process.
 */
async function parseKubeConfigYaml(text: string, source: string): Promise<Record<string, unknown>> {
  const { parse: parseYaml } = await import('yaml');
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    // The parser's message quotes the offending source line, which may be a token or password:
    // keep only its position and code, and no cause.
    throw invalid(`${source}: unparsable YAML${yamlErrorPosition(error)}`);
  }
  if (document === null || document === undefined) return {};
  if (typeof document !== 'object' || Array.isArray(document)) {
    throw invalid(`${source}: a kubeconfig must be a YAML mapping`);
  }
  // client-go decodes a kubeconfig as kind Config of apiVersion v1 (absent fields default to them)
  // and refuses any other: a Pod manifest or a v2 file is not a kubeconfig read with fields missing.
  const { apiVersion, kind } = document as { apiVersion?: unknown; kind?: unknown };
  if (apiVersion !== undefined && apiVersion !== null && apiVersion !== '' && apiVersion !== 'v1') {
    throw invalid(
      `${source}: apiVersion: a kubeconfig has apiVersion v1, got ${JSON.stringify(String(apiVersion).slice(0, 60))}`,
    );
  }
  if (kind !== undefined && kind !== null && kind !== '' && kind !== 'Config') {
    throw invalid(
      `${source}: kind: a kubeconfig has kind Config, got ${JSON.stringify(String(kind).slice(0, 60))}`,
    );
  }
  return document as Record<string, unknown>;
}

function yamlErrorPosition(error: unknown): string {
  const { linePos, code } = error as {
    linePos?: Array<{ line: number; col: number }>;
    code?: unknown;
  };
  const at = linePos?.[0];
  const where = at !== undefined ? ` at line ${at.line}, column ${at.col}` : '';
  return `${where}${typeof code === 'string' ? ` (${code})` : ''}`;
}

function mergeKubeConfigs(
  documents: Array<{ file: string; document: Record<string, unknown> }>,
): MergedKubeConfig {
  const merged: MergedKubeConfig = {
    files: documents.map((d) => d.file),
    currentContext: undefined,
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
  };
  for (const { file, document } of documents) {
    const current = document['current-context'];
    if (merged.currentContext === undefined && typeof current === 'string' && current !== '') {
      merged.currentContext = current;
    }
    for (const [field, inner, target] of [
      ['clusters', 'cluster', merged.clusters],
      ['users', 'user', merged.users],
      ['contexts', 'context', merged.contexts],
    ] as const) {
      const list = document[field];
      if (list === undefined || list === null) continue;
      if (!Array.isArray(list)) throw invalid(`${file}: ${field} must be a list`);
      const seen = new Set<string>();
      list.forEach((item: unknown, index) => {
        const entry = item as { name?: unknown } & Record<string, unknown>;
        if (
          typeof entry !== 'object' ||
          entry === null ||
          typeof entry.name !== 'string' ||
          entry.name === ''
        ) {
          throw invalid(`${file}: ${field}[${index}].name must be a non-empty string`);
        }
        // Across files the first wins; within one file client-go refuses a repeated name.
        if (seen.has(entry.name)) {
          throw invalid(
            `${file}: ${field}[${index}].name "${entry.name}" appears twice in ${field}`,
          );
        }
        seen.add(entry.name);
        const value = entry[inner] ?? {};
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          throw invalid(`${file}: ${field}[${entry.name}].${inner} must be a mapping`);
        }
        if (!target.has(entry.name)) {
          target.set(entry.name, {
            name: entry.name,
            value: value as Record<string, unknown>,
            file,
          });
        }
      });
    }
  }
  return merged;
}

async function restConfigFromKubeConfig(
  merged: MergedKubeConfig,
  options: LoadKubeConfigOptions,
): Promise<RestConfig> {
  const files = merged.files.join(', ');
  const contextName = options.context ?? merged.currentContext;
  if (contextName === undefined) {
    throw invalid(`${files}: current-context is not set and no context was given`);
  }
  const context = merged.contexts.get(contextName);
  if (context === undefined) {
    const known = [...merged.contexts.keys()].join(', ') || 'none';
    throw invalid(`${files}: context "${contextName}" not found (contexts: ${known})`);
  }
  const where = `${context.file}: contexts[${contextName}].context`;
  const clusterName = context.value.cluster;
  if (typeof clusterName !== 'string' || clusterName === '') {
    throw invalid(`${where}.cluster must name a cluster`);
  }
  const cluster = merged.clusters.get(clusterName);
  if (cluster === undefined) {
    throw invalid(`${where}.cluster names "${clusterName}" but no clusters[] entry has that name`);
  }
  const userName = context.value.user;
  let user: Entry | undefined;
  if (typeof userName === 'string' && userName !== '') {
    user = merged.users.get(userName);
    if (user === undefined) {
      throw invalid(`${where}.user names "${userName}" but no users[] entry has that name`);
    }
  }
  const namespace = optionalString(context.value.namespace, `${where}.namespace`);

  const c = cluster.value;
  const cw = `${cluster.file}: clusters[${clusterName}].cluster`;
  const rawServer = optionalString(c.server, `${cw}.server`);
  if (rawServer === undefined || rawServer === '') throw invalid(`${cw}.server is required`);
  // Read for its type only: Go's decoder refuses a string there too.
  optionalBoolean(c['disable-compression'], `${cw}.disable-compression`);
  const tls: TlsConfig = {};
  const ca = await pemFrom(c, 'certificate-authority', cluster.file, cw, 'CERTIFICATE');
  const caPem = ca?.pem;
  if (caPem !== undefined) tls.caPem = caPem;
  if (ca !== undefined) {
    const problem = tlsMaterialProblem({ caPem }, { caPem: ca.field, certPem: '', keyPem: '' });
    if (problem !== undefined) throw invalid(`${cluster.file}: ${problem}`);
  }
  if (optionalBoolean(c['insecure-skip-tls-verify'], `${cw}.insecure-skip-tls-verify`) === true) {
    // client-go: "specifying a root certificates file with the insecure flag is not allowed".
    if (caPem !== undefined) {
      throw invalid(
        `${cw}: certificate-authority(-data) and insecure-skip-tls-verify cannot be used together`,
      );
    }
    tls.insecureSkipTLSVerify = true;
  }
  const serverName = optionalString(c['tls-server-name'], `${cw}.tls-server-name`);
  if (serverName) tls.serverName = serverName;
  const proxyUrl = optionalString(c['proxy-url'], `${cw}.proxy-url`);
  if (proxyUrl !== undefined) {
    let protocol: string;
    try {
      protocol = new URL(proxyUrl).protocol;
    } catch {
      throw invalid(`${cw}.proxy-url is not a valid URL`);
    }
    if (protocol !== 'http:' && protocol !== 'https:') {
      throw invalid(`${cw}.proxy-url: only http and https proxies are supported, got ${protocol}`);
    }
  }

  let auth: AuthConfig | undefined;
  let impersonation: Impersonation | undefined;
  if (user !== undefined) {
    const u = user.value;
    const uw = `${user.file}: users[${user.name}].user`;
    const cert = await pemFrom(u, 'client-certificate', user.file, uw, 'CERTIFICATE');
    const key = await pemFrom(u, 'client-key', user.file, uw, 'PRIVATE KEY');
    if ((cert === undefined) !== (key === undefined)) {
      throw invalid(`${uw}: client-certificate and client-key must be given together`);
    }
    if (cert !== undefined && key !== undefined) {
      // client-go's tls.X509KeyPair: a key of another certificate would make the server see
      // system:anonymous, a 403 that names neither file nor field.
      const problem = tlsMaterialProblem(
        { certPem: cert.pem, keyPem: key.pem },
        { caPem: '', certPem: cert.field, keyPem: key.field },
      );
      if (problem !== undefined) throw invalid(`${user.file}: ${problem}`);
      tls.certPem = cert.pem;
      tls.keyPem = key.pem;
    }
    auth = userAuth(u, uw, user.file);
    if (auth?.type === 'exec') {
      const clusterConfig = execExtension(c.extensions, `${cw}.extensions`);
      if (clusterConfig !== undefined) auth.exec.clusterConfig = clusterConfig;
    }
    const as = optionalString(u.as, `${uw}.as`);
    if (as !== undefined && as !== '') {
      impersonation = { user: as };
      const uid = optionalString(u['as-uid'], `${uw}.as-uid`);
      if (uid) impersonation.uid = uid;
      const groups = u['as-groups'];
      if (groups !== undefined && groups !== null) {
        if (!Array.isArray(groups) || groups.some((g) => typeof g !== 'string')) {
          throw invalid(`${uw}.as-groups must be a list of strings`);
        }
        impersonation.groups = groups as string[];
      }
      const extra = u['as-user-extra'];
      if (extra !== undefined && extra !== null) {
        if (typeof extra !== 'object' || Array.isArray(extra)) {
          throw invalid(`${uw}.as-user-extra must be a mapping of lists of strings`);
        }
        impersonation.extra = {};
        for (const [key, values] of Object.entries(extra)) {
          if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) {
            throw invalid(`${uw}.as-user-extra.${key} must be a list of strings`);
          }
          impersonation.extra[key] = values as string[];
        }
      }
    }
  }

  // After the user: a client certificate also makes a server without scheme https.
  const server = defaultServerScheme(rawServer, tls);
  let protocol: string;
  try {
    protocol = new URL(server).protocol;
  } catch {
    // Not quoted: the text may hold userinfo (`https://user:password@host`).
    throw invalid(`${cw}.server is not a valid URL`);
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw invalid(`${cw}.server must be an http or https URL, got ${protocol}`);
  }

  return createRestConfig({
    server,
    ...(Object.keys(tls).length > 0 ? { tls } : {}),
    ...(auth !== undefined ? { auth } : {}),
    ...(impersonation !== undefined ? { impersonation } : {}),
    ...(namespace ? { namespace } : {}),
    ...(proxyUrl !== undefined ? { proxyUrl } : {}),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
    ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.progressTimeoutMs !== undefined
      ? { progressTimeoutMs: options.progressTimeoutMs }
      : {}),
    source: `kubeconfig:${merged.files.join(delimiter)}#${contextName}`,
  });
}

function userAuth(u: Record<string, unknown>, uw: string, file: string): AuthConfig | undefined {
  const token = optionalString(u.token, `${uw}.token`);
  if (token) return { type: 'token', token };
  const tokenFile = optionalString(u.tokenFile, `${uw}.tokenFile`);
  if (tokenFile) return { type: 'tokenFile', path: resolvePath(file, tokenFile) };
  if (u.exec !== undefined && u.exec !== null)
    return { type: 'exec', exec: execConfig(u.exec, `${uw}.exec`, file) };
  if (u['auth-provider'] !== undefined && u['auth-provider'] !== null) {
    throw invalid(
      `${uw}.auth-provider is not supported (removed from client-go); use an exec credential plugin`,
    );
  }
  const username = optionalString(u.username, `${uw}.username`);
  const password = optionalString(u.password, `${uw}.password`);
  if (username || password) {
    if (!username || password === undefined) {
      throw invalid(`${uw}: username and password must be given together`);
    }
    return { type: 'basic', username, password };
  }
  return undefined;
}

function execConfig(raw: unknown, where: string, file: string): ExecConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw invalid(`${where} must be a mapping`);
  }
  const e = raw as Record<string, unknown>;
  const command = optionalString(e.command, `${where}.command`);
  if (!command) throw invalid(`${where}.command is required`);
  const apiVersion = optionalString(e.apiVersion, `${where}.apiVersion`);
  if (
    apiVersion !== 'client.authentication.k8s.io/v1' &&
    apiVersion !== 'client.authentication.k8s.io/v1beta1'
  ) {
    throw invalid(
      `${where}.apiVersion must be client.authentication.k8s.io/v1 or v1beta1, got ${JSON.stringify(apiVersion)}`,
    );
  }
  const exec: ExecConfig = { apiVersion, command, workingDirectory: dirname(file), source: where };
  if (e.args !== undefined && e.args !== null) {
    if (!Array.isArray(e.args) || e.args.some((a) => typeof a !== 'string')) {
      throw invalid(`${where}.args must be a list of strings`);
    }
    exec.args = e.args as string[];
  }
  if (e.env !== undefined && e.env !== null) {
    if (!Array.isArray(e.env)) throw invalid(`${where}.env must be a list of {name, value}`);
    exec.env = e.env.map((item: unknown, index) => {
      const pair = item as { name?: unknown; value?: unknown } | null;
      if (typeof pair?.name !== 'string' || typeof pair.value !== 'string') {
        throw invalid(`${where}.env[${index}] must have string name and value`);
      }
      return { name: pair.name, value: pair.value };
    });
  }
  if (optionalBoolean(e.provideClusterInfo, `${where}.provideClusterInfo`) === true) {
    exec.provideClusterInfo = true;
  }
  const hint = optionalString(e.installHint, `${where}.installHint`);
  if (hint) exec.installHint = hint;
  const mode = e.interactiveMode;
  if (mode === 'Never' || mode === 'IfAvailable' || mode === 'Always') exec.interactiveMode = mode;
  else if (mode !== undefined && mode !== null) {
    throw invalid(`${where}.interactiveMode must be Never, IfAvailable or Always`);
  }
  return exec;
}

/** The `client.authentication.k8s.io/exec` entry of a cluster's `extensions` list, if any. */
function execExtension(extensions: unknown, where: string): unknown {
  if (extensions === undefined || extensions === null) return undefined;
  if (!Array.isArray(extensions)) throw invalid(`${where} must be a list of {name, extension}`);
  const entry = extensions.find(
    (e: unknown) =>
      typeof e === 'object' &&
      e !== null &&
      (e as { name?: unknown }).name === 'client.authentication.k8s.io/exec',
  ) as { extension?: unknown } | undefined;
  return entry?.extension ?? undefined;
}

/** A boolean field: `"true"` or `yes` is refused, as Go's decoder refuses a string for a bool. */
function optionalBoolean(value: unknown, where: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean')
    throw invalid(`${where} must be true or false, got a ${typeof value}`);
  return value;
}

function optionalString(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`${where} must be a string`);
  return value;
}

function resolvePath(file: string, path: string): string {
  const expanded = path.startsWith('~/') ? join(homedir(), path.slice(2)) : path;
  return isAbsolute(expanded) ? expanded : resolve(dirname(file), expanded);
}

/**
 * `<field>-data` (base64) or `<field>` (a file), checked to be PEM of `label`, with the name of
 * the field it came from for messages (`users[u].user.client-key (/abs/path)`, without the file).
 */
async function pemFrom(
  entry: Record<string, unknown>,
  field: string,
  file: string,
  where: string,
  label: 'CERTIFICATE' | 'PRIVATE KEY',
): Promise<{ pem: string; field: string } | undefined> {
  const data = optionalString(entry[`${field}-data`], `${where}.${field}-data`);
  let pem: string;
  let described: string;
  if (data !== undefined && data !== '') {
    pem = Buffer.from(data, 'base64').toString('utf8');
    described = `${where}.${field}-data`;
  } else {
    const path = optionalString(entry[field], `${where}.${field}`);
    if (path === undefined || path === '') return undefined;
    const full = resolvePath(file, path);
    try {
      pem = await readFile(full, 'utf8');
    } catch (error) {
      throw invalid(`${where}.${field}: cannot read ${full}: ${errorMessage(error)}`, error);
    }
    described = `${where}.${field} (${full})`;
  }
  // Keys come as "PRIVATE KEY", "RSA PRIVATE KEY" or "EC PRIVATE KEY".
  const marker =
    label === 'CERTIFICATE' ? /-----BEGIN CERTIFICATE-----/ : /-----BEGIN [A-Z ]*PRIVATE KEY-----/;
  if (!marker.test(pem)) {
    throw invalid(`${described} is not PEM (no "-----BEGIN ${label}-----" block)`);
  }
  return { pem, field: described.slice(`${file}: `.length) };
}
