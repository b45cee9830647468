// How the built-in controllers write: as kube-controller-manager does, through the API (the same request
// handling a client's request gets: strategies, preconditions, finalizers, managedFields, watch events),
// but in-process, without HTTP, authentication or authorization.
import { isRecord, type Json } from '../apimachinery/objects.ts';
import { StatusError } from '../apimachinery/status.ts';
import type { UserInfo } from '../authentication/authenticate.ts';
import { builtinVersion } from '../endpoints/discovery.ts';
import type { ApiRequest, ApiResult } from '../registry/server-context.ts';
import { type RequestInfo, requestInfo } from '../request/request-info.ts';
import { apiVersionOf, type ResourceInfo, storageKey } from '../resources/builtin-resources.ts';
import type { Registry } from '../resources/served-resources.ts';

/** Serves one classified request (`ApiCore.handle`). */
export type RequestHandler = (info: RequestInfo, request: ApiRequest) => ApiResult;

/** The outcome of a controller's write: done, or the Status code it failed with. */
export type WriteOutcome =
  | { ok: true; body: unknown }
  | { ok: false; code: number; message: string };

/** A client of one controller: writes go through the server's request handling as that controller's user. */
export class InProcessClient {
  readonly #handle: RequestHandler;
  readonly #registry: Registry;
  readonly #user: UserInfo;
  readonly #userAgent: string;

  constructor(options: {
    handle: RequestHandler;
    registry: Registry;
    /** The controller's service account in kube-system (kube-controller-manager's --use-service-account-credentials). */
    serviceAccount: string;
  }) {
    this.#handle = options.handle;
    this.#registry = options.registry;
    const name = `system:serviceaccount:kube-system:${options.serviceAccount}`;
    this.#user = { name, groups: ['system:serviceaccounts', 'system:authenticated'] };
    // managedFields take the manager from the user agent's first word, as for kube-controller-manager.
    this.#userAgent = `kube-controller-manager/${builtinVersion.gitVersion} (linux/amd64) kubernetes/lasso/${name}`;
  }

  /** The served resource stored under `key` (the core group first: `/events` is also events.k8s.io's). */
  resourceOf(key: string): ResourceInfo | undefined {
    let found: ResourceInfo | undefined;
    for (const info of this.#registry.all()) {
      if (storageKey(info) !== key) continue;
      if (found === undefined || (info.group === '' && found.group !== '')) found = info;
    }
    return found === undefined ? undefined : this.#registry.anyVersion(found.group, found.resource);
  }

  /** DELETE with DeleteOptions `options`. */
  delete(info: ResourceInfo, namespace: string, name: string, options: Json): WriteOutcome {
    const body = { kind: 'DeleteOptions', apiVersion: 'v1', ...options };
    return this.#send('DELETE', pathOf(info, namespace, name), body);
  }

  /** A JSON merge patch of the main resource. */
  mergePatch(info: ResourceInfo, namespace: string, name: string, patch: Json): WriteOutcome {
    return this.#send(
      'PATCH',
      pathOf(info, namespace, name),
      patch,
      'application/merge-patch+json',
    );
  }

  /** PUT of a subresource (`status`, a Namespace's `finalize`). */
  put(info: ResourceInfo, name: string, subresource: string, object: Json): WriteOutcome {
    return this.#send('PUT', `${pathOf(info, '', name)}/${subresource}`, object);
  }

  #send(
    method: string,
    path: string,
    body: unknown,
    contentType = 'application/json',
  ): WriteOutcome {
    const url = new URL(path, 'https://127.0.0.1');
    const request: ApiRequest = {
      method,
      url,
      headers: { 'content-type': contentType, 'user-agent': this.#userAgent },
      body: Buffer.from(JSON.stringify(body)),
      user: this.#user,
    };
    try {
      const result = this.#handle(requestInfo(method, url), request);
      return { ok: true, body: result.type === 'json' ? result.body : undefined };
    } catch (error) {
      if (!(error instanceof StatusError)) throw error;
      return { ok: false, code: error.code, message: error.message };
    }
  }
}

/** The URL path of one object of `info` (namespace '' for a cluster-scoped one). */
function pathOf(info: ResourceInfo, namespace: string, name: string): string {
  const root = info.group === '' ? '/api' : '/apis';
  const scope = info.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${root}/${apiVersionOf(info)}${scope}/${info.resource}/${encodeURIComponent(name)}`;
}

/** `metadata.finalizers` of an object as strings. */
export function finalizersOf(object: Json): string[] {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  return Array.isArray(metadata.finalizers) ? metadata.finalizers.map(String) : [];
}
