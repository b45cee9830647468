// The outage soak (issue 26): a SharedCacheFactory of 50 kinds (outage-process.ts) while the built-in API server
// refuses every connection for --outage seconds; measures the requests the factory sent meanwhile (per minute) and
// the time from the server answering again to every informer having seen an object created then.
import { Client, type KubeObject, loadKubeConfig, RestTransport } from '@lasso/client';
import type { SoakOptions } from './args.ts';
import { type Child, forkChild, within } from './ipc.ts';
import { outageKindCount, outageKinds, outageMarker } from './kinds.ts';
import type { OutageMessage } from './outage-process.ts';
import type { Report } from './report.ts';
import type { ServerMessage } from './server-process.ts';
import { formatMs } from './stats.ts';

/** The namespace the outage soak's informers watch. */
export const outageNamespace = 'soak-outage';

/**
 * The gate pings at most every 3.2 s (+0..25 % jitter) once its backoff reached its cap: 18.75 a minute at most.
 * The check allows 20 a minute after the outage's first 10 s (where each informer may try once).
 */
const steadyRequestsPerMinute = 20;

/** Run the outage soak against `server`, adding its numbers and checks to `report`. */
export async function runOutageSoak(
  options: SoakOptions,
  server: Child<ServerMessage>,
  kubeconfigPath: string,
  report: Report,
): Promise<void> {
  const outageMs = options.outageS * 1000;
  const kinds = outageKinds(outageKindCount);
  const factory = forkChild<OutageMessage>('outage-process.js', [
    kubeconfigPath,
    outageNamespace,
    String(kinds.length),
    options.verbose ? 'verbose' : '',
  ]);
  let seq = 0;
  const requests = async (): Promise<number> => {
    const asked = seq++;
    factory.send({ type: 'requests', seq: asked });
    for (;;) {
      const answer = await within(factory.nextOf('requests'), 30_000, 'the request count');
      if (answer.seq === asked) return answer.total;
    }
  };
  try {
    await within(
      factory.nextOf('synced'),
      120_000,
      `the outage factory synced ${kinds.length} kinds`,
    );
    const before = await requests();
    const downAt = Date.now();
    server.send({ type: 'outage', seq: 0, downMs: outageMs });
    // After the first 10 s each informer has found the server gone: from then on only the gate should ask.
    const steadyFromMs = Math.min(10_000, outageMs);
    await new Promise((resolve) => setTimeout(resolve, steadyFromMs));
    const atSteady = await requests();
    await within(
      server.nextOf('outage-over'),
      outageMs + 60_000,
      'the server back after the outage',
    );
    const backAt = Date.now();
    const after = await requests();
    const converged = factory.nextOf('converged');
    converged.catch(() => {});
    await writeMarkers(kubeconfigPath, kinds);
    const { at } = await within(converged, 60_000, 'every informer seeing the marker');
    const convergenceMs = at - backAt;
    const downMs = backAt - downAt;
    const total = after - before;
    const steadyMs = downMs - steadyFromMs;
    const steady = after - atSteady;
    const steadyPerMinute = steadyMs > 0 ? (steady * 60_000) / steadyMs : 0;
    report.line(
      `outage: ${formatMs(downMs)} of refused connections under ${kinds.length} kinds: ${total} requests (${((total * 60_000) / downMs).toFixed(1)} per minute; ${atSteady - before} in the first ${formatMs(steadyFromMs)}, then ${steadyPerMinute.toFixed(1)} per minute); every informer had a write made after it ${formatMs(convergenceMs)} after the server answered`,
    );
    report.check(
      `the outage cost at most one request per informer plus the gate's pings (${kinds.length} + 1 per 3.2 s)`,
      total <= kinds.length + Math.ceil(downMs / 3_200) + 2,
      `${total} requests`,
    );
    if (steadyMs >= 20_000) {
      report.check(
        `after the outage's first ${formatMs(steadyFromMs)}, at most ${steadyRequestsPerMinute} requests per minute`,
        steadyPerMinute <= steadyRequestsPerMinute,
        `${steadyPerMinute.toFixed(1)} per minute`,
      );
    }
    report.check(
      `every informer converged within ${options.convergeWithinS} s of the server answering`,
      convergenceMs <= options.convergeWithinS * 1000,
      formatMs(convergenceMs),
    );
  } finally {
    factory.send({ type: 'stop' });
    const stopped = await within(
      factory.nextOf('stopped'),
      60_000,
      'the outage factory stop',
    ).catch((error: unknown) => {
      report.line(`outage factory: ${String(error)}`);
      return undefined;
    });
    factory.disconnect();
    let exitedOnItsOwn = true;
    const exitCode = await within(factory.exited, 15_000, 'outage factory exit').catch(() => {
      exitedOnItsOwn = false;
      factory.process.kill('SIGKILL');
      return 'killed';
    });
    if (stopped !== undefined) {
      report.line(
        `log entries of the outage factory (top): ${stopped.logs.map(([k, n]) => `${k} x${n}`).join('; ')}`,
      );
      report.check(
        'no unhandled rejection or process warning in the outage factory',
        stopped.unhandledRejections.length === 0 && stopped.warnings.length === 0,
        [...stopped.unhandledRejections, ...stopped.warnings].slice(0, 3).join('; '),
      );
    }
    report.check(
      'the outage factory exits on its own',
      exitedOnItsOwn && exitCode === 0,
      exitedOnItsOwn ? `exit code ${exitCode}` : 'still running 15 s after it stopped everything',
    );
  }
}

/** Create the marker object in every kind, through a transport of its own (the outage closed every other one). */
async function writeMarkers(
  kubeconfigPath: string,
  kinds: ReturnType<typeof outageKinds>,
): Promise<void> {
  const transport = new RestTransport(await loadKubeConfig({ path: kubeconfigPath }));
  try {
    await Promise.all(
      kinds.map((kind) =>
        new Client<KubeObject>({
          gvr: kind.gvr,
          kind: kind.gvk.kind,
          namespaced: true,
          rest: transport,
        }).create(outageNamespace, {
          apiVersion:
            kind.gvk.group === '' ? kind.gvk.version : `${kind.gvk.group}/${kind.gvk.version}`,
          kind: kind.gvk.kind,
          metadata: { name: outageMarker, namespace: outageNamespace },
          ...(kind.field === 'data' ? { data: {} } : { spec: {} }),
        } as KubeObject),
      ),
    );
  } finally {
    await transport.close();
  }
}
