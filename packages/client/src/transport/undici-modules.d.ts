// Types of the undici files dispatcher.ts loads by path instead of through undici's index (see why there): undici
// ships declarations for its index only. Each file is CommonJS whose module.exports (`export =`) is what a default
// import gives, typed by the index's declaration of the same class or functions.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';

  const AgentClass: typeof Agent;
  export = AgentClass;
}

declare module 'undici/lib/dispatcher/proxy-agent.js' {
  import type { ProxyAgent } from 'undici';

  const ProxyAgentClass: typeof ProxyAgent;
  export = ProxyAgentClass;
}

declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type { Dispatcher } from 'undici';

  const DispatcherClass: typeof Dispatcher;
  export = DispatcherClass;
}

declare module 'undici/lib/api/index.js' {
  import type { Dispatcher } from 'undici';

  /** request(), stream(), pipeline(), upgrade() and connect(), called with a Dispatcher as `this`. */
  const api: Pick<Dispatcher, 'request' | 'stream' | 'pipeline' | 'upgrade' | 'connect'>;
  export = api;
}
