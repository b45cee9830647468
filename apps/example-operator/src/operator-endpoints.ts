// The operator's HTTP endpoints: /healthz and /readyz for the kubelet, /metrics for Prometheus.
import type { Registry } from 'prom-client';
import type { OperatorFlags } from './flags.ts';
import { type Endpoints, serveEndpoints } from './http-endpoints.ts';
import type { Operator } from './operator.ts';

/** The operator's running endpoints. */
export interface OperatorEndpoints {
  /** Where /metrics is served (the bound address), when it is. */
  readonly metricsAddress: string | undefined;
  close(): Promise<void>;
}

/** Serve /healthz, /readyz and /metrics as the flags say. */
export async function serveOperatorEndpoints(
  flags: OperatorFlags,
  operator: () => Operator | undefined,
  registry: Registry,
): Promise<OperatorEndpoints> {
  const endpoints: Endpoints[] = [];
  let metricsAddress: string | undefined;
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
    const metrics = await serveEndpoints(flags.metricsAddr, {
      '/metrics': async () => ({
        status: 200,
        body: await registry.metrics(),
        contentType: registry.contentType,
      }),
    });
    endpoints.push(metrics);
    metricsAddress = metrics.address;
  }
  return {
    metricsAddress,
    close: async () => {
      await Promise.all(endpoints.map((endpoint) => endpoint.close()));
    },
  };
}
