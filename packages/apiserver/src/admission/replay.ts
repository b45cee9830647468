// Admission for a server whose write path is synchronous (generic-registry.ts): the request is run as a
// dry run with admission hooks that answer from webhook calls already made; where a run reaches an
// admission point (or a conversion) with no answer yet, it goes on as if the webhooks allowed the object
// unchanged and notes the point. The webhooks of every noted point are then called (conversions first, then
// mutating webhooks, then validating ones, which must see what the mutating ones made), and the request
// runs again from the start against the then-current store. Once a dry run passes every point with answers
// that still fit its objects, the request runs for real in the same tick (nothing can change the store
// between the two), replaying the answers in order. A request sees what kube's GuaranteedUpdate would:
// admission against the object it finally writes over.
import { randomUUID } from 'node:crypto';
import { canonical, type Json } from '../apimachinery/objects.ts';
import { internalError, StatusError } from '../apimachinery/status.ts';
import type { AdmissionHooks, AdmissionPoint } from '../registry/server-context.ts';
import type { KubeObject } from '../storage/store.ts';
import {
  type ConversionWebhook,
  conversionKey,
  conversionWebhookOf,
  convertThroughWebhook,
  restoreMetadata,
} from './conversion.ts';
import {
  type AdmissionEnvironment,
  type DispatchResult,
  dispatchMutating,
  dispatchValidating,
  type RequestFacts,
  replayPatches,
} from './webhook-dispatch.ts';

/**
 * How many dry runs a request may take before it is failed: each round calls the webhooks of every point
 * (or conversion) the last one lacked, so a write settles in three or four whatever its number of items.
 */
export const maxAdmissionRounds = 16;

/** An admission point a dry run reached without an answer that fits it. */
interface PendingPoint {
  readonly phase: 'mutate' | 'validate';
  readonly index: number;
  readonly point: AdmissionPoint;
  readonly key: string;
}

interface PendingConversion {
  readonly webhook: ConversionWebhook;
  readonly object: KubeObject;
  readonly apiVersion: string;
  readonly key: string;
}

interface Answer {
  readonly key: string;
  readonly result: DispatchResult;
}

function keyOf(point: AdmissionPoint): string {
  return canonical({
    operation: point.operation,
    group: point.info.group,
    version: point.info.version,
    resource: point.info.resource,
    subresource: point.subresource ?? '',
    object: point.object ?? null,
    oldObject: point.oldObject ?? null,
  });
}

/**
 * Serve one write through the admission webhooks. `run` serves the request once with `hooks` (as a dry
 * run when `probe`); `facts` describes the request once the first run has routed it.
 */
export async function serveAdmitted<T>(
  environment: AdmissionEnvironment,
  facts: () => RequestFacts | undefined,
  run: (hooks: AdmissionHooks, probe: boolean) => T,
): Promise<{ result: T; warnings: string[] }> {
  const mutations: Answer[] = [];
  const validations: Answer[] = [];
  const uids: string[] = [];
  const draws: number[] = [];
  // Converted objects by conversionKey (or the conversion's error), and what a probe still needs.
  const conversions = new Map<string, KubeObject | StatusError>();
  const pending: PendingConversion[] = [];
  const pendingPoints: PendingPoint[] = [];
  const hooksFor = (probe: boolean, used: Answer[]): AdmissionHooks => {
    let mutateIndex = 0;
    let validateIndex = 0;
    let uidIndex = 0;
    let drawIndex = 0;
    const answer = (
      phase: 'mutate' | 'validate',
      answers: Answer[],
      index: number,
      point: AdmissionPoint,
    ): DispatchResult | undefined => {
      const key = keyOf(point);
      const found = answers[index];
      if (found === undefined || (probe && found.key !== key)) {
        if (!probe) {
          throw internalError('admission answers changed between the dry run and the write');
        }
        // The probe goes on as if the webhooks allowed the object unchanged; it runs again once they
        // have answered for every point it reached (a deletecollection reaches one per item).
        pendingPoints.push({ phase, index, point: structuredClone(point), key });
        return undefined;
      }
      used.push(found);
      if (found.result.error !== undefined) throw found.result.error;
      return found.result;
    };
    return {
      mutate(point) {
        const result = answer('mutate', mutations, mutateIndex++, point);
        if (result === undefined || point.object === undefined || result.patches.length === 0) {
          return undefined;
        }
        try {
          return replayPatches(environment, point.object as KubeObject, result.patches);
        } catch (error) {
          if (error instanceof StatusError) throw error;
          throw internalError(error instanceof Error ? error.message : 'the patch does not apply');
        }
      },
      validate(point) {
        answer('validate', validations, validateIndex++, point);
      },
      uid() {
        uids[uidIndex] ??= randomUUID();
        return uids[uidIndex++] as string;
      },
      random() {
        draws[drawIndex] ??= Math.random();
        return draws[drawIndex++] as number;
      },
      convert(info, object, apiVersion) {
        if (object.apiVersion === apiVersion) return undefined;
        const webhook = conversionWebhookOf(environment, info);
        if (webhook === undefined) return undefined;
        const key = conversionKey(object, apiVersion);
        const found = conversions.get(key);
        if (found === undefined) {
          if (!probe) throw internalError('conversions changed between the dry run and the write');
          // The probe goes on with the object as strategy None would convert it; it runs again once
          // the webhook has answered for every object it needed.
          pending.push({ webhook, object: structuredClone(object), apiVersion, key });
          return { ...structuredClone(object), apiVersion };
        }
        if (found instanceof StatusError) throw found;
        return restoreMetadata(object, found);
      },
    };
  };
  const convertPending = async (): Promise<void> => {
    const batches = new Map<string, PendingConversion[]>();
    for (const entry of pending.splice(0)) {
      if (conversions.has(entry.key)) continue;
      const batchKey = `${entry.webhook.crd}\u0000${entry.apiVersion}`;
      const batch = batches.get(batchKey) ?? [];
      if (!batch.some((other) => other.key === entry.key)) batch.push(entry);
      batches.set(batchKey, batch);
    }
    for (const batch of batches.values()) {
      const { webhook, apiVersion } = batch[0] as PendingConversion;
      const result = await convertThroughWebhook(
        environment,
        webhook,
        batch.map((entry) => entry.object),
        apiVersion,
      );
      batch.forEach((entry, index) => {
        conversions.set(
          entry.key,
          result instanceof StatusError ? result : (result[index] as KubeObject),
        );
      });
    }
  };
  for (let round = 0; round < maxAdmissionRounds; round++) {
    let failure: { error: unknown } | undefined;
    const probeUsed: Answer[] = [];
    pendingPoints.length = 0;
    try {
      run(hooksFor(true, probeUsed), true);
    } catch (error) {
      failure = { error };
    }
    // What the probe did after a missing answer followed from a stand-in: call the webhooks, run it
    // again. Conversions first, then mutating webhooks (validating ones must see their result).
    if (pending.length > 0) {
      pendingPoints.length = 0;
      await convertPending();
      continue;
    }
    const mutating = pendingPoints.filter((entry) => entry.phase === 'mutate');
    const waiting = mutating.length > 0 ? mutating : pendingPoints.splice(0);
    if (waiting.length > 0) {
      const requestFacts = facts();
      if (requestFacts === undefined)
        throw internalError('admission before the request was routed');
      for (const { phase, index, point, key } of waiting) {
        const result =
          phase === 'mutate'
            ? await dispatchMutating(environment, point, requestFacts)
            : await dispatchValidating(environment, point, requestFacts);
        (phase === 'mutate' ? mutations : validations)[index] = { key, result };
      }
      continue;
    }
    if (failure !== undefined) throw withWarnings(failure.error, probeUsed);
    const used: Answer[] = [];
    try {
      const result = run(hooksFor(false, used), false);
      return { result, warnings: used.flatMap((entry) => entry.result.warnings) };
    } catch (error) {
      throw withWarnings(error, used);
    }
  }
  throw internalError(
    `admission did not settle after ${maxAdmissionRounds} rounds of webhook calls`,
  );
}

/** The error of a run, with the webhooks' warnings as `Warning` headers. */
function withWarnings(error: unknown, used: readonly Answer[]): unknown {
  const warnings = used.flatMap((entry) => entry.result.warnings);
  if (warnings.length === 0 || !(error instanceof StatusError)) return error;
  return new StatusError(error.status, { ...error.headers, Warning: warnings.join(', ') });
}

/** CreateOptions, UpdateOptions or DeleteOptions as the review's `options` carries them. */
export function reviewOptions(
  operation: AdmissionPoint['operation'],
  query: URLSearchParams,
  deleteOptions: Json | undefined,
): Json {
  if (operation === 'DELETE') {
    return { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', ...(deleteOptions ?? {}) };
  }
  const options: Json = {
    kind: operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions',
    apiVersion: 'meta.k8s.io/v1',
  };
  const dryRun = query.getAll('dryRun');
  if (dryRun.length > 0) options.dryRun = dryRun;
  const fieldManager = query.get('fieldManager');
  if (fieldManager !== null && fieldManager !== '') options.fieldManager = fieldManager;
  return options;
}
