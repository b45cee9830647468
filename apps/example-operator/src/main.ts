// The example operator's command: against a cluster when one is configured (--kubeconfig, KUBECONFIG or
// in-cluster), otherwise a live demo on the built-in API server of @lasso/envtest.
import {
  loadDefaultConfig,
  loadKubeConfig,
  type RestConfig,
  restTransportFor,
} from '@lasso/client';
import { runUntilShutdown } from '@lasso/controller';
import { errorMessage, type Lifecycle, type Logger, type ShutdownSignalTarget } from '@lasso/core';
import { createDemo } from './demo.ts';
import { FlagError, type OperatorFlags, parseFlags, usage } from './flags.ts';
import { createOperator, type Operator, operatorOptionsFrom } from './operator.ts';
import { serveOperatorEndpoints } from './operator-endpoints.ts';
import { createPinoLogger } from './pino-logger.ts';
import { createPrometheusMetrics } from './prometheus-metrics.ts';
import { icecreamWebhooksFromFlags } from './webhooks.ts';

/**
 * How long closing may take after the drain (`runUntilShutdown`'s `closeTimeoutMs`): the operator's factory and
 * transports in a cluster; in the demo also the API server, which a real kube-apiserver (KUBEBUILDER_ASSETS)
 * takes seconds to stop. With the default --shutdown-timeout of 20 s the process ends within 25 s of SIGTERM,
 * inside a Pod's default terminationGracePeriodSeconds of 30.
 */
const closeTimeoutMs = { cluster: 5_000, demo: 10_000 } as const;

/** The operator against a cluster, with its endpoints and transport, as one lifecycle object. */
async function clusterOperator(flags: OperatorFlags, logger: Logger): Promise<Lifecycle> {
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
  // Served with --webhook-cert-dir (cert-manager's Secret); the configurations are the cluster's (README).
  const webhooks = icecreamWebhooksFromFlags(flags, 'cluster', { logger, metrics });
  const release = async (): Promise<void> => {
    await webhooks?.server.close();
    await endpoints.close();
    await restTransportFor(rest)?.close();
  };
  try {
    operator = await createOperator(operatorOptionsFrom(flags, { rest, logger, metrics }));
  } catch (error) {
    await release();
    throw error;
  }
  const made = operator;
  const close = async (): Promise<void> => {
    await made.close();
    await release();
  };
  return {
    async start(signal) {
      await webhooks?.server.start(signal);
      await made.start(signal);
      if (webhooks !== undefined) {
        logger.info('Icecream webhooks serving', { url: webhooks.server.url() });
      }
      logger.info('operator started', {
        identity: made.identity,
        namespace: flags.namespace || '(all)',
      });
    },
    stopped: async () => {
      const [result] = await Promise.all([made.stopped(), webhooks?.server.stopped()]);
      return result;
    },
    isRunning: () => made.isRunning(),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** `lifecycle`, telling the terminal what a shutdown does as soon as its signal aborts. */
function announcingShutdown(lifecycle: Lifecycle, flags: OperatorFlags): Lifecycle {
  return {
    start(signal) {
      signal.addEventListener(
        'abort',
        () =>
          process.stderr.write(
            `\n${errorMessage(signal.reason)}: shutting down (stop intake, finish in-flight reconciles within ${flags.shutdownTimeoutSeconds} s, release the Lease)\n`,
          ),
        { once: true },
      );
      return lifecycle.start(signal);
    },
    stopped: () => lifecycle.stopped(),
    isRunning: () => lifecycle.isRunning(),
    close: () => lifecycle.close(),
    [Symbol.asyncDispose]: () => lifecycle.close(),
  };
}

/**
 * `process` for runUntilShutdown, with one difference: a signal within a second of the previous one is the
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
  let lifecycle: Lifecycle;
  try {
    lifecycle = clusterConfigured
      ? await clusterOperator(flags, logger)
      : createDemo(flags, logger);
  } catch (error) {
    process.stderr.write(`example-operator: ${errorMessage(error)}\n`);
    return 1;
  }
  // From here the process's end is runUntilShutdown's: the first SIGINT/SIGTERM stops gracefully (bounded by
  // --shutdown-timeout, then the close bound) and the process exits 0 (drained), 3 (the bound passed: a
  // reconcile still ran), 1 (a start failed, or leadership was lost); a second signal exits at once (130/143).
  const outcome = await runUntilShutdown(announcingShutdown(lifecycle, flags), {
    gracefulShutdownTimeoutMs: flags.shutdownTimeoutSeconds * 1000,
    closeTimeoutMs: clusterConfigured ? closeTimeoutMs.cluster : closeTimeoutMs.demo,
    logger,
    process: dedupedProcessSignals(),
  });
  return outcome.code;
}

/**
 * Exit with `code`, once main returned before runUntilShutdown took over (bad flags, a failed setup): whatever
 * the setup left running does not keep a failed process alive for more than a second.
 */
function exitWith(code: number): void {
  process.exitCode = code;
  if (code !== 0) setTimeout(() => process.exit(code), 1_000).unref();
}

main(process.argv.slice(2)).then(exitWith, (error: unknown) => {
  process.stderr.write(`example-operator: ${errorMessage(error)}\n`);
  exitWith(1);
});
