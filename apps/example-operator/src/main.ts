// The example operator's command: against a cluster when one is configured (--kubeconfig, KUBECONFIG or
// in-cluster), otherwise a live demo on the built-in API server of @lasso/envtest.
import {
  loadDefaultConfig,
  loadKubeConfig,
  type RestConfig,
  restTransportFor,
} from '@lasso/client';
import {
  createShutdownSignal,
  errorMessage,
  type Logger,
  type ShutdownSignalTarget,
  type StopResult,
} from '@lasso/core';
import { runDemo } from './demo.ts';
import { FlagError, type OperatorFlags, parseFlags, usage } from './flags.ts';
import { createOperator, type Operator, operatorOptionsFrom } from './operator.ts';
import { serveOperatorEndpoints } from './operator-endpoints.ts';
import { createPinoLogger } from './pino-logger.ts';
import { createPrometheusMetrics } from './prometheus-metrics.ts';

/**
 * The exit code of a finished run: 1 when leadership was lost (as controller-runtime does: the process exits and
 * its Deployment restarts it, to stand again) or when the shutdown did not drain in time, else 0.
 */
function exitCodeOf(operator: Operator, result: StopResult, logger: Logger): number {
  const lost = operator.leadershipLost();
  if (lost !== undefined) {
    logger.error('leadership lost, exiting', { error: lost.message });
    return 1;
  }
  if (!result.drained) {
    logger.error('shutdown did not drain in time, exiting', { pending: result.pending.join(', ') });
    return 1;
  }
  logger.info('stopped: every reconcile finished, Lease released, caches closed');
  return 0;
}

async function runAgainstCluster(
  flags: OperatorFlags,
  signal: AbortSignal,
  logger: Logger,
): Promise<number> {
  const rest: RestConfig =
    flags.kubeconfig !== undefined
      ? await loadKubeConfig({
          path: flags.kubeconfig,
          ...(flags.context === undefined ? {} : { context: flags.context }),
        })
      : await loadDefaultConfig(flags.context === undefined ? {} : { context: flags.context });
  const { metrics, registry } = createPrometheusMetrics(logger);
  let operator: Operator | undefined;
  const endpoints = await serveOperatorEndpoints(flags, () => operator, registry);
  try {
    operator = await createOperator(operatorOptionsFrom(flags, { rest, logger, metrics }));
    try {
      await operator.start(signal);
      logger.info('operator started', {
        identity: operator.identity,
        namespace: flags.namespace || '(all)',
      });
      return exitCodeOf(operator, await operator.stopped(), logger);
    } finally {
      await operator.close();
    }
  } finally {
    await endpoints.close();
    await restTransportFor(rest)?.close();
  }
}

/**
 * `process` for the shutdown signal, with one difference: a signal within a second of the previous one is the
 * same Ctrl-C delivered twice (the terminal signals the whole process group, and `pnpm start` forwards it to
 * the operator too), not the second Ctrl-C that exits at once.
 */
function dedupedProcessSignals(): ShutdownSignalTarget {
  const wrapped = new Map<(signal: string) => void, (signal: string) => void>();
  let lastMs = Number.NEGATIVE_INFINITY;
  return {
    on(event, listener) {
      const once = (signal: string): void => {
        const now = Date.now();
        const duplicate = now - lastMs < 1_000;
        lastMs = now;
        if (!duplicate) listener(signal);
      };
      wrapped.set(listener, once);
      return process.on(event, once);
    },
    removeListener(event, listener) {
      const once = wrapped.get(listener);
      return once === undefined ? process : process.removeListener(event, once);
    },
    exit: (code) => process.exit(code),
  };
}

/** Run the command; resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let flags: OperatorFlags;
  try {
    flags = parseFlags(argv);
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    process.stderr.write(`example-operator: ${error.message}\n\n${usage}`);
    return 2;
  }
  if (flags.help) {
    process.stdout.write(usage);
    return 0;
  }
  const clusterConfigured =
    flags.kubeconfig !== undefined ||
    (process.env.KUBECONFIG ?? '') !== '' ||
    (process.env.KUBERNETES_SERVICE_HOST ?? '') !== '';
  // The demo is a live view: logs stay at warnings unless asked for.
  const logger = createPinoLogger({
    level: flags.logLevel ?? (clusterConfigured ? 'info' : 'warn'),
  });
  // The first SIGINT/SIGTERM stops gracefully (bounded by --shutdown-timeout); a second exits 1 at once.
  const shutdown = createShutdownSignal({ logger, target: dedupedProcessSignals() });
  shutdown.signal.addEventListener(
    'abort',
    () =>
      process.stderr.write(
        `\n${errorMessage(shutdown.signal.reason)}: shutting down (stop intake, finish in-flight reconciles within ${flags.shutdownTimeoutSeconds} s, release the Lease)\n`,
      ),
    { once: true },
  );
  try {
    return clusterConfigured
      ? await runAgainstCluster(flags, shutdown.signal, logger)
      : await runDemo(flags, shutdown.signal, logger);
  } catch (error) {
    process.stderr.write(`example-operator: ${errorMessage(error)}\n`);
    return 1;
  } finally {
    shutdown.dispose();
  }
}

/**
 * Exit with `code`. A failed run may leave work JavaScript cannot stop (a reconcile past the shutdown bound):
 * the process then exits a second after, instead of waiting for it.
 */
function exitWith(code: number): void {
  process.exitCode = code;
  if (code !== 0) setTimeout(() => process.exit(code), 1_000).unref();
}

main(process.argv.slice(2)).then(exitWith, (error: unknown) => {
  process.stderr.write(`example-operator: ${errorMessage(error)}\n`);
  exitWith(1);
});
