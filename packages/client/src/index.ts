// Public API of @lasso/client.
export { groupOfApiVersion, parseApiVersion } from './api-version.ts';
export {
  DEFAULT_EXEC_TIMEOUT_MS,
  type ExecClusterInfo,
  type ExecCredential,
  ExecCredentialProvider,
} from './auth/exec.ts';
export { TokenFileSource } from './auth/token-file.ts';
export {
  type BuiltinApiVersion,
  type BuiltinKind,
  type BuiltinKinds,
  type BuiltinResource,
  builtinKinds,
  builtinMappingFor,
  type KindType,
} from './builtin-kinds.ts';
export {
  Client,
  type ClientOptions,
  type DeleteOptions,
  type PatchOptions,
  type PatchType,
  type RequestOptions,
  type WriteOptions,
} from './client.ts';
export {
  type ClientForKindOptions,
  type ClientForOptions,
  clientFor,
  clientForKind,
} from './client-for.ts';
export { type LoadDefaultConfigOptions, loadDefaultConfig } from './config/default-config.ts';
export { type InClusterConfigOptions, loadInClusterConfig } from './config/in-cluster.ts';
export {
  type LoadKubeConfigOptions,
  loadKubeConfig,
  loadKubeConfigFromString,
} from './config/kubeconfig.ts';
export {
  type AuthConfig,
  createRestConfig,
  type ExecConfig,
  type Impersonation,
  type RestConfig,
  redactRestConfig,
  type TlsConfig,
} from './config/rest-config.ts';
export {
  type ApiGroupInfo,
  type ApiResourceInfo,
  DiscoveryClient,
  type DiscoveryResult,
} from './discovery.ts';
export {
  ApiError,
  type ApiRequest,
  isAlreadyExists,
  isApiError,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isResourceExpired,
  isServerTimeout,
  isTooManyRequests,
  isUnauthorized,
  reasonForStatus,
} from './errors.ts';
export { InactivityTimer, type InactivityTimerOptions } from './inactivity-timer.ts';
export { checkPathSegment, pathSegmentProblem } from './path-segment.ts';
export {
  createRestMapper,
  type PartialGroupVersionKind,
  type PartialGroupVersionResource,
  type RestMapper,
  type RestMapping,
} from './rest-mapper.ts';
export { servedGroupOf } from './served-group.ts';
export { MIN_RESPONSE_BYTES_PER_SECOND, SlowResponseError } from './throughput-floor.ts';
export {
  DEFAULT_PROGRESS_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type RequestClass,
  RequestTimeoutError,
  TIMEOUT_POLICY,
  type TimeoutDeadline,
  type TimeoutRule,
} from './timeout-policy.ts';
export { restTransportFor } from './transport/registry.ts';
export {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_WATCH_EVENT_BYTES,
} from './transport/response-body.ts';
export type {
  QueryParams,
  RequestRateLimiter,
  RestRequest,
  StreamResponse,
} from './transport/rest-request.ts';
export { RestTransport } from './transport.ts';
export type {
  GroupVersionKind,
  GroupVersionResource,
  KubeObject,
  KubeObjectLike,
  ListAllOptions,
  ListMeta,
  ListOptions,
  ObjectList,
  ObjectMeta,
  Status,
  StatusCause,
  StatusDetails,
  WatchEvent,
  WatchEventType,
  WatchOptions,
} from './types.ts';
export { VERSION } from './version.ts';
export { decodeWatchEvent, LineDecoder } from './watch.ts';
