// One shared RestTransport per RestConfig object (client-go's transport cache, keyed by config), owned by
// this registry for the life of the process: its holders are many (every Client built from the config), so
// none of them may close it.
import type { RestConfig } from '../config/rest-config.ts';
import { RestTransport } from '../transport.ts';

const transports = new WeakMap<RestConfig, RestTransport>();

/**
 * The transport shared by every client built from `config` (one per config object: one (cluster, user)),
 * created on first use. The registry owns it for the life of the process, as client-go's transport cache: its
 * idle keep-alive connections close after 30 s and never hold the process open (only a request or watch in
 * flight does: abort it), so nobody needs to close it.
 *
 * For a transport you close at shutdown, create one (`new RestTransport(config)`, or a client factory, which
 * closes the transport it created). Closing the shared one is deprecated: other clients of the config may
 * still use it. It still works, and the next call then builds a fresh transport instead of handing out the
 * closed one.
 *
 * @example
 * ```ts
 * const rest = await loadDefaultConfig();
 * const version = await restTransportFor(rest).requestJson<{ gitVersion: string }>({
 *   method: 'GET',
 *   path: '/version',
 * });
 * ```
 */
export function restTransportFor(config: RestConfig): RestTransport {
  let transport = transports.get(config);
  if (transport === undefined || transport.closed) {
    transport = new RestTransport(config);
    transports.set(config, transport);
  }
  return transport;
}
