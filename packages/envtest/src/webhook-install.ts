// installWebhooks: Mutating- and ValidatingWebhookConfigurations pointed at a local webhook server and
// installed until the API server calls them (controller-runtime envtest's WebhookInstallOptions).
// kube-apiserver's admission plugins read configurations through an informer, so a configuration is in
// effect some time after it is stored: each kind gets a probe configuration that fails dry-run creates of
// one labelled ConfigMap; once such a create fails naming the probe, every configuration of that kind
// stored before it is in effect too (the informer delivers them in resourceVersion order).
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { type Clock, LassoError, sleep } from '@lasso/core';
import { parseAllDocuments } from 'yaml';
import { type RequestCredentials, sendRequest } from './http-client.ts';

/** Options of `Environment.installWebhooks`. */
export interface WebhookInstallOptions {
  /**
   * The local webhook server's base URL (`https://127.0.0.1:9443`): every webhook's clientConfig becomes
   * this URL with the path of its `service.path` (or of its `url`), as controller-runtime rewrites it.
   * Undefined: each clientConfig is kept.
   */
  url?: string | undefined;
  /** PEM of the CA that signed the webhook server's certificate: set as every webhook's caBundle. */
  caPem?: string | undefined;
  /** How long to wait for the configurations to take effect (default: the environment's readyTimeoutMs). */
  timeoutMs?: number | undefined;
  /** Aborts the wait. */
  signal?: AbortSignal | undefined;
}

const group = 'admissionregistration.k8s.io';
const kinds = {
  MutatingWebhookConfiguration: 'mutatingwebhookconfigurations',
  ValidatingWebhookConfiguration: 'validatingwebhookconfigurations',
} as const;
type ConfigurationKind = keyof typeof kinds;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(message: string): LassoError {
  return new LassoError('LASSO_ENVTEST_FAILED', message);
}

/** The configuration objects of `entries` (objects, or YAML/JSON files of one or more documents). */
export async function loadWebhookConfigurations(
  entries: ReadonlyArray<string | object>,
): Promise<Array<Record<string, unknown>>> {
  const result: Array<Record<string, unknown>> = [];
  for (const entry of entries) {
    if (typeof entry === 'string') {
      const text = await readFile(entry, 'utf8');
      for (const document of parseAllDocuments(text)) {
        if (document.errors.length > 0) {
          throw new TypeError(`${entry}: ${document.errors[0]?.message ?? 'invalid YAML'}`);
        }
        const value: unknown = document.toJS();
        if (value !== null && value !== undefined) result.push(value as Record<string, unknown>);
      }
    } else if (isRecord(entry)) {
      result.push(structuredClone(entry));
    } else {
      throw new TypeError('webhook configurations must be paths or objects');
    }
  }
  for (const object of result) {
    if (!isRecord(object) || !(String(object.kind) in kinds)) {
      throw new TypeError(
        `a webhook configuration must be a MutatingWebhookConfiguration or ValidatingWebhookConfiguration, got kind ${JSON.stringify(isRecord(object) ? object.kind : object)}`,
      );
    }
  }
  return result;
}

/** Point every webhook of `object` at `url` and trust `caPem`. */
function pointAt(object: Record<string, unknown>, options: WebhookInstallOptions): void {
  const hooks = Array.isArray(object.webhooks) ? object.webhooks : [];
  for (const hook of hooks) {
    if (!isRecord(hook)) continue;
    const client: Record<string, unknown> = isRecord(hook.clientConfig) ? hook.clientConfig : {};
    if (options.url !== undefined) {
      const service = isRecord(client.service) ? client.service : undefined;
      const path =
        service !== undefined
          ? String(service.path ?? '/')
          : typeof client.url === 'string'
            ? new URL(client.url).pathname
            : '/';
      const base = new URL(options.url);
      client.url = `${base.origin}${base.pathname.replace(/\/$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
      delete client.service;
    }
    if (options.caPem !== undefined)
      client.caBundle = Buffer.from(options.caPem).toString('base64');
    hook.clientConfig = client;
  }
}

async function createOrReplace(
  credentials: RequestCredentials,
  object: Record<string, unknown>,
): Promise<void> {
  const kind = String(object.kind) as ConfigurationKind;
  const base = `/apis/${group}/v1/${kinds[kind]}`;
  const name = isRecord(object.metadata) ? String(object.metadata.name ?? '') : '';
  const body: Record<string, unknown> = { ...object, apiVersion: `${group}/v1` };
  const created = await sendRequest(credentials, 'POST', base, body);
  if (created.status === 201) return;
  if (created.status !== 409) {
    throw fail(`installing ${kind} ${name} failed: ${created.status} ${created.text}`);
  }
  const live = await sendRequest(credentials, 'GET', `${base}/${name}`);
  const liveMeta = (live.json() as { metadata?: { resourceVersion?: string } }).metadata;
  const metadata = isRecord(body.metadata) ? { ...body.metadata } : {};
  metadata.resourceVersion = liveMeta?.resourceVersion;
  const updated = await sendRequest(credentials, 'PUT', `${base}/${name}`, { ...body, metadata });
  if (updated.status !== 200) {
    throw fail(`updating ${kind} ${name} failed: ${updated.status} ${updated.text}`);
  }
}

/** A configuration whose one webhook cannot be reached and fails dry-run creates of ConfigMaps labelled `label`. */
function probeConfiguration(
  kind: ConfigurationKind,
  name: string,
  label: string,
): Record<string, unknown> {
  return {
    apiVersion: `${group}/v1`,
    kind,
    metadata: { name },
    webhooks: [
      {
        name: `${name}.probe.lasso.dev`,
        // Port 1 on loopback refuses at once: the call fails, and Fail makes that visible.
        clientConfig: { url: 'https://127.0.0.1:1/lasso-envtest-probe' },
        rules: [
          {
            operations: ['CREATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['configmaps'],
          },
        ],
        objectSelector: { matchLabels: { 'lasso.dev/envtest-webhook-probe': label } },
        failurePolicy: 'Fail',
        sideEffects: 'None',
        timeoutSeconds: 1,
        admissionReviewVersions: ['v1'],
      },
    ],
  };
}

/**
 * Install webhook configurations and wait until the API server calls them. See
 * `Environment.installWebhooks`.
 */
export async function installWebhooks(
  credentials: RequestCredentials,
  namespace: string,
  clock: Clock,
  entries: ReadonlyArray<string | object>,
  options: WebhookInstallOptions & { timeoutMs: number },
): Promise<void> {
  const configurations = await loadWebhookConfigurations(entries);
  const probeId = randomBytes(4).toString('hex');
  const probes: Array<{ kind: ConfigurationKind; name: string; label: string }> = [];
  for (const kind of Object.keys(kinds) as ConfigurationKind[]) {
    if (configurations.some((object) => object.kind === kind)) {
      const short = kind === 'MutatingWebhookConfiguration' ? 'm' : 'v';
      probes.push({
        kind,
        name: `lasso-envtest-probe-${probeId}-${short}`,
        label: `${probeId}-${short}`,
      });
    }
  }
  for (const object of configurations) {
    pointAt(object, options);
    options.signal?.throwIfAborted();
    await createOrReplace(credentials, object);
  }
  try {
    for (const probe of probes) {
      await createOrReplace(credentials, probeConfiguration(probe.kind, probe.name, probe.label));
    }
    const deadline = clock.monotonic() + options.timeoutMs;
    for (const probe of probes) {
      const expected = `${probe.name}.probe.lasso.dev`;
      for (;;) {
        options.signal?.throwIfAborted();
        const response = await sendRequest(
          credentials,
          'POST',
          `/api/v1/namespaces/${namespace}/configmaps?dryRun=All`,
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              generateName: 'lasso-envtest-probe-',
              labels: { 'lasso.dev/envtest-webhook-probe': probe.label },
            },
          },
        );
        if (response.status >= 500 && response.text.includes(expected)) break;
        if (clock.monotonic() > deadline) {
          throw fail(
            `${probe.kind}s were not in effect within ${options.timeoutMs} ms (the probe create answered ${response.status})`,
          );
        }
        await sleep(clock, 50, options.signal === undefined ? {} : { signal: options.signal });
      }
    }
  } catch (error) {
    await deleteProbes(credentials, probes).catch(() => {});
    throw error;
  }
  await deleteProbes(credentials, probes);
}

/** Delete the probe configurations (they only ever fail creates of their own labelled ConfigMaps). */
async function deleteProbes(
  credentials: RequestCredentials,
  probes: ReadonlyArray<{ kind: ConfigurationKind; name: string }>,
): Promise<void> {
  for (const probe of probes) {
    const response = await sendRequest(
      credentials,
      'DELETE',
      `/apis/${group}/v1/${kinds[probe.kind]}/${probe.name}`,
    );
    if (response.status !== 200 && response.status !== 404) {
      throw fail(`deleting the probe ${probe.kind} ${probe.name} failed: ${response.status}`);
    }
  }
}
