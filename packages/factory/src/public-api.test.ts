import { describe, expect, it } from 'vitest';
import * as api from './index.ts';

describe('public API', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "ApiServerUnavailableError",
        "FactoryClosedError",
        "FactoryStartError",
        "HealthGate",
        "ShardMovedError",
        "createSharedCacheFactory",
        "createSharedClientFactory",
        "createSharedControllerFactory",
        "createSharedControllerFactoryFromConfig",
        "defaultControllerWorkers",
        "defaultGracefulShutdownTimeoutMs",
        "gvkString",
        "gvrString",
        "healthCheckIntervalMs",
        "healthWarningMaxIntervalMs",
        "kindFor",
        "kindOf",
        "sharedClientFactoryWithAgent",
        "sharedClientFactoryWithImpersonation",
        "sharedControllerFactoryWithAgent",
        "sharedControllerWithAgent",
        "sharedHealthGate",
        "withClientMutator",
      ]
    `);
  });
});
