// Raw HTTP to the server of a kubeconfig (undici, its CA, client certificate or bearer token): what W5's seeding,
// the raw list floors of W2 and W5 and W4's limit consumer use, so that none goes through the clients compared.
import { KubeConfig } from '@kubernetes/client-node';
import { Agent } from 'undici';

/** The server of a kubeconfig, a dispatcher trusting its CA with its client certificate, and its auth headers. */
export interface KubeHttp {
  readonly server: string;
  readonly agent: Agent;
  readonly headers: Record<string, string>;
}

/** Read `kubeconfigPath` (current context) into a {@link KubeHttp}; `connections` caps the agent per origin. */
export function kubeHttp(kubeconfigPath: string, connections?: number): KubeHttp {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath);
  const cluster = config.getCurrentCluster();
  const user = config.getCurrentUser();
  if (cluster === null) throw new Error(`${kubeconfigPath}: no current cluster`);
  const decode = (data: string | undefined): string | undefined =>
    data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
  const agent = new Agent({
    ...(connections === undefined ? {} : { connections }),
    connect: {
      ca: decode(cluster.caData),
      cert: decode(user?.certData),
      key: decode(user?.keyData),
    },
  });
  const headers: Record<string, string> = {};
  if (user?.token !== undefined) headers.authorization = `Bearer ${user.token}`;
  return { server: cluster.server, agent, headers };
}
