// One shared RestTransport per RestConfig object (client-go's transport cache, keyed by config).
import type { RestConfig } from '../config/rest-config.ts';
import { RestTransport } from '../transport.ts';

const transports = new WeakMap<RestConfig, RestTransport>();

/**
 * The transport shared by every client of `config` (one per config object: one (cluster, user)).
 * Created on first use; close it with `restTransportFor(config).close()` at shutdown.
 */
export function restTransportFor(config: RestConfig): RestTransport {
  let transport = transports.get(config);
  if (transport === undefined) {
    transport = new RestTransport(config);
    transports.set(config, transport);
  }
  return transport;
}
