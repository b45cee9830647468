// restConfigFromCredentials: point a client at a test environment without writing a kubeconfig.
import type { Clock, Logger } from '@lasso/core';
import { createRestConfig, type RestConfig } from '../config/rest-config.ts';

/** The shape of `@lasso/envtest`'s `Credentials` (declared here: the client never imports envtest). */
export interface EnvironmentCredentials {
  server: string;
  caPem?: string | undefined;
  clientCertPem?: string | undefined;
  clientKeyPem?: string | undefined;
  token?: string | undefined;
}

/**
 * A {@link RestConfig} for a test environment's admin credentials: the client certificate when
 * there is one, else the bearer token (`prefer: 'token'` picks the token first).
 *
 * @example
 * ```ts
 * const env = await startEnvironment();
 * const rest = restConfigFromCredentials(env.credentials, { clock });
 * ```
 */
export function restConfigFromCredentials(
  credentials: EnvironmentCredentials,
  options: {
    prefer?: 'certificate' | 'token' | undefined;
    clock?: Clock | undefined;
    logger?: Logger | undefined;
    timeoutMs?: number | undefined;
  } = {},
): RestConfig {
  const hasCertificate =
    credentials.clientCertPem !== undefined && credentials.clientKeyPem !== undefined;
  const useToken =
    credentials.token !== undefined && (options.prefer === 'token' || !hasCertificate);
  return createRestConfig({
    server: credentials.server,
    tls: {
      ...(credentials.caPem !== undefined ? { caPem: credentials.caPem } : {}),
      ...(!useToken && hasCertificate
        ? { certPem: credentials.clientCertPem, keyPem: credentials.clientKeyPem }
        : {}),
    },
    ...(useToken ? { auth: { type: 'token' as const, token: credentials.token as string } } : {}),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    source: 'test credentials',
  });
}
