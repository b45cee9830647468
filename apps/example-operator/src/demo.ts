// The README's main command with no cluster configured: the built-in API server of @lasso/envtest, the CRD,
// the operator (of @lasso/operator) on it, the Icecream webhooks, a clearly labelled simulated workload
// controller (the built-in server runs none), two sample Icecreams and a live view, until Ctrl-C. main runs the
// operator it returns as it runs one against a cluster; the rest stops at `signal` and closes in `cleanup`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, loadKubeConfig, type RestConfig } from '@lasso/client';
import type { Logger, StopResult } from '@lasso/core';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { createOperator, type Operator } from '@lasso/operator';
import { parse } from 'yaml';
import type { OperatorFlags } from './flags.ts';
import type { Icecream } from './generated/index.ts';
import { icecreamResource } from './icecream.ts';
import { startLiveView } from './live-view.ts';
import { operatorOptionsFrom, type Prepared, registerIcecreamController } from './operator.ts';
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
 * Start the demo beside an operator not yet running: the built-in API server, the webhooks (installed through
 * the API), the operator with the Icecream controller registered, the simulated workload, the live view, the
 * samples and the webhooks' dry runs. Everything but the operator stops when `signal` aborts; `cleanup` (after
 * the operator closed) waits for that, prints how the operator stopped (`stopped()`, taken at the shutdown
 * signal) and releases it all, the API server last. A failed start releases what it started and rejects.
 */
export async function startDemo(
  flags: OperatorFlags,
  logger: Logger,
  signal: AbortSignal,
  stopped: () => Promise<StopResult> | undefined,
): Promise<Prepared> {
  const out = process.stdout;
  // Aborted by the caller's signal, or here when the start fails: release waits for what it stops.
  const stop = new AbortController();
  const follow = (): void => stop.abort(signal.reason);
  if (signal.aborted) follow();
  else signal.addEventListener('abort', follow, { once: true });
  let env: Environment | undefined;
  let rest: RestConfig | undefined;
  let operator: Operator | undefined;
  let simulated: SimulatedWorkload | undefined;
  let webhooks: IcecreamWebhooks | undefined;
  let live: { done: Promise<void> } | undefined;
  const release = async (): Promise<void> => {
    await simulated?.stopped();
    await live?.done;
    await webhooks?.server.stopped();
    await simulated?.close();
    await webhooks?.server.close();
    await env?.stop();
  };
  try {
    out.write(
      'No cluster configured (no --kubeconfig, KUBECONFIG or in-cluster service account):\n',
    );
    out.write('starting the built-in Kubernetes API server of @lasso/envtest...\n');
    // With kube-controller-manager's garbage collector and namespace controller, as on a real cluster:
    // deleting an Icecream deletes what it owns, deleting a namespace empties it.
    env = await startEnvironment({
      crds: [`${manifestsDir}crd.yaml`],
      controllers: { garbageCollector: true, namespaceLifecycle: true },
      signal: stop.signal,
    });
    rest = await loadKubeConfig({ path: env.kubeconfigPath });
    const namespace = flags.namespace || 'default';
    out.write(`API server ${env.credentials.server} ready; Icecream CRD installed.\n`);
    operator = await createOperator({
      ...operatorOptionsFrom(flags, logger, 'demo'),
      config: rest,
    });
    const made = operator;
    // The Icecream webhooks in this process, installed through the API as a cluster's would be.
    webhooks = icecreamWebhooksFromFlags(flags, 'demo', { logger, metrics: made.registry.metrics });
    if (webhooks !== undefined) {
      await webhooks.server.start(stop.signal);
      const caPem = webhooks.caPem ?? readFileSync(`${flags.webhookCertDir}/ca.crt`, 'utf8');
      const configurations = webhooks.configurations(caPem, webhooks.server.url());
      await env.installWebhooks(configurations, { caPem, signal: stop.signal });
      out.write(
        `Icecream webhooks (validating, defaulting) served at ${webhooks.server.url()} and installed.\n`,
      );
    }
    await registerIcecreamController(made);
    out.write(`Operator starting (identity ${made.identity}).\n`);
    simulated = await startSimulatedWorkload({ rest, signal: stop.signal, logger });
    out.write(
      `SIMULATED workload controller running: it plays kube-controller-manager and a kubelet for node ${simulatedNodeName} (built-in server only).\n\n`,
    );
    let announced = false;
    const { kubeconfigPath } = env;
    live = startLiveView({
      rest,
      signal: stop.signal,
      logger,
      out,
      onChange: (ready) => {
        if (announced || ready.size < sampleFiles.length || ![...ready.values()].every(Boolean))
          return;
        announced = true;
        const metricsAddress = made.addresses().metrics;
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
        { signal: stop.signal },
      );
      out.write(`  applied ${file} (Icecream ${namespace}/${sample.metadata?.name})\n`);
    }
    if (webhooks !== undefined) {
      const shown = await showcaseWebhooks(
        (object) => icecreams.create(namespace, object, { signal: stop.signal, dryRun: true }),
        namespace,
      );
      out.write(
        `  webhook defaulted Icecream strawberry (dry run): spec ${JSON.stringify(shown.defaulted)}\n` +
          `  webhook denied Icecream pistachio (dry run): ${shown.denied}\n`,
      );
    }
  } catch (error) {
    stop.abort(error);
    await operator?.close();
    await release();
    throw error;
  }
  return {
    operator,
    async cleanup() {
      const result = await (stopped() ?? operator.stopped());
      await release();
      out.write(
        result.drained
          ? 'Stopped: no reconcile in flight, caches closed, API server stopped.\n'
          : `Stopped, but reconciles were still running: ${result.pending.join(', ')}\n`,
      );
    },
  };
}
