// Calling the webhooks that match one admission point, as k8s.io/apiserver's mutating and validating
// dispatchers do (1.20): mutating webhooks one after another, ordered by configuration name and then by
// their place in it, each patch applied before the next call, IfNeeded webhooks called once more when a
// later one changed the object; validating webhooks all at once. A failed call follows failurePolicy;
// a denial or a failure that fails closed becomes the request's error.
import type { Clock, Logger } from '@lasso/core';
import { canonical, isRecord, type Json } from '../apimachinery/objects.ts';
import {
  badRequest,
  failure,
  internalError,
  notFound,
  StatusError,
} from '../apimachinery/status.ts';
import { applyJsonPatch } from '../patch/json-patch.ts';
import type { AdmissionPoint, ObjectStore } from '../registry/server-context.ts';
import type { ResourceInfo } from '../resources/builtin-resources.ts';
import { storageKey } from '../resources/builtin-resources.ts';
import type { Registry } from '../resources/served-resources.ts';
import type { KubeObject } from '../storage/store.ts';
import { labelsOf, objectSelectorMatches, rulesMatch, selectorMatches } from './matching.ts';
import {
  buildReview,
  negotiateReviewVersion,
  type ReviewTarget,
  readReviewAnswer,
} from './review.ts';
import { postReview, targetOf } from './webhook-client.ts';

const webhookConfigurationResources = new Set([
  'mutatingwebhookconfigurations',
  'validatingwebhookconfigurations',
]);

/** What calling webhooks needs of the server. */
export interface AdmissionEnvironment {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly store: Pick<ObjectStore, 'get' | 'list'>;
  /** Aborted when the server stops: every webhook call in flight is cancelled at once. */
  readonly signal: AbortSignal;
  /** A stored object as version `info` shows it. */
  toVersion(info: ResourceInfo, object: KubeObject): KubeObject;
  /** An object of version `info` in its stored shape. */
  toStored(info: ResourceInfo, object: KubeObject): KubeObject;
}

/** The facts of the HTTP request the admission point belongs to. */
export interface RequestFacts {
  /** The resource (and version) the request was sent for. */
  readonly info: ResourceInfo;
  readonly subresource: string;
  /** The request's namespace as admission sees it (for a Namespace: its name, except on create). */
  readonly namespace: string;
  readonly name: string;
  readonly user: { name: string; groups: string[] };
  readonly dryRun: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions of the request, by operation. */
  options(operation: AdmissionPoint['operation']): Json;
}

/** One webhook of one configuration. */
interface Webhook {
  readonly configuration: string;
  readonly hook: Json;
  readonly name: string;
}

/** The webhooks of every configuration of one kind, ordered as kube-apiserver calls them. */
export function webhooksOf(environment: AdmissionEnvironment, mutating: boolean): Webhook[] {
  const key = `admissionregistration.k8s.io/${mutating ? 'mutating' : 'validating'}webhookconfigurations`;
  const configurations = environment.store
    .list(key, undefined)
    .map((object) => ({
      name: String(isRecord(object.metadata) ? object.metadata.name : ''),
      object,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const result: Webhook[] = [];
  for (const { name, object } of configurations) {
    for (const hook of Array.isArray(object.webhooks) ? object.webhooks : []) {
      if (isRecord(hook)) result.push({ configuration: name, hook, name: String(hook.name ?? '') });
    }
  }
  return result;
}

/** True when any webhook configuration exists (the fast path skips admission otherwise). */
export function anyWebhooks(environment: AdmissionEnvironment): boolean {
  return webhooksOf(environment, true).length > 0 || webhooksOf(environment, false).length > 0;
}

function targetOfInfo(info: ResourceInfo, subresource: string): ReviewTarget {
  return {
    kind: { group: info.group, version: info.version, kind: info.kind },
    resource: { group: info.group, version: info.version, resource: info.resource },
    subResource: subresource,
  };
}

/** The version of the point's resource `hook` matches (an equivalent one under Equivalent), if any. */
function matchedVersion(
  environment: AdmissionEnvironment,
  hook: Json,
  point: AdmissionPoint,
  facts: RequestFacts,
): ResourceInfo | undefined {
  const attributesOf = (info: ResourceInfo) => ({
    operation: point.operation,
    group: info.group,
    version: info.version,
    resource: info.resource,
    subresource: facts.subresource,
    namespace: facts.namespace,
    isNamespace: point.info.group === '' && point.info.resource === 'namespaces',
  });
  if (rulesMatch(hook.rules, attributesOf(point.info))) return point.info;
  if (hook.matchPolicy === 'Exact') return undefined;
  // Equivalent: the same objects served under another version (or group, as events are): same storage.
  const key = storageKey(point.info);
  return environment.registry
    .all()
    .find(
      (info) =>
        info !== point.info &&
        storageKey(info) === key &&
        rulesMatch(hook.rules, attributesOf(info)),
    );
}

function namespaceLabels(
  environment: AdmissionEnvironment,
  point: AdmissionPoint,
  facts: RequestFacts,
): Record<string, string> | undefined {
  if (point.info.group === '' && point.info.resource === 'namespaces') {
    return labelsOf(point.object ?? point.oldObject);
  }
  if (!point.info.namespaced) return undefined;
  const found = environment.store.get('/namespaces', '', facts.namespace);
  // kube answers the namespace lister's 404 when the namespace does not exist.
  if (found === undefined) throw notFound({ group: '', resource: 'namespaces' }, facts.namespace);
  return labelsOf(found);
}

function selects(
  environment: AdmissionEnvironment,
  hook: Json,
  point: AdmissionPoint,
  facts: RequestFacts,
): boolean {
  const selector = hook.namespaceSelector;
  const empty = !isRecord(selector) || Object.keys(selector).length === 0;
  if (!empty) {
    const labels = namespaceLabels(environment, point, facts);
    if (labels !== undefined && !selectorMatches(selector, labels)) return false;
  }
  return objectSelectorMatches(hook.objectSelector, point.object, point.oldObject);
}

/** A webhook that matched, with the version it matched. */
interface Invocation {
  readonly webhook: Webhook;
  readonly info: ResourceInfo;
}

function invocations(
  environment: AdmissionEnvironment,
  mutating: boolean,
  point: AdmissionPoint,
  facts: RequestFacts,
): Invocation[] {
  if (point.info.group === 'admissionregistration.k8s.io') {
    if (webhookConfigurationResources.has(point.info.resource)) return [];
  }
  const result: Invocation[] = [];
  for (const webhook of webhooksOf(environment, mutating)) {
    const info = matchedVersion(environment, webhook.hook, point, facts);
    if (info === undefined) continue;
    if (!selects(environment, webhook.hook, point, facts)) continue;
    result.push({ webhook, info });
  }
  return result;
}

/** What calling the webhooks of one point produced. */
export interface DispatchResult {
  /** Patches in the order applied, each on the object in the version its webhook saw. */
  readonly patches: { info: ResourceInfo; patch: unknown[] }[];
  /** `Warning` header values (`299 - "text"`). */
  readonly warnings: string[];
  readonly error: StatusError | undefined;
}

/** A failed call: the webhook could not be reached or answered something unusable. */
class CallFailure extends Error {}

function denial(name: string, status: Json | undefined): StatusError {
  const given = status ?? {};
  const deniedBy = `admission webhook ${JSON.stringify(name)} denied the request`;
  const text = typeof given.message === 'string' && given.message !== '' ? given.message : '';
  const message = text === '' ? `${deniedBy} without explanation` : `${deniedBy}: ${text}`;
  const code = typeof given.code === 'number' && given.code !== 0 ? given.code : 400;
  const reason = typeof given.reason === 'string' ? given.reason : '';
  return new StatusError(
    failure(code, reason, message, isRecord(given.details) ? (given.details as never) : undefined),
  );
}

function warningValue(text: string): string {
  // kube drops control characters and truncates a warning over 4 KiB.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters removed are the point
  const cleaned = text.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, 4096);
  return `299 - ${JSON.stringify(cleaned)}`;
}

async function call(
  environment: AdmissionEnvironment,
  invocation: Invocation,
  point: AdmissionPoint,
  facts: RequestFacts,
  mutating: boolean,
  object: KubeObject | undefined,
): Promise<{ patch: unknown[] | undefined; warnings: string[] }> {
  const { hook } = invocation.webhook;
  if (facts.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') {
    throw badRequest(
      `admission webhook ${JSON.stringify(invocation.webhook.name)} does not support dry run`,
    );
  }
  const version = negotiateReviewVersion(hook.admissionReviewVersions);
  if (version === undefined) {
    throw new CallFailure('webhook does not accept known AdmissionReview versions (v1, v1beta1)');
  }
  const target = targetOf(hook);
  if (target instanceof Error) throw new CallFailure(target.message);
  // A create's name is the object's (empty while generateName waits for storage to fill it); a
  // Namespace's requests carry its name as their namespace too, a create's included.
  const objectName =
    point.operation === 'CREATE'
      ? String((isRecord(object?.metadata) ? object.metadata.name : undefined) ?? '')
      : facts.name;
  const review = buildReview(version, {
    target: targetOfInfo(invocation.info, facts.subresource),
    requested: targetOfInfo(facts.info, facts.subresource),
    name: objectName,
    namespace:
      point.info.group === '' && point.info.resource === 'namespaces'
        ? objectName
        : facts.namespace,
    operation: point.operation,
    userInfo: { username: facts.user.name, groups: facts.user.groups },
    object: object === undefined ? undefined : environment.toVersion(invocation.info, object),
    oldObject:
      point.oldObject === undefined
        ? undefined
        : environment.toVersion(invocation.info, point.oldObject),
    dryRun: facts.dryRun,
    options: optionsOf(point, facts),
  });
  let body: unknown;
  try {
    body = await postReview(environment.clock, target, review, environment.signal);
  } catch (error) {
    throw new CallFailure(error instanceof Error ? error.message : 'failed to call webhook');
  }
  let answer: ReturnType<typeof readReviewAnswer>;
  try {
    answer = readReviewAnswer(version, review, body, mutating);
  } catch (error) {
    throw new CallFailure(
      error instanceof Error ? error.message : 'received invalid webhook response',
    );
  }
  const warnings = answer.warnings.map(warningValue);
  if (!answer.allowed) {
    throw Object.assign(denial(invocation.webhook.name, answer.status), { warnings });
  }
  return { patch: answer.patch, warnings };
}

/** The request's options; a Namespace's delete carries the uid precondition its storage adds. */
function optionsOf(point: AdmissionPoint, facts: RequestFacts): Json {
  const options = facts.options(point.operation);
  const isNamespace = point.info.group === '' && point.info.resource === 'namespaces';
  if (point.operation !== 'DELETE' || !isNamespace || isRecord(options.preconditions)) {
    return options;
  }
  const metadata = isRecord(point.oldObject?.metadata) ? point.oldObject.metadata : {};
  return { ...options, preconditions: { uid: metadata.uid } };
}

/**
 * Turn a failed call into the request's error (Fail) or nothing (Ignore). Logged at debug: the failure is
 * the webhook's, not the server's, and the client gets it as its 500 (kube-apiserver 1.20 logs it as a
 * klog warning, which here would print one for each of envtest's always-failing readiness probes).
 */
function failed(
  environment: AdmissionEnvironment,
  webhook: Webhook,
  error: unknown,
): StatusError | undefined {
  if (error instanceof StatusError) return error;
  const reason = error instanceof Error ? error.message : 'unknown failure';
  const message = `failed calling webhook ${JSON.stringify(webhook.name)}: ${reason}`;
  if (webhook.hook.failurePolicy === 'Ignore') {
    environment.logger.debug('admission webhook failed, ignored by its failurePolicy', {
      webhook: webhook.name,
      configuration: webhook.configuration,
      error: reason,
    });
    return undefined;
  }
  environment.logger.debug('admission webhook failed, failing closed', {
    webhook: webhook.name,
    configuration: webhook.configuration,
    error: reason,
  });
  return internalError(message);
}

function warningsOf(error: unknown): string[] {
  const warnings = isRecord(error) ? (error as { warnings?: unknown }).warnings : undefined;
  return Array.isArray(warnings) ? (warnings as string[]) : [];
}

/** Call the mutating webhooks of `point` in order, applying their patches; answers what they did. */
export async function dispatchMutating(
  environment: AdmissionEnvironment,
  point: AdmissionPoint,
  facts: RequestFacts,
): Promise<DispatchResult> {
  const matched = invocations(environment, true, point, facts);
  const patches: DispatchResult['patches'] = [];
  const warnings: string[] = [];
  let object = point.object === undefined ? undefined : structuredClone(point.object);
  // The call index of the last change, for reinvocation: an IfNeeded webhook called before it runs again.
  let lastChange = -1;
  const calledAt = new Map<Invocation, number>();
  let index = 0;
  const invoke = async (invocation: Invocation): Promise<StatusError | undefined> => {
    const at = index++;
    calledAt.set(invocation, at);
    try {
      const result = await call(environment, invocation, point, facts, true, object);
      warnings.push(...result.warnings);
      if (result.patch !== undefined && result.patch.length > 0 && object !== undefined) {
        const before = environment.toVersion(invocation.info, object);
        let patched: unknown;
        try {
          patched = applyJsonPatch(before, result.patch);
        } catch (error) {
          return internalError(error instanceof Error ? error.message : 'the patch does not apply');
        }
        if (!isRecord(patched)) return internalError('the patched object is not a JSON object');
        if (canonical(patched) !== canonical(before)) {
          object = environment.toStored(invocation.info, patched as KubeObject);
          patches.push({ info: invocation.info, patch: result.patch });
          lastChange = at;
        }
      }
      return undefined;
    } catch (error) {
      warnings.push(...warningsOf(error));
      return failed(environment, invocation.webhook, error);
    }
  };
  for (const invocation of matched) {
    const error = await invoke(invocation);
    if (error !== undefined) return { patches, warnings, error };
  }
  const again = matched.filter(
    (invocation) =>
      invocation.webhook.hook.reinvocationPolicy === 'IfNeeded' &&
      (calledAt.get(invocation) ?? Number.POSITIVE_INFINITY) < lastChange,
  );
  for (const invocation of again) {
    const error = await invoke(invocation);
    if (error !== undefined) return { patches, warnings, error };
  }
  return { patches, warnings, error: undefined };
}

/** Call the validating webhooks of `point` at once; the first denial or closed failure wins. */
export async function dispatchValidating(
  environment: AdmissionEnvironment,
  point: AdmissionPoint,
  facts: RequestFacts,
): Promise<DispatchResult> {
  const matched = invocations(environment, false, point, facts);
  const warnings: string[] = [];
  const outcomes = await Promise.all(
    matched.map(async (invocation) => {
      try {
        const result = await call(environment, invocation, point, facts, false, point.object);
        warnings.push(...result.warnings);
        return undefined;
      } catch (error) {
        warnings.push(...warningsOf(error));
        return failed(environment, invocation.webhook, error);
      }
    }),
  );
  return { patches: [], warnings, error: outcomes.find((outcome) => outcome !== undefined) };
}

/** Apply recorded patches to `object` (stored shape), as the webhooks' versions saw it. */
export function replayPatches(
  environment: AdmissionEnvironment,
  object: KubeObject,
  patches: DispatchResult['patches'],
): KubeObject {
  let current = object;
  for (const { info, patch } of patches) {
    const patched = applyJsonPatch(environment.toVersion(info, current), patch);
    if (!isRecord(patched)) throw internalError('the patched object is not a JSON object');
    current = environment.toStored(info, patched as KubeObject);
  }
  return current;
}
