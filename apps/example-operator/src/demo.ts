// The README's main command with no cluster configured: the built-in API server of @lasso/envtest, the CRD,
// the operator, a clearly labelled simulated workload controller (the built-in server runs none), two sample
// Icecreams and a live view, until Ctrl-C.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, loadKubeConfig, restTransportFor } from '@lasso/client';
import type { Logger } from '@lasso/core';
import { startEnvironment } from '@lasso/envtest';
import { parse } from 'yaml';
import type { OperatorFlags } from './flags.ts';
import { type Icecream, icecreamResource } from './icecream.ts';
import { startLiveView } from './live-view.ts';
import { createOperator, type Operator, operatorOptionsFrom } from './operator.ts';
import { serveOperatorEndpoints } from './operator-endpoints.ts';
import { createPrometheusMetrics } from './prometheus-metrics.ts';
import {
  type SimulatedWorkload,
  simulatedNodeName,
  startSimulatedWorkload,
} from './simulated-workload.ts';

/** The app's manifests folder, from src/ (tests) or dist/ (the built command). */
export const manifestsDir = fileURLToPath(new URL('../manifests/', import.meta.url));
const sampleFiles = ['samples/vanilla.yaml', 'samples/chocolate.yaml'];

/** Run the demo until `signal` aborts; resolves to the exit code. */
export async function runDemo(
  flags: OperatorFlags,
  stopSignal: AbortSignal,
  logger: Logger,
): Promise<number> {
  const out = process.stdout;
  // Stops everything on Ctrl-C, and also when the demo itself fails, so nothing keeps running behind an error.
  const stop = new AbortController();
  const onStop = (): void => stop.abort(stopSignal.reason);
  stopSignal.addEventListener('abort', onStop, { once: true });
  const signal = stop.signal;
  out.write('No cluster configured (no --kubeconfig, KUBECONFIG or in-cluster service account):\n');
  out.write('starting the built-in Kubernetes API server of @lasso/envtest...\n');
  // With kube-controller-manager's garbage collector and namespace controller, as on a real cluster:
  // deleting an Icecream deletes what it owns, deleting a namespace empties it.
  const env = await startEnvironment({
    crds: [`${manifestsDir}crd.yaml`],
    controllers: { garbageCollector: true, namespaceLifecycle: true },
    signal,
  });
  const rest = await loadKubeConfig({ path: env.kubeconfigPath });
  const namespace = flags.namespace || 'default';
  let operator: Operator | undefined;
  let simulated: SimulatedWorkload | undefined;
  try {
    const { metrics, registry } = createPrometheusMetrics(logger);
    const endpoints = await serveOperatorEndpoints(flags, () => operator, registry);
    out.write(`API server ${env.credentials.server} ready; Icecream CRD installed.\n`);
    operator = await createOperator(operatorOptionsFrom(flags, { rest, logger, metrics }));
    await operator.start(signal);
    out.write(`Operator running (identity ${operator.identity}).\n`);
    simulated = await startSimulatedWorkload({ rest, signal, logger });
    out.write(
      `SIMULATED workload controller running: it plays kube-controller-manager and a kubelet for node ${simulatedNodeName} (built-in server only).\n\n`,
    );
    let announced = false;
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
            `  export KUBECONFIG=${env.kubeconfigPath}`,
            `  kubectl get icecreams,deployments,pods -n ${namespace}`,
            `  kubectl patch icecream vanilla -n ${namespace} --type merge -p '{"spec":{"replicas":4}}'`,
            `  kubectl delete icecream chocolate -n ${namespace}`,
            endpoints.metricsAddress === undefined
              ? ''
              : `Metrics: http://${endpoints.metricsAddress}/metrics`,
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
      await icecreams.create(namespace, { ...sample, metadata: { ...sample.metadata, namespace } });
      out.write(`  applied ${file} (Icecream ${namespace}/${sample.metadata?.name})\n`);
    }
    if (!signal.aborted) {
      await new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    }
    const [result] = await Promise.all([operator.stopped(), simulated.stopped(), live.done]);
    await endpoints.close();
    if (!result.drained) {
      out.write(`Stopped, but reconciles were still running: ${result.pending.join(', ')}\n`);
      return 1;
    }
    out.write('Stopped: no reconcile in flight, caches closed, API server stopped.\n');
    return 0;
  } finally {
    stopSignal.removeEventListener('abort', onStop);
    stop.abort();
    await operator?.close();
    await simulated?.close();
    await restTransportFor(rest)?.close();
    await env.stop();
  }
}
