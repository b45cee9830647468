// The README's main command with no cluster configured: the built-in API server of @lasso/envtest, the CRD,
// the operator, a clearly labelled simulated workload controller (the built-in server runs none), two sample
// Icecreams and a live view, until Ctrl-C. A lifecycle object, so that main runs it with runUntilShutdown as it
// runs the operator against a cluster.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, loadKubeConfig, restTransportFor } from '@lasso/client';
import { drainedResult, type Lifecycle, type Logger, type StopResult } from '@lasso/core';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { parse } from 'yaml';
import type { OperatorFlags } from './flags.ts';
import type { Icecream } from './generated/index.ts';
import { icecreamResource } from './icecream.ts';
import { startLiveView } from './live-view.ts';
import { createOperator, type Operator, operatorOptionsFrom } from './operator.ts';
import { serveOperatorEndpoints } from './operator-endpoints.ts';
import { createPrometheusMetrics } from './prometheus-metrics.ts';
import {
  type SimulatedWorkload,
  simulatedNodeName,
  startSimulatedWorkload,
} from './simulated-workload.ts';
import { type IcecreamWebhooks, icecreamWebhooksFromFlags, showcaseWebhooks } from './webhooks.ts';

/** The app's manifests folder, from src/ (tests) or dist/ (the built command). */
export const manifestsDir = fileURLToPath(new URL('../manifests/', import.meta.url));
const sampleFiles = ['samples/vanilla.yaml', 'samples/chocolate.yaml'];

/**
 * The demo as a lifecycle object: `start(signal)` starts the built-in API server, the operator, the simulated
 * workload and the live view and applies the samples; `stopped()` settles once the operator, the simulated
 * workload and the live view stopped (the operator's result); `close()` releases everything, the API server last.
 */
export function createDemo(flags: OperatorFlags, logger: Logger): Lifecycle {
  const out = process.stdout;
  let env: Environment | undefined;
  let rest: Awaited<ReturnType<typeof loadKubeConfig>> | undefined;
  let endpoints: Awaited<ReturnType<typeof serveOperatorEndpoints>> | undefined;
  let operator: Operator | undefined;
  let simulated: SimulatedWorkload | undefined;
  let webhooks: IcecreamWebhooks | undefined;
  let run: Promise<StopResult> | undefined;
  let closing: Promise<void> | undefined;

  async function start(signal: AbortSignal): Promise<void> {
    if (closing !== undefined) throw new Error('the demo was closed');
    if (run !== undefined) return;
    out.write(
      'No cluster configured (no --kubeconfig, KUBECONFIG or in-cluster service account):\n',
    );
    out.write('starting the built-in Kubernetes API server of @lasso/envtest...\n');
    // With kube-controller-manager's garbage collector and namespace controller, as on a real cluster:
    // deleting an Icecream deletes what it owns, deleting a namespace empties it.
    env = await startEnvironment({
      crds: [`${manifestsDir}crd.yaml`],
      controllers: { garbageCollector: true, namespaceLifecycle: true },
      signal,
    });
    rest = await loadKubeConfig({ path: env.kubeconfigPath });
    const namespace = flags.namespace || 'default';
    const { metrics, registry } = createPrometheusMetrics(logger);
    endpoints = await serveOperatorEndpoints(flags, () => operator, registry);
    out.write(`API server ${env.credentials.server} ready; Icecream CRD installed.\n`);
    // The Icecream webhooks in this process, installed through the API as a cluster's would be.
    webhooks = icecreamWebhooksFromFlags(flags, 'demo', { logger, metrics });
    if (webhooks !== undefined) {
      await webhooks.server.start(signal);
      const caPem = webhooks.caPem ?? readFileSync(`${flags.webhookCertDir}/ca.crt`, 'utf8');
      const configurations = webhooks.configurations(caPem, webhooks.server.url());
      await env.installWebhooks(configurations, { caPem, signal });
      out.write(
        `Icecream webhooks (validating, defaulting) served at ${webhooks.server.url()} and installed.\n`,
      );
    }
    operator = await createOperator(operatorOptionsFrom(flags, { rest, logger, metrics }));
    await operator.start(signal);
    out.write(`Operator running (identity ${operator.identity}).\n`);
    simulated = await startSimulatedWorkload({ rest, signal, logger });
    out.write(
      `SIMULATED workload controller running: it plays kube-controller-manager and a kubelet for node ${simulatedNodeName} (built-in server only).\n\n`,
    );
    let announced = false;
    const { kubeconfigPath } = env;
    const { metricsAddress } = endpoints;
    const live = startLiveView({
      rest,
      signal,
      logger,
      out,
      onChange: (ready) => {
        if (announced || ready.size < sampleFiles.length || ![...ready.values()].every(Boolean))
          return;
        announced = true;
        out.write(
          [
            '',
            'Both Icecreams are Ready. The API server keeps running until Ctrl-C; talk to it with kubectl:',
            `  export KUBECONFIG=${kubeconfigPath}`,
            `  kubectl get icecreams,deployments,pods -n ${namespace}`,
            `  kubectl patch icecream vanilla -n ${namespace} --type merge -p '{"spec":{"replicas":4}}'`,
            `  kubectl delete icecream chocolate -n ${namespace}`,
            metricsAddress === undefined ? '' : `Metrics: http://${metricsAddress}/metrics`,
            '',
          ].join('\n'),
        );
      },
    });
    const running = [
      operator.stopped(),
      simulated.stopped(),
      live.done,
      webhooks?.server.stopped(),
    ] as const;
    run = Promise.all(running).then(([result]) => {
      out.write(
        result.drained
          ? 'Stopped: no reconcile in flight, caches closed, API server stopped.\n'
          : `Stopped, but reconciles were still running: ${result.pending.join(', ')}\n`,
      );
      return result;
    });
    const icecreams = new Client<Icecream>({
      gvr: icecreamResource,
      kind: 'Icecream',
      namespaced: true,
      rest,
    });
    for (const file of sampleFiles) {
      const sample: Icecream = parse(readFileSync(`${manifestsDir}${file}`, 'utf8'));
      await icecreams.create(
        namespace,
        { ...sample, metadata: { ...sample.metadata, namespace } },
        { signal },
      );
      out.write(`  applied ${file} (Icecream ${namespace}/${sample.metadata?.name})\n`);
    }
    if (webhooks !== undefined) {
      const shown = await showcaseWebhooks(
        (object) => icecreams.create(namespace, object, { signal, dryRun: true }),
        namespace,
      );
      out.write(
        `  webhook defaulted Icecream strawberry (dry run): spec ${JSON.stringify(shown.defaulted)}\n` +
          `  webhook denied Icecream pistachio (dry run): ${shown.denied}\n`,
      );
    }
  }

  async function close(): Promise<void> {
    closing ??= (async () => {
      await operator?.close();
      await simulated?.close();
      await endpoints?.close();
      await webhooks?.server.close();
      if (rest !== undefined) await restTransportFor(rest)?.close();
      await env?.stop();
    })();
    return closing;
  }

  return {
    start,
    stopped: async () => (run === undefined ? drainedResult : run),
    isRunning: () => run !== undefined && closing === undefined,
    close,
    [Symbol.asyncDispose]: close,
  };
}
