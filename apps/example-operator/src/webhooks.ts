// The Icecream admission webhooks, served by the operator's process: a validating webhook for the rules the
// CRD's schema cannot say (it sees one field at a time, and in 1.20 never the old object), and a defaulting
// (mutating) webhook that fills in what a short manifest leaves out. They run on a @lasso/webhook server whose
// certificate comes from files (cert-manager's Secret mounted in the Pod) or, in the demo, is self-signed.
import { join } from 'node:path';
import type { Logger, MetricsProvider } from '@lasso/core';
import type { Kind } from '@lasso/factory';
import {
  type AdmissionRequest,
  createSelfSignedCertificates,
  createWebhookServer,
  deny,
  type WebhookServer,
} from '@lasso/webhook';
import type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
} from 'kubernetes-types/admissionregistration/v1.js';
import { type Icecream, icecreamKind } from './generated/index.ts';

/** `spec.replicas` of an Icecream that does not say. */
export const defaultReplicas = 1;

/** Name of both webhook configurations in a cluster and in the demo. */
export const webhookConfigurationName = 'icecream-operator';

/** An Icecream as a client may send it: the defaulting webhook fills in what is missing. */
type IcecreamDraft = Omit<Icecream, 'spec'> & { spec?: Partial<Icecream['spec']> };

/**
 * The validating rules, neither of which an OpenAPI schema can express:
 * - `spec.deploymentName` is the Icecream's name or starts with `<name>-`: it ties a field to `metadata.name`,
 *   so two Icecreams of a namespace never claim one Deployment (the second would be reported as a conflict
 *   only after it was stored);
 * - `spec.flavor` does not change on an update: a flavour is scooped once (a transition rule needs the old
 *   object, which a CRD schema sees only through CEL's `oldSelf`, from Kubernetes 1.25).
 * Both are 422 `Invalid` denials naming the field.
 */
export function icecreamProblem(request: AdmissionRequest<IcecreamDraft>): string | undefined {
  const { object, oldObject, operation } = request;
  if (object === undefined || (operation !== 'CREATE' && operation !== 'UPDATE')) return undefined;
  const name = object.metadata?.name ?? '';
  const deploymentName = object.spec?.deploymentName;
  if (
    typeof deploymentName === 'string' &&
    name !== '' &&
    deploymentName !== name &&
    !deploymentName.startsWith(`${name}-`)
  ) {
    return `spec.deploymentName must be "${name}" or start with "${name}-", got ${JSON.stringify(deploymentName.slice(0, 80))}`;
  }
  const oldFlavor = oldObject?.spec?.flavor;
  if (operation === 'UPDATE' && oldFlavor !== undefined && object.spec?.flavor !== oldFlavor) {
    return `spec.flavor cannot change once scooped (was ${JSON.stringify(oldFlavor)}): create another Icecream`;
  }
  return undefined;
}

/**
 * The defaults: `spec.replicas` 1, and `spec.deploymentName` the Icecream's name. Runs before the schema's
 * `required` check (kube-apiserver validates after mutating admission), so a manifest may leave both out. A
 * name made by `generateName` is not known yet at this point: such an Icecream must name its Deployment.
 */
export function defaultIcecream(object: IcecreamDraft): IcecreamDraft {
  const spec = { ...object.spec };
  spec.replicas ??= defaultReplicas;
  const name = object.metadata?.name;
  if (spec.deploymentName === undefined && name !== undefined && name !== '') {
    spec.deploymentName = name;
  }
  return { ...object, spec };
}

/** Where the serving certificate comes from. */
export type IcecreamWebhookTls =
  /** A directory with `tls.crt` and `tls.key` (a kubernetes.io/tls Secret, as cert-manager writes it), reloaded on change. */
  | { certDir: string }
  /** A fresh self-signed CA and certificate for 127.0.0.1 and localhost (the demo). */
  | { selfSigned: true };

/** Options of {@link createIcecreamWebhooks}. */
export interface IcecreamWebhookOptions {
  tls: IcecreamWebhookTls;
  /** Address to listen on (default every interface; the demo uses 127.0.0.1). */
  host?: string;
  /** Port (9443 in a cluster, as controller-runtime; 0 for any free one). */
  port: number;
  logger: Logger;
  metrics: MetricsProvider;
}

/** The webhook server with the Icecream webhooks registered, and what to install for them. */
export interface IcecreamWebhooks {
  readonly server: WebhookServer;
  /** PEM of the self-signed CA; undefined when the certificate comes from files. */
  readonly caPem: string | undefined;
  /** The two configurations pointing at `url` (the server's, once it runs) and trusting `caPem`. */
  configurations(
    caPem: string,
    url: string,
  ): [MutatingWebhookConfiguration, ValidatingWebhookConfiguration];
}

/**
 * A webhook server (not started) serving the Icecream validating webhook at `/validate-icecream` and the
 * defaulting one at `/mutate-icecream`. Each logs what it denied or defaulted at info.
 *
 * @example
 * ```ts
 * const webhooks = createIcecreamWebhooks({ tls: { selfSigned: true }, host: '127.0.0.1', port: 0, logger: noopLogger, metrics: noopMetricsProvider });
 * await webhooks.server.start(new AbortController().signal);
 * ```
 */
export function createIcecreamWebhooks(options: IcecreamWebhookOptions): IcecreamWebhooks {
  const { logger } = options;
  const selfSigned = 'selfSigned' in options.tls ? createSelfSignedCertificates() : undefined;
  const server = createWebhookServer({
    tls:
      selfSigned !== undefined
        ? { certPem: selfSigned.certPem, keyPem: selfSigned.keyPem }
        : {
            certFile: join((options.tls as { certDir: string }).certDir, 'tls.crt'),
            keyFile: join((options.tls as { certDir: string }).certDir, 'tls.key'),
          },
    ...(options.host === undefined ? {} : { host: options.host }),
    port: options.port,
    logger,
    metrics: options.metrics,
  });
  // Handlers see what the client sent, before the defaults and the schema's required fields.
  const kind = icecreamKind as unknown as Kind<IcecreamDraft>;
  server.mutating(kind, {
    name: 'micecream.example.lasso.dev',
    path: '/mutate-icecream',
    handler: ({ object, namespace, dryRun }) => {
      if (object === undefined) return undefined;
      const defaulted = defaultIcecream(object);
      const before = object.spec ?? {};
      const filled = Object.keys(defaulted.spec ?? {}).filter((field) => !(field in before));
      if (filled.length > 0) {
        logger.info('Icecream defaulted', {
          icecream: `${namespace}/${object.metadata?.name ?? ''}`,
          fields: filled.map((field) => `spec.${field}`).join(', '),
          dryRun,
        });
      }
      return defaulted;
    },
  });
  server.validating(kind, {
    name: 'vicecream.example.lasso.dev',
    path: '/validate-icecream',
    handler: (request) => {
      const problem = icecreamProblem(request);
      if (problem === undefined) return undefined;
      logger.info('Icecream denied', {
        icecream: `${request.namespace}/${request.object?.metadata?.name ?? ''}`,
        operation: request.operation,
        reason: problem,
        dryRun: request.dryRun,
      });
      return deny(problem, { code: 422, reason: 'Invalid' });
    },
  });
  return {
    server,
    caPem: selfSigned?.caPem,
    configurations: (caPem, url) => [
      server.mutatingWebhookConfiguration({
        name: webhookConfigurationName,
        caPem,
        client: { url },
      }),
      server.validatingWebhookConfiguration({
        name: webhookConfigurationName,
        caPem,
        client: { url },
      }),
    ],
  };
}

/**
 * The webhooks for the command's flags, or undefined when they are off: `--webhook-port 0`, or in a cluster no
 * `--webhook-cert-dir` (there is no certificate to serve; the configurations in the README point at the Service).
 * In the demo without a directory the certificate is self-signed, for 127.0.0.1.
 */
export function icecreamWebhooksFromFlags(
  flags: { webhookPort: number | undefined; webhookCertDir: string | undefined },
  mode: 'cluster' | 'demo',
  context: { logger: Logger; metrics: MetricsProvider },
): IcecreamWebhooks | undefined {
  if (flags.webhookPort === 0) return undefined;
  if (mode === 'cluster' && flags.webhookCertDir === undefined) return undefined;
  return createIcecreamWebhooks({
    tls:
      flags.webhookCertDir === undefined ? { selfSigned: true } : { certDir: flags.webhookCertDir },
    ...(mode === 'demo' ? { host: '127.0.0.1' } : {}),
    port: flags.webhookPort ?? (mode === 'demo' ? 0 : 9443),
    logger: context.logger.child({ component: 'webhooks' }),
    metrics: context.metrics,
  });
}

/** What the demo's dry runs showed: the defaulted spec and the denial's message. */
export interface WebhookShowcase {
  defaulted: Icecream['spec'];
  denied: string;
}

/**
 * Two dry-run creates through the installed webhooks, for the demo's output: an Icecream that gives only its
 * flavor (defaulted) and one that claims another Icecream's Deployment (denied). Nothing is stored.
 */
export async function showcaseWebhooks(
  create: (object: Icecream) => Promise<Icecream>,
  namespace: string,
): Promise<WebhookShowcase> {
  const draft = (name: string, spec: Partial<Icecream['spec']>): Icecream => ({
    apiVersion: 'example.lasso.dev/v1',
    kind: 'Icecream',
    metadata: { name, namespace },
    spec: spec as Icecream['spec'],
  });
  const defaulted = await create(draft('strawberry', { flavor: 'strawberry' }));
  let denied: string;
  try {
    await create(
      draft('pistachio', { flavor: 'pistachio', deploymentName: 'vanilla-scoops', replicas: 1 }),
    );
    throw new Error('the validating webhook admitted an Icecream that claims vanilla-scoops');
  } catch (error) {
    const body = (error as { body?: { message?: unknown } }).body;
    if (typeof body?.message !== 'string') throw error;
    denied = body.message;
  }
  return { defaulted: defaulted.spec, denied };
}
