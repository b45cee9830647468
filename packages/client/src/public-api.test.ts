import { describe, expect, it } from 'vitest';
import * as api from './index.ts';
import * as testing from './testing/index.ts';

describe('public API', () => {
  it('exports exactly the documented runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "ApiError",
        "Client",
        "DEFAULT_EXEC_TIMEOUT_MS",
        "DEFAULT_MAX_RESPONSE_BYTES",
        "DEFAULT_MAX_WATCH_EVENT_BYTES",
        "DEFAULT_PROGRESS_TIMEOUT_MS",
        "DEFAULT_REQUEST_TIMEOUT_MS",
        "DiscoveryClient",
        "ExecCredentialProvider",
        "InactivityTimer",
        "LineDecoder",
        "MIN_RESPONSE_BYTES_PER_SECOND",
        "RequestTimeoutError",
        "RestTransport",
        "SlowResponseError",
        "TIMEOUT_POLICY",
        "TokenFileSource",
        "VERSION",
        "builtinKinds",
        "builtinMappingFor",
        "checkPathSegment",
        "clientFor",
        "clientForKind",
        "createRestConfig",
        "createRestMapper",
        "decodeWatchEvent",
        "groupOfApiVersion",
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
        "loadKubeConfigFromString",
        "parseApiVersion",
        "pathSegmentProblem",
        "reasonForStatus",
        "redactRestConfig",
        "restTransportFor",
        "servedGroupOf",
      ]
    `);
    expect(Object.keys(testing).sort()).toMatchInlineSnapshot(`
      [
        "restConfigFromCredentials",
      ]
    `);
  });
});
