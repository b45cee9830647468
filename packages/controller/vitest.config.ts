import { mergeConfig } from 'vitest/config';
import { lassoProject } from '../../tooling/vitest.shared.ts';

// The tracing tests load the OpenTelemetry SDK, whose CommonJS build requires @opentelemetry/api: under the
// project's `module` export condition Node would pick the API's ESM build, which only a bundler can load. The
// dependency optimizer bundles the SDK (and the API within it) instead.
export default mergeConfig(lassoProject('@lasso/controller'), {
  test: {
    deps: {
      optimizer: { ssr: { enabled: true, include: ['@opentelemetry/sdk-trace-base'] } },
    },
  },
});
