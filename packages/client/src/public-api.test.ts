import { describe, expect, it } from 'vitest';
import * as api from './index.ts';
import * as testing from './testing/index.ts';

describe('public API', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "ApiError",
        "Client",
        "DiscoveryClient",
        "ExecCredentialProvider",
        "LineDecoder",
        "RestTransport",
        "TokenFileSource",
        "VERSION",
        "builtinKinds",
        "builtinMappingFor",
        "clientFor",
        "clientForKind",
        "createRestConfig",
        "createRestMapper",
        "decodeWatchEvent",
        "isAlreadyExists",
        "isApiError",
        "isBadRequest",
        "isConflict",
        "isForbidden",
        "isGone",
        "isInvalid",
        "isNotFound",
        "isResourceExpired",
        "isServerTimeout",
        "isTooManyRequests",
        "isUnauthorized",
        "loadDefaultConfig",
        "loadInClusterConfig",
        "loadKubeConfig",
        "reasonForStatus",
        "redactRestConfig",
        "restTransportFor",
      ]
    `);
    expect(Object.keys(testing).sort()).toMatchInlineSnapshot(`
      [
        "restConfigFromCredentials",
      ]
    `);
  });
});
