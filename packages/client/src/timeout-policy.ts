// The request-timeout policy of the client in one table: which deadline each kind of request runs under,
// the option that sets it and its default, and the error a passed deadline throws. client-go sets no
// default timeout at all; here short calls get one, and a list or a watch is cut only when it stops moving.
import { TimeoutError } from '@lasso/core';
import { type ApiRequest, describeApiRequest } from './errors.ts';
import { requestInfoFor } from './transport/request-info.ts';
import type { QueryParams } from './transport/rest-request.ts';

/**
 * Default total deadline of a short request (every call but list and watch), in ms: the config's
 * `timeoutMs` when it sets none.
 *
 * @example
 * ```ts
 * const patient = createRestConfig({ server: 'https://127.0.0.1:6443', timeoutMs: 2 * DEFAULT_REQUEST_TIMEOUT_MS });
 * ```
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * Default progress deadline of a list, in ms: the config's `progressTimeoutMs` when it sets none. A list
 * fails when no response bytes arrived for this long (the wait for the headers included), and, once its
 * headers are in, when a window this long brought less than `MIN_RESPONSE_BYTES_PER_SECOND` (1 KiB/s) of
 * body: a list whose body keeps arriving faster is never cut, however long it takes.
 *
 * @example
 * ```ts
 * const slowLink = createRestConfig({ server: 'https://127.0.0.1:6443', progressTimeoutMs: 4 * DEFAULT_PROGRESS_TIMEOUT_MS });
 * ```
 */
export const DEFAULT_PROGRESS_TIMEOUT_MS = 30_000;

/** How much longer than its server-side `timeoutSeconds` a watch may stay silent by default. */
const WATCH_INACTIVITY_MARGIN_MS = 30_000;

/** The kinds of request the policy tells apart (kube-apiserver's verb: `list`, `watch`, anything else). */
export type RequestClass = 'short' | 'list' | 'watch';

/**
 * The deadline that passed: `request` (a total deadline from the start of the attempt), `progress` (no
 * response bytes for that long, a list) or `inactivity` (no bytes for that long, a watch).
 */
export type TimeoutDeadline = 'request' | 'progress' | 'inactivity';

/** One row of {@link TIMEOUT_POLICY}. */
export interface TimeoutRule {
  /** The deadline a request of this class runs under by default. */
  readonly deadline: TimeoutDeadline;
  /** The option (per call, and for `timeoutMs`/`progressTimeoutMs` also in the config) that sets it. */
  readonly option: 'timeoutMs' | 'progressTimeoutMs' | 'inactivityTimeoutMs';
  /** Its default in ms; `undefined` for a watch, whose default follows its `timeoutSeconds`. */
  readonly defaultMs: number | undefined;
  /** What the row covers and what else applies, as the client README says it. */
  readonly summary: string;
}

/**
 * The request-timeout policy: the deadline each {@link RequestClass} runs under. Every deadline is on
 * the config's `clock`, each retry attempt gets its own, `0` turns one off, and a passed deadline
 * throws a {@link RequestTimeoutError} (`LASSO_TIMEOUT`). A per-call `timeoutMs` sets a total deadline
 * on any request, a list included; a per-call `progressTimeoutMs` sets a progress deadline.
 *
 * @example
 * ```ts
 * console.log(TIMEOUT_POLICY.list.deadline, TIMEOUT_POLICY.list.option); // 'progress' 'progressTimeoutMs'
 * ```
 */
export const TIMEOUT_POLICY: Readonly<Record<RequestClass, TimeoutRule>> = Object.freeze({
  short: Object.freeze({
    deadline: 'request',
    option: 'timeoutMs',
    defaultMs: DEFAULT_REQUEST_TIMEOUT_MS,
    summary:
      'get, create, update, patch, apply, delete, deleteCollection, subresources, discovery: the whole answer within timeoutMs',
  }),
  list: Object.freeze({
    deadline: 'progress',
    option: 'progressTimeoutMs',
    defaultMs: DEFAULT_PROGRESS_TIMEOUT_MS,
    summary:
      'every page of list and listAll (metadata lists too): some response bytes every progressTimeoutMs and, from the headers on, 1 KiB/s of body over each progressTimeoutMs window (SlowResponseError); no total deadline unless the call sets timeoutMs',
  }),
  watch: Object.freeze({
    deadline: 'inactivity',
    option: 'inactivityTimeoutMs',
    defaultMs: undefined,
    summary:
      'watch: some bytes every inactivityTimeoutMs (default timeoutSeconds + 30 s, none without timeoutSeconds); a started event 1 KiB/s over each 30 s window until its newline (SlowResponseError); an idle watch is never cut by that; never a total deadline',
  }),
});

/** @internal The class of a request, from its method, path and query (kube-apiserver's verb). */
export function requestClassOf(
  method: string,
  path: string,
  query: QueryParams | undefined,
): RequestClass {
  // Only a GET can be a list or a watch: skip the path parse for every write.
  if (method !== 'GET') return 'short';
  const { verb } = requestInfoFor(method, path, query);
  return verb === 'list' ? 'list' : verb === 'watch' ? 'watch' : 'short';
}

/** @internal The deadlines of one attempt, in ms; 0: none. */
export interface RequestDeadlines {
  totalMs: number;
  progressMs: number;
}

/**
 * @internal The deadlines of a request read whole ({@link RestTransport.requestJson}): the per-call
 * values when set, else the config's default of the deadline its class runs under (a watch read whole
 * is held to the list's progress deadline). Throws a RangeError naming a bad per-call option and
 * `request` (`RestTransport: GET /api/v1/...: timeoutMs must be ...`). Every value returned is a
 * finite number >= 0: `defaults` were checked when the transport was built.
 */
export function resolveDeadlines(
  requestClass: RequestClass,
  perCall: { timeoutMs?: number | undefined; progressTimeoutMs?: number | undefined },
  defaults: { timeoutMs: number; progressTimeoutMs: number },
  request: { method: string; path: string },
): RequestDeadlines {
  checkTimeoutOption(perCall.timeoutMs, 'timeoutMs', 'RestTransport', request);
  checkTimeoutOption(perCall.progressTimeoutMs, 'progressTimeoutMs', 'RestTransport', request);
  const short = requestClass === 'short';
  return {
    totalMs: perCall.timeoutMs ?? (short ? defaults.timeoutMs : 0),
    progressMs: perCall.progressTimeoutMs ?? (short ? 0 : defaults.progressTimeoutMs),
  };
}

/**
 * @internal The inactivity deadline of a watch: `inactivityTimeoutMs`, else `timeoutSeconds` + 30 s,
 * else none (0).
 */
export function watchInactivityMs(options: {
  inactivityTimeoutMs?: number | undefined;
  timeoutSeconds?: number | undefined;
}): number {
  return (
    options.inactivityTimeoutMs ??
    (options.timeoutSeconds !== undefined
      ? options.timeoutSeconds * 1000 + WATCH_INACTIVITY_MARGIN_MS
      : 0)
  );
}

/**
 * @internal Throw a RangeError naming `where` (then `request`, when given) and `option` unless `value` is
 * undefined or a finite number >= 0. The message is built only when it throws: a request's own options
 * are checked on every request.
 */
export function checkTimeoutOption(
  value: unknown,
  option: string,
  where: string,
  request?: { method: string; path: string },
): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    const prefix = request === undefined ? where : `${where}: ${request.method} ${request.path}`;
    throw new RangeError(
      `${prefix}: ${option} must be a finite number of ms >= 0 (0: none), got ${String(value)}`,
    );
  }
}

/** The option that sets each deadline, read off {@link TIMEOUT_POLICY}'s rows. */
const OPTION_OF = Object.fromEntries(
  Object.values(TIMEOUT_POLICY).map((rule) => [rule.deadline, rule.option]),
) as Record<TimeoutDeadline, TimeoutRule['option']>;

/**
 * A request ran past one of its deadlines ({@link TIMEOUT_POLICY}). `code` is `LASSO_TIMEOUT` (it is a
 * core `TimeoutError`, `timeoutMs` the deadline that passed); `deadline` says which one, `option` the
 * option that changes it, `request` what was asked. The message says all of it:
 * `list configmaps in namespace "d" (GET /api/v1/namespaces/d/configmaps): no response bytes for 30000 ms
 * (progress deadline, progressTimeoutMs)`. A deadline that passed while an exec credential plugin ran
 * names the plugin (`waitingFor`, appended as `, still waiting for exec plugin "aws" (users[u].user.exec)`;
 * never its args or env).
 *
 * @example
 * ```ts
 * const configMaps = clientFor(rest, { apiVersion: 'v1', kind: 'ConfigMap' });
 * try {
 *   await configMaps.list('default', { progressTimeoutMs: 60_000 });
 * } catch (error) {
 *   // The message names the deadline and its option: `... no response bytes for 60000 ms (progress deadline, progressTimeoutMs)`.
 *   if (isLassoError(error, 'LASSO_TIMEOUT')) console.log(`gave up after ${error.timeoutMs} ms: ${error.message}`);
 *   else throw error;
 * }
 * ```
 */
export class RequestTimeoutError extends TimeoutError {
  /** Which deadline passed. */
  readonly deadline: TimeoutDeadline;
  /** The option that sets that deadline (per call, or in the config). */
  readonly option: TimeoutRule['option'];
  /** What the request asked for. */
  readonly request: ApiRequest;
  /** What the request was still waiting for when the deadline passed (an exec plugin), if known. */
  readonly waitingFor: string | undefined;
  readonly #method: string;

  constructor(
    init: {
      method: string;
      request: ApiRequest;
      deadline: TimeoutDeadline;
      timeoutMs: number;
      waitingFor?: string | undefined;
    },
    options?: { cause?: unknown },
  ) {
    const { method, request, deadline, timeoutMs, waitingFor } = init;
    const option = OPTION_OF[deadline];
    const what =
      deadline === 'request'
        ? `no whole answer within ${timeoutMs} ms`
        : deadline === 'progress'
          ? `no response bytes for ${timeoutMs} ms`
          : `no bytes for ${timeoutMs} ms`;
    // `get /api` says no more than `GET /api`: a non-resource path is named once.
    const asked =
      request.resource === undefined
        ? `${method} ${request.path}`
        : `${describeApiRequest(request)} (${method} ${request.path})`;
    const waiting = waitingFor === undefined ? '' : `, still waiting for ${waitingFor}`;
    super(`${asked}: ${what} (${deadline} deadline, ${option})${waiting}`, timeoutMs, options);
    this.deadline = deadline;
    this.option = option;
    this.request = request;
    this.waitingFor = waitingFor;
    this.#method = method;
  }

  /** @internal This error, said to have passed while the request waited for `what`. */
  whileWaitingFor(what: string): RequestTimeoutError {
    return new RequestTimeoutError(
      {
        method: this.#method,
        request: this.request,
        deadline: this.deadline,
        timeoutMs: this.timeoutMs,
        waitingFor: what,
      },
      { cause: this.cause },
    );
  }

  /** @internal The error of `deadline` passing on a request. */
  static of(
    request: { method: string; path: string; query?: QueryParams | undefined },
    deadline: TimeoutDeadline,
    timeoutMs: number,
  ): RequestTimeoutError {
    return new RequestTimeoutError({
      method: request.method,
      request: requestInfoFor(request.method, request.path, request.query),
      deadline,
      timeoutMs,
    });
  }
}
