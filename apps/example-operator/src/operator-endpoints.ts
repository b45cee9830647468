// The operator's HTTP endpoints: /healthz and /readyz for the kubelet, /metrics for Prometheus.
import type { Registry } from 'prom-client';
import type { OperatorFlags } from './flags.ts';
import { type Endpoints, serveEndpoints } from './http-endpoints.ts';
import type { Operator } from './operator.ts';

/** Serve /healthz, /readyz and /metrics as the flags say; returns what to close at the end. */
export async function serveOperatorEndpoints(
  flags: OperatorFlags,
  operator: () => Operator | undefined,
  registry: Registry,
): Promise<Endpoints[]> {
  const endpoints: Endpoints[] = [];
  if (flags.healthAddr !== '') {
    endpoints.push(
      await serveEndpoints(flags.healthAddr, {
        '/healthz': async () => ({
          status: operator()?.phase() === 'stopped' ? 503 : 200,
          body: 'ok',
        }),
        '/readyz': async () => {
          const current = operator();
          const ready = current?.ready() === true;
          return {
            status: ready ? 200 : 503,
            body: ready ? 'ok' : `not ready: ${current?.phase() ?? 'starting'}`,
          };
        },
      }),
    );
  }
  if (flags.metricsAddr !== '') {
    endpoints.push(
      await serveEndpoints(flags.metricsAddr, {
        '/metrics': async () => ({
          status: 200,
          body: await registry.metrics(),
          contentType: registry.contentType,
        }),
      }),
    );
  }
  return endpoints;
}
