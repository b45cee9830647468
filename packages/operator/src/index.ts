// Public API of @lasso/operator: the operator runtime (controller-runtime's Manager in lasso's lifecycle shape)
// and the Prometheus text registry it serves /metrics from.
// Declares the operator error codes into @lasso/core's LassoErrorCodes (types only; nothing runs).
import './errors.ts';

export type { EndpointAddress } from './endpoints.ts';
export { OperatorClosedError, OperatorListenError } from './errors.ts';
export {
  createOperator,
  type Operator,
  type OperatorAddresses,
  type OperatorPhase,
  type OperatorStatus,
} from './operator.ts';
export type {
  LeaderElectionSettings,
  OperatorOptions,
  OperatorRunOptions,
} from './options.ts';
export {
  createPrometheusRegistry,
  defaultHistogramBuckets,
  type PrometheusRegistry,
  type PrometheusRegistryOptions,
  prometheusContentType,
} from './prometheus-registry.ts';
