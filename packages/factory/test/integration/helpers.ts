// Shared pieces of the factory integration tests: an environment, a RestConfig per test whose undici dispatcher
// records every request (so tests count lists and watches per resource in every mode: built-in server, real
// kube-apiserver or existing cluster), and a waiter that re-checks a condition whenever something happens.
import {
  Client,
  createRestConfig,
  type KubeObject,
  loadKubeConfig,
  type RestConfig,
} from '@lasso/client';
import { Waiter } from '@lasso/core/testing';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { Agent, type Dispatcher } from 'undici';

/** One request as the dispatcher saw it. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
}

// The waiter of every integration suite (`@lasso/core/testing`), re-exported for this suite's tests.
export { Waiter };

/** A RestConfig whose requests are recorded, and how to release it. */
export interface RecordingConfig {
  readonly rest: RestConfig;
  readonly requests: RecordedRequest[];
  /** Notified after every request is recorded. */
  readonly waiter: Waiter;
  /** `group/version/resource` of every collection listed (a LIST or a streaming list, {@link isListRequest}) or watched. */
  collections(kind: 'list' | 'watch'): Set<string>;
  close(): Promise<void>;
}

/** A watch request (a streaming list is one too: it goes on as the watch). */
/** An undici Agent with `config`'s TLS settings and no timeouts of its own: a test's dispatcher to compose on. */
export function tlsAgentFor(config: RestConfig): Agent {
  const tls = config.tls;
  return new Agent({
    connect: {
      ...(tls?.caPem !== undefined ? { ca: tls.caPem } : {}),
      ...(tls?.certPem !== undefined ? { cert: tls.certPem } : {}),
      ...(tls?.keyPem !== undefined ? { key: tls.keyPem } : {}),
      ...(tls?.serverName !== undefined ? { servername: tls.serverName } : {}),
      rejectUnauthorized: tls?.insecureSkipTLSVerify !== true,
    },
    headersTimeout: 0,
    bodyTimeout: 0,
  });
}

export function isWatchRequest(path: string): boolean {
  return /[?&]watch=(1|true)(&|$)/.test(path);
}

/**
 * A request that reads the whole collection: a LIST (GET without `watch`), or a streaming list (a watch with
 * `sendInitialEvents=true`, which the informers send first where the server offers it: the built-in server does,
 * kube-apiserver 1.20.2 refuses it with 422 and the informer lists instead).
 */
export function isListRequest(path: string): boolean {
  return !isWatchRequest(path) || /[?&]sendInitialEvents=true(&|$)/.test(path);
}

/**
 * Lists of `collection` among `requests` from index `from` on: LISTs and streaming lists ({@link isListRequest};
 * a refused streaming list, as on kube-apiserver 1.20.2, is followed by a LIST and counted once).
 */
export function listsOf(recording: RecordingConfig, collection: string, from = 0): number {
  const requests = recording.requests
    .slice(from)
    .filter((request) => request.method === 'GET' && collectionOf(request.path) === collection);
  let lists = 0;
  for (const [index, request] of requests.entries()) {
    if (!isListRequest(request.path)) continue;
    const streaming = isWatchRequest(request.path);
    const next = requests[index + 1];
    // A refused streaming list is answered 422 before any event, and the informer lists right after it.
    if (streaming && next !== undefined && !isWatchRequest(next.path)) continue;
    lists++;
  }
  return lists;
}

/**
 * The collection a request path addresses (`/api/v1/namespaces/ns/configmaps` -> `v1/configmaps`,
 * `/apis/apps/v1/deployments` -> `apps/v1/deployments`), or undefined for discovery and named objects.
 */
export function collectionOf(path: string): string | undefined {
  const [pathname = ''] = path.split('?');
  const parts = pathname.split('/').filter((part) => part !== '');
  let rest: string[];
  let groupVersion: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    groupVersion = parts[1] as string;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    groupVersion = `${parts[1]}/${parts[2]}`;
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  if (rest[0] === 'namespaces' && rest.length === 3) return `${groupVersion}/${rest[2]}`;
  if (rest.length === 1) return `${groupVersion}/${rest[0]}`;
  return undefined;
}

export interface TestCluster {
  readonly env: Environment;
  /** A plain admin config (no recording) for test setup. */
  readonly admin: RestConfig;
  /** A new recording config. */
  recordingConfig(): Promise<RecordingConfig>;
  /** Create a fresh namespace and return its name. */
  namespace(prefix: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startCluster(): Promise<TestCluster> {
  const env = await startEnvironment();
  const admin = await loadKubeConfig({ path: env.kubeconfigPath });
  const namespaces = new Client({
    gvr: { group: '', version: 'v1', resource: 'namespaces' },
    kind: 'Namespace',
    namespaced: false,
    rest: admin,
  });
  let counter = 0;
  return {
    env,
    admin,
    async recordingConfig() {
      const base = await loadKubeConfig({ path: env.kubeconfigPath });
      const requests: RecordedRequest[] = [];
      const waiter = new Waiter();
      const agent = tlsAgentFor(base);
      const dispatcher = agent.compose((dispatch: Dispatcher['dispatch']) => (options, handler) => {
        requests.push({ method: String(options.method), path: String(options.path) });
        waiter.notify();
        return dispatch(options, handler);
      });
      const rest = createRestConfig({ ...base, dispatcher });
      return {
        rest,
        requests,
        waiter,
        collections(kind) {
          const found = new Set<string>();
          for (const request of requests) {
            if (request.method !== 'GET') continue;
            const wanted =
              kind === 'list' ? isListRequest(request.path) : isWatchRequest(request.path);
            if (!wanted) continue;
            const collection = collectionOf(request.path);
            if (collection !== undefined) found.add(collection);
          }
          return found;
        },
        async close() {
          await agent.close();
        },
      };
    },
    async namespace(prefix) {
      const name = `${prefix}-${process.pid}-${++counter}`;
      await namespaces.create(undefined, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
      return name;
    },
    async stop() {
      await env.stop();
    },
  };
}

/** A minimal valid Deployment (the built-in server and kube-apiserver both accept it). */
export function deployment(name: string, namespace: string): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
      },
    },
  };
}
