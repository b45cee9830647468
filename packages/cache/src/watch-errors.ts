// What a reflector does after a failed watch (client-go reflector.go: isWatchErrorRetriable, handleListWatch), and the
// once-per-outage report of a 403 on list or watch.
import { isApiError, isTooManyRequests } from '@lasso/client';
import { errorMessage, isLassoError, type Logger } from '@lasso/core';

/**
 * After a failed watch: `resume` the watch from the last resourceVersion (the server is unreachable or
 * overloaded, or an open stream broke: a list would fare no better), `relist` (the watch session ends; client-go's
 * answer to every other failure), or `poll` (the server does not allow watching this resource at all).
 */
export type WatchFailureAction = 'resume' | 'relist' | 'poll';

/**
 * @internal Classifies a watch failure. `streamBroke` is true when an open stream broke rather than the request
 * being answered with an error: the reflector's own inactivity deadline fired, or the connection failed after
 * events had arrived (client-go's StreamWatcher ends the watch normally on EOF, a reset or a read timeout, and the
 * reflector then resumes).
 */
export function watchFailureAction(error: unknown, streamBroke: boolean): WatchFailureAction {
  if (streamBroke) return 'resume';
  try {
    if (isMethodNotAllowed(error)) return 'poll';
    if (isTooManyRequests(error) || isConnectionRefused(error)) return 'resume';
  } catch {
    // A hostile thrown value (a getter that throws): not one of the failures that resume.
  }
  return 'relist';
}

/** 405 MethodNotAllowed: kube-apiserver's answer to a watch of a resource without the `watch` verb. */
export function isMethodNotAllowed(error: unknown): boolean {
  return isApiError(error) && (error.status === 405 || error.reason === 'MethodNotAllowed');
}

/** 403 Forbidden. */
export function isForbiddenError(error: unknown): boolean {
  return isApiError(error) && (error.status === 403 || error.reason === 'Forbidden');
}

/**
 * True when the connection was refused (ECONNREFUSED anywhere in the cause chain, or named by the transport's
 * message): nothing listens, most likely the API server is restarting, and the watch can resume where it was
 * (client-go's utilnet.IsConnectionRefused). Never throws, whatever `error` is.
 */
export function isConnectionRefused(error: unknown): boolean {
  try {
    let current: unknown = error;
    for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
      const { code, errors, cause } = current as {
        code?: unknown;
        errors?: unknown;
        cause?: unknown;
      };
      if (code === 'ECONNREFUSED') return true;
      // Node's happy-eyeballs connect rejects with an AggregateError of one failure per address.
      if (Array.isArray(errors) && errors.some((inner) => isConnectionRefused(inner))) return true;
      current = cause;
    }
    return (
      isLassoError(error, 'LASSO_CONNECTION_FAILED') && /\bECONNREFUSED\b/.test(errorMessage(error))
    );
  } catch {
    return false;
  }
}

/** The verb a 403 refused: a reflector only lists and watches. */
export type ReflectorVerb = 'list' | 'watch';

/**
 * @internal Says a 403 once per outage and per verb (at warn, naming the verb, the resource and the user the
 * server names in its Status message; the credentials are never read), then once at info when that verb works
 * again. Repeats in between go to debug: the errors metric and the watch error handler still see each one.
 */
export class ForbiddenReporter {
  readonly #logger: Logger;
  readonly #fallbackResource: string;
  readonly #denied = new Set<ReflectorVerb>();

  constructor(logger: Logger, fallbackResource: string) {
    this.#logger = logger;
    this.#fallbackResource = fallbackResource;
  }

  /** True while `verb` has been refused since it last worked. */
  isDenied(verb: ReflectorVerb): boolean {
    return this.#denied.has(verb);
  }

  /** Logs a 403 on `verb` (warn the first time of an outage, debug after). */
  denied(verb: ReflectorVerb, error: unknown, retryInMs: number): void {
    const { resource, namespace, user } = describeForbidden(error, this.#fallbackResource);
    const attributes = {
      verb,
      resource,
      ...(namespace === undefined ? {} : { namespace }),
      user: user ?? 'unknown (the server did not name it)',
      error: errorMessage(error),
      delayMs: Math.round(retryInMs),
    };
    if (this.#denied.has(verb)) {
      this.#logger.debug('still forbidden, retrying', attributes);
      return;
    }
    this.#denied.add(verb);
    this.#logger.warn(
      `forbidden: ${attributes.user} may not ${verb} ${resource}; retrying with backoff, not saying it again until it succeeds`,
      attributes,
    );
  }

  /** Called when `verb` worked: logs the recovery once if it had been refused. */
  allowed(verb: ReflectorVerb): void {
    if (!this.#denied.delete(verb)) return;
    this.#logger.info(`${verb} allowed again after a 403`, { verb });
  }
}

/**
 * The resource, namespace and user of a 403. The resource comes from the request the client described, else from
 * the Status details; the user from kube-apiserver's message (`... is forbidden: User "alice" cannot watch ...`).
 */
function describeForbidden(
  error: unknown,
  fallbackResource: string,
): { resource: string; namespace: string | undefined; user: string | undefined } {
  if (!isApiError(error))
    return { resource: fallbackResource, namespace: undefined, user: undefined };
  const request = error.request;
  const resourceName = request?.resource ?? error.details?.kind;
  const group = request?.resource !== undefined ? request.group : error.details?.group;
  const resource =
    resourceName === undefined || resourceName === ''
      ? fallbackResource
      : group
        ? `${resourceName}.${group}`
        : resourceName;
  const message = error.body?.message ?? error.message;
  const user = /\bUser "((?:[^"\\]|\\.)*)"/.exec(message)?.[1];
  return { resource, namespace: request?.namespace, user };
}
