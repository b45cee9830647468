// The example operator's command: against a cluster when one is configured (--kubeconfig, KUBECONFIG or
// in-cluster), otherwise a live demo on the built-in API server of @lasso/envtest.
import {
  loadDefaultConfig,
  loadKubeConfig,
  type RestConfig,
  restTransportFor,
} from '@lasso/client';
import { errorMessage, type Logger } from '@lasso/core';
import { runDemo } from './demo.ts';
import { FlagError, type OperatorFlags, parseFlags, usage } from './flags.ts';
import {
  LeadershipLostError,
  type Operator,
  operatorOptionsFrom,
  startOperator,
} from './operator.ts';
import { serveOperatorEndpoints } from './operator-endpoints.ts';
import { createPinoLogger } from './pino-logger.ts';
import { createPrometheusMetrics } from './prometheus-metrics.ts';

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
    operator = await startOperator(operatorOptionsFrom(flags, { rest, signal, logger, metrics }));
    logger.info('operator started', {
      identity: operator.identity,
      namespace: flags.namespace || '(all)',
    });
    await operator.done;
    return 0;
  } catch (error) {
    if (error instanceof LeadershipLostError) {
      // As controller-runtime does: a process that lost the Lease exits, and its Deployment restarts it.
      logger.error('leadership lost, exiting', { error: error.message });
      return 1;
    }
    throw error;
  } finally {
    await endpoints.close();
    await restTransportFor(rest)?.close();
  }
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
  const stop = new AbortController();
  const onSignal = (name: string): void => {
    if (stop.signal.aborted) {
      process.stderr.write(`${name} again: exiting now\n`);
      process.exit(130);
    }
    process.stderr.write(
      `\n${name}: shutting down (stop intake, finish in-flight reconciles, release the Lease)\n`,
    );
    stop.abort();
    // A shutdown that hangs must still end: the bound is the --shutdown-timeout flag.
    setTimeout(() => {
      process.stderr.write(
        `shutdown did not finish within ${flags.shutdownTimeoutSeconds} s, exiting\n`,
      );
      process.exit(1);
    }, flags.shutdownTimeoutSeconds * 1000).unref();
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  try {
    return clusterConfigured
      ? await runAgainstCluster(flags, stop.signal, logger)
      : await runDemo(flags, stop.signal, logger);
  } catch (error) {
    process.stderr.write(`example-operator: ${errorMessage(error)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`example-operator: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
