// Command-line flags and their environment variables; bad input is a FlagError, which main turns into the
// usage text and exit code 2.
import { parseArgs } from 'node:util';

/** Every setting of the operator. */
export interface OperatorFlags {
  /** Path of a kubeconfig; undefined = KUBECONFIG, in-cluster, or the built-in demo server. */
  kubeconfig: string | undefined;
  context: string | undefined;
  /** The one namespace to watch; '' = all. */
  namespace: string;
  workers: number;
  leaderElect: boolean;
  leaderElectionNamespace: string;
  leaderElectionId: string;
  /** Run as one replica of this shard ring (every replica works on its share); undefined = unsharded. */
  shardRing: string | undefined;
  /** Namespace of the ring's Leases. */
  shardNamespace: string;
  /** This replica's name in the ring; undefined = the host name and a random suffix. */
  shardIdentity: string | undefined;
  /** host:port of /metrics; '' or '0' = off. */
  metricsAddr: string;
  /** host:port of /healthz and /readyz; '' or '0' = off. */
  healthAddr: string;
  /** undefined = the mode's default (info against a cluster, warn in the demo). */
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent' | undefined;
  /** Seconds a graceful shutdown may take before the process exits anyway. */
  shutdownTimeoutSeconds: number;
  /**
   * Port of the Icecream webhooks (validating, defaulting); 0 = off. undefined = the mode's default: 9443 in a
   * cluster (served only with a certificate directory), any free loopback port in the demo.
   */
  webhookPort: number | undefined;
  /** Directory of the webhook certificate (tls.crt, tls.key; ca.crt for the demo to install it), reloaded on change. */
  webhookCertDir: string | undefined;
  help: boolean;
}

/** A flag or environment variable the operator cannot use; the message names it. */
export class FlagError extends Error {
  override name = 'FlagError';
}

export const usage = `Usage: example-operator [flags]

Reconciles Icecream custom resources (example.lasso.dev/v1) into Deployments.
With no kubeconfig (flag, KUBECONFIG or in-cluster), it starts the built-in API server
of @lasso/envtest and runs a live demo there.

Flags (environment variable in brackets):
  --kubeconfig PATH                 kubeconfig to use [KUBECONFIG]
  --context NAME                    kubeconfig context [LASSO_CONTEXT]
  --namespace NAME                  watch one namespace; empty = all [LASSO_NAMESPACE]
  --workers N                       reconcile workers per kind, >= 1 (default 2) [LASSO_WORKERS]
  --leader-elect                    reconcile only while holding the Lease [LASSO_LEADER_ELECT]
  --leader-election-namespace NAME  namespace of the Lease (default: the watched one, else default)
  --leader-election-id NAME         name of the Lease (default icecream-operator)
  --shard-ring NAME                 run as one replica of this shard ring: every replica reconciles its share of
                                    the Icecreams (not with --leader-elect) [LASSO_SHARD_RING]
  --shard-namespace NAME            namespace of the ring's Leases (default: the watched one, else default)
                                    [LASSO_SHARD_NAMESPACE]
  --shard-identity NAME             this replica's name in the ring (default: host name + random suffix)
                                    [LASSO_SHARD_IDENTITY]
  --metrics-addr HOST:PORT          serve /metrics; 0 = off (default 127.0.0.1:8080) [LASSO_METRICS_ADDR]
  --health-addr HOST:PORT           serve /healthz and /readyz; 0 = off (default 127.0.0.1:8081) [LASSO_HEALTH_ADDR]
  --log-level LEVEL                 debug, info, warn, error or silent (default info; warn in the demo) [LASSO_LOG_LEVEL]
  --shutdown-timeout SECONDS        bound of a graceful shutdown (default 20)
  --webhook-port N                  port of the Icecream webhooks; 0 = off (default 9443; any free one in the demo) [LASSO_WEBHOOK_PORT]
  --webhook-cert-dir DIR            tls.crt and tls.key of the webhooks (a cert-manager Secret); in a cluster the
                                    webhooks are served only with it; the demo self-signs without it [LASSO_WEBHOOK_CERT_DIR]
  -h, --help                        print this help
`;

// LASSO_LOG_LEVEL is also read by @lasso/core's default logger: the same words (silent included) are accepted.
const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const;

function positiveInteger(name: string, value: string): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < 1) {
    throw new FlagError(`${name} must be a whole number >= 1, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

function address(name: string, value: string): string {
  if (value === '' || value === '0') return '';
  const match = /^(.*):([0-9]{1,5})$/.exec(value);
  if (match === null || Number(match[2]) > 65535) {
    throw new FlagError(`${name} must be HOST:PORT, :PORT or 0, got ${JSON.stringify(value)}`);
  }
  return value;
}

function port(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535) {
    throw new FlagError(`${name} must be a port from 0 to 65535, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

function nonEmpty(name: string, value: string | undefined): string | undefined {
  if (value === '') throw new FlagError(`${name} must not be empty`);
  return value;
}

function boolean(name: string, value: string): boolean {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0' || value === '') return false;
  throw new FlagError(`${name} must be true or false, got ${JSON.stringify(value)}`);
}

/** Parse `argv` (without node and the script) and `env`. Throws a {@link FlagError} naming the bad input. */
export function parseFlags(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): OperatorFlags {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        namespace: { type: 'string' },
        workers: { type: 'string' },
        'leader-elect': { type: 'boolean' },
        'leader-election-namespace': { type: 'string' },
        'leader-election-id': { type: 'string' },
        'shard-ring': { type: 'string' },
        'shard-namespace': { type: 'string' },
        'shard-identity': { type: 'string' },
        'metrics-addr': { type: 'string' },
        'health-addr': { type: 'string' },
        'log-level': { type: 'string' },
        'shutdown-timeout': { type: 'string' },
        'webhook-port': { type: 'string' },
        'webhook-cert-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new FlagError(error instanceof Error ? error.message : String(error));
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const text = (flag: string, variable?: string): string | undefined => {
    const value = values[flag];
    if (typeof value === 'string') return value;
    return variable === undefined ? undefined : env[variable];
  };
  // What an error names: the flag, or the environment variable when the value came from there.
  const source = (flag: string, variable: string): string =>
    typeof values[flag] === 'string' || env[variable] === undefined ? `--${flag}` : variable;
  const logLevel = text('log-level', 'LASSO_LOG_LEVEL');
  if (logLevel !== undefined && !(logLevels as readonly string[]).includes(logLevel)) {
    throw new FlagError(
      `${source('log-level', 'LASSO_LOG_LEVEL')} must be one of ${logLevels.join(', ')}, got ${JSON.stringify(logLevel)}`,
    );
  }
  const namespace = text('namespace', 'LASSO_NAMESPACE') ?? '';
  const leaderElect =
    values['leader-elect'] === true ||
    (env.LASSO_LEADER_ELECT !== undefined && boolean('LASSO_LEADER_ELECT', env.LASSO_LEADER_ELECT));
  const kubeconfig = text('kubeconfig');
  if (kubeconfig === '') throw new FlagError('--kubeconfig must not be empty');
  const shardRing = nonEmpty(
    source('shard-ring', 'LASSO_SHARD_RING'),
    text('shard-ring', 'LASSO_SHARD_RING'),
  );
  if (shardRing !== undefined && leaderElect) {
    throw new FlagError(
      `${source('shard-ring', 'LASSO_SHARD_RING')} and --leader-elect exclude each other: sharded replicas all reconcile, each its share`,
    );
  }
  return {
    kubeconfig,
    context: text('context', 'LASSO_CONTEXT'),
    namespace,
    workers: positiveInteger(
      source('workers', 'LASSO_WORKERS'),
      text('workers', 'LASSO_WORKERS') ?? '2',
    ),
    leaderElect,
    leaderElectionNamespace: text('leader-election-namespace') ?? (namespace || 'default'),
    leaderElectionId: text('leader-election-id') ?? 'icecream-operator',
    shardRing,
    shardNamespace: text('shard-namespace', 'LASSO_SHARD_NAMESPACE') || namespace || 'default',
    shardIdentity: nonEmpty(
      source('shard-identity', 'LASSO_SHARD_IDENTITY'),
      text('shard-identity', 'LASSO_SHARD_IDENTITY'),
    ),
    metricsAddr: address(
      source('metrics-addr', 'LASSO_METRICS_ADDR'),
      text('metrics-addr', 'LASSO_METRICS_ADDR') ?? '127.0.0.1:8080',
    ),
    healthAddr: address(
      source('health-addr', 'LASSO_HEALTH_ADDR'),
      text('health-addr', 'LASSO_HEALTH_ADDR') ?? '127.0.0.1:8081',
    ),
    logLevel: logLevel as OperatorFlags['logLevel'],
    shutdownTimeoutSeconds: positiveInteger('--shutdown-timeout', text('shutdown-timeout') ?? '20'),
    webhookPort: port(
      source('webhook-port', 'LASSO_WEBHOOK_PORT'),
      text('webhook-port', 'LASSO_WEBHOOK_PORT'),
    ),
    webhookCertDir: nonEmpty(
      source('webhook-cert-dir', 'LASSO_WEBHOOK_CERT_DIR'),
      text('webhook-cert-dir', 'LASSO_WEBHOOK_CERT_DIR'),
    ),
    help: values.help === true,
  };
}
