// The example operator's command: against a cluster when one is configured (--kubeconfig, KUBECONFIG or
// in-cluster), otherwise a live demo on the built-in API server of @lasso/envtest. Either way an operator of
// @lasso/operator, whose run() owns the process's end (signals, drain, close, exit code).
import type { Logger, ShutdownSignalTarget, StopResult } from '@lasso/core';
import { errorMessage } from '@lasso/core';
import { createOperator } from '@lasso/operator';
import { startDemo } from './demo.ts';
import { FlagError, type OperatorFlags, parseFlags, usage } from './flags.ts';
import { operatorOptionsFrom, type Prepared, registerIcecreamController } from './operator.ts';
import { createPinoLogger } from './pino-logger.ts';
import { icecreamWebhooksFromFlags } from './webhooks.ts';

/** The operator against a cluster, with the webhooks when a certificate directory is given. */
async function clusterOperator(
  flags: OperatorFlags,
  logger: Logger,
  signal: AbortSignal,
): Promise<Prepared> {
  const operator = await createOperator({
    ...operatorOptionsFrom(flags, logger, 'cluster'),
    ...(flags.kubeconfig === undefined ? {} : { kubeconfig: flags.kubeconfig }),
    ...(flags.context === undefined ? {} : { context: flags.context }),
  });
  // Served with --webhook-cert-dir (cert-manager's Secret); the configurations are the cluster's (README).
  const webhooks = icecreamWebhooksFromFlags(flags, 'cluster', {
    logger,
    metrics: operator.registry.metrics,
  });
  try {
    await registerIcecreamController(operator);
    if (webhooks !== undefined) {
      await webhooks.server.start(signal);
      logger.info('Icecream webhooks serving', { url: webhooks.server.url() });
    }
  } catch (error) {
    await webhooks?.server.close();
    await operator.close();
    throw error;
  }
  logger.info('operator starting', {
    identity: operator.identity,
    namespace: flags.namespace || '(all)',
  });
  return { operator, cleanup: async () => webhooks?.server.close() };
}

/**
 * `process` for the runtime's run(), with two additions: a signal within a second of the previous one is the
 * same Ctrl-C delivered twice (the terminal signals the whole process group, and `pnpm start` forwards it to
 * the operator too), not the second Ctrl-C that exits at once; and the first one calls `onShutdown` once the
 * runtime heard it.
 */
function shutdownSignals(onShutdown: (signal: string) => void): ShutdownSignalTarget {
  const wrapped = new Map<(signal: string) => void, (signal: string) => void>();
  let lastMs = Number.NEGATIVE_INFINITY;
  let announced = false;
  return {
    on(event, listener) {
      const once = (signal: string): void => {
        const now = Date.now();
        const duplicate = now - lastMs < 1_000;
        lastMs = now;
        if (duplicate) return;
        listener(signal);
        if (announced) return;
        announced = true;
        onShutdown(signal);
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
  // What runs beside the operator (webhooks, the demo's workload and view) stops at the first signal too.
  const beside = new AbortController();
  let stopped: Promise<StopResult> | undefined;
  let prepared: Prepared;
  try {
    prepared = clusterConfigured
      ? await clusterOperator(flags, logger, beside.signal)
      : await startDemo(flags, logger, beside.signal, () => stopped);
  } catch (error) {
    beside.abort();
    process.stderr.write(`example-operator: ${errorMessage(error)}\n`);
    return 1;
  }
  const { operator } = prepared;
  const signals = shutdownSignals((signal) => {
    stopped = operator.stopped();
    process.stderr.write(
      `\n${signal}: shutting down (stop intake, finish in-flight reconciles within ${flags.shutdownTimeoutSeconds} s, release the Lease)\n`,
    );
    beside.abort(new Error(signal));
  });
  // From here the process's end is the runtime's: the first SIGINT/SIGTERM stops gracefully (bounded by
  // --shutdown-timeout, then the close bound) and the process exits 0 (drained), 3 (the bound passed: a
  // reconcile still ran), 1 (a start failed, or leadership was lost); a second signal exits at once (130/143).
  const outcome = await operator.run({
    process: signals,
    cleanup: async () => {
      beside.abort(new Error('the operator stopped'));
      await prepared.cleanup();
    },
  });
  return outcome.code;
}

/**
 * Exit with `code`, once main returned before the runtime took over (bad flags, a failed setup): whatever
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
