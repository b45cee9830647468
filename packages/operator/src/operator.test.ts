// createOperator without a server: option checks (TypeError/RangeError naming the option, before any config
// is read), the lifecycle before and after close, and the transport the operator owns. Nothing here reaches an
// API server: a start would (the integration tests do).
import { createRestConfig, restTransportFor } from '@lasso/client';
import { isLassoError } from '@lasso/core';
import { createTestLogger } from '@lasso/core/testing';
import { kindFor } from '@lasso/factory';
import { describe, expect, it } from 'vitest';
import { OperatorClosedError } from './errors.ts';
import { createOperator } from './operator.ts';
import { createPrometheusRegistry } from './prometheus-registry.ts';

// Nothing listens there; nothing in these tests sends a request.
const config = createRestConfig({ server: 'https://127.0.0.1:1' });

describe('createOperator options', () => {
  it.each([
    [{ config, kubeconfig: '/k' }, TypeError, 'give config or kubeconfig, not both'],
    [{ config: { server: 1 } }, TypeError, 'config must be a RestConfig'],
    [{ namespace: 3 }, TypeError, 'namespace must be a string'],
    [{ workers: 0 }, RangeError, 'workers must be an integer >= 1, got 0'],
    [{ workers: 1.5 }, RangeError, 'workers must be an integer >= 1'],
    [
      { gracefulShutdownTimeoutMs: -1 },
      RangeError,
      'gracefulShutdownTimeoutMs must be a finite number >= 0',
    ],
    [{ closeTimeoutMs: Number.NaN }, RangeError, 'closeTimeoutMs must be'],
    [{ reconcileTimeoutMs: 0 }, RangeError, 'reconcileTimeoutMs must be a finite number > 0'],
    [{ health: { port: 70_000 } }, RangeError, 'health.port must be an integer from 0 to 65535'],
    [{ metrics: { port: 80, host: '' } }, TypeError, 'metrics.host must be a non-empty string'],
    [{ metrics: 8080 }, TypeError, 'metrics must be an object { port, host? }'],
    [
      { leaderElection: { namespace: 'default' } },
      TypeError,
      'leaderElection.name must be a non-empty string',
    ],
    [
      { leaderElection: { namespace: 'a', name: 'b', identity: '' } },
      TypeError,
      'leaderElection.identity',
    ],
    [
      { leaderElection: { namespace: 'a', name: 'b', retryPeriodMs: 0 } },
      RangeError,
      'leaderElection.retryPeriodMs',
    ],
    [{ registry: {} }, TypeError, 'registry must be a PrometheusRegistry'],
    [
      {
        sharding: { ring: 'icecream', leaseNamespace: 'default' },
        leaderElection: { namespace: 'default', name: 'icecream' },
      },
      RangeError,
      'sharding and leaderElection exclude each other',
    ],
    [{ sharding: { ring: 'Ice_Cream', leaseNamespace: 'default' } }, RangeError, 'sharding.ring'],
  ])('refuses %j', async (options, type, message) => {
    const error = await createOperator({ config, ...(options as object) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toContain(message);
  });

  it('passes sharding to its controller factory', async () => {
    const operator = await createOperator({
      config,
      logger: createTestLogger(),
      sharding: { ring: 'icecream', leaseNamespace: 'default', identity: 'replica-a' },
    });
    expect(operator.factory.shardStatus()).toMatchObject({
      ring: 'icecream',
      identity: 'replica-a',
    });
    await operator.close();
  });

  it('refuses options that are not an object', async () => {
    await expect(createOperator(null as never)).rejects.toThrow(
      new TypeError('createOperator: options must be an object'),
    );
  });
});

describe('operator lifecycle without a run', () => {
  it('is idle, unready and healthy until closed; close releases its own transport, not the caller config', async () => {
    const registry = createPrometheusRegistry();
    const operator = await createOperator({ config, registry, logger: createTestLogger() });
    expect(operator.config).not.toBe(config);
    expect(operator.config.server).toBe(config.server);
    expect(operator.config.metrics).toBe(registry.metrics);
    expect(operator.registry).toBe(registry);
    expect(operator.identity).toMatch(/-[0-9a-f]{8}$/);
    expect(operator.status()).toEqual({
      phase: 'idle',
      ready: false,
      healthy: true,
      leader: undefined,
      kinds: [],
    });
    expect(operator.isRunning()).toBe(false);
    expect(await operator.stopped()).toEqual({ drained: true, pending: [] });
    const recorder = operator.recorder('example.com/test');
    expect(operator.recorder('example.com/test')).toBe(recorder);
    expect(() => operator.recorder('')).toThrow(TypeError);
    const clients = operator.factory.sharedClientFactory();
    const transport = clients.transport;
    expect(transport.config).toBe(operator.config);
    expect(transport).not.toBe(restTransportFor(operator.config));
    expect(transport.closed).toBe(false);
    expect(operator.signal.aborted).toBe(false);

    await operator.close();
    await operator[Symbol.asyncDispose](); // idempotent
    expect(operator.signal.aborted).toBe(true);
    expect(isLassoError(operator.signal.reason, 'LASSO_OPERATOR_CLOSED')).toBe(true);
    expect(transport.closed).toBe(true);
    await expect(transport.requestJson({ method: 'GET', path: '/version' })).rejects.toThrow(
      'the transport is closed',
    );
    expect(restTransportFor(config).closed).toBe(false);
    expect(operator.status()).toMatchObject({ phase: 'closed', healthy: false, ready: false });
    await expect(operator.start(new AbortController().signal)).rejects.toBeInstanceOf(
      OperatorClosedError,
    );
    await expect(operator.forKind(kindFor('v1', 'ConfigMap'))).rejects.toBeInstanceOf(
      OperatorClosedError,
    );
    expect(() => operator.recorder('example.com/other')).toThrow(OperatorClosedError);
  });

  it('uses the identity given for leader election', async () => {
    const operator = await createOperator({
      config,
      leaderElection: { namespace: 'default', name: 'lease', identity: 'me' },
      logger: createTestLogger(),
    });
    expect(operator.identity).toBe('me');
    await operator.close();
  });

  it('takes the Lease and Event clients from its client factory (its transport, closed with it)', async () => {
    const operator = await createOperator({
      config,
      leaderElection: { namespace: 'default', name: 'lease', identity: 'me' },
      logger: createTestLogger(),
    });
    operator.recorder('example.com/test');
    const clients = operator.factory.sharedClientFactory();
    // The factory keeps one client per resource and refuses another kind for it: these were made by it.
    expect(() =>
      clients.forResourceKind(
        { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' },
        'Other',
        true,
      ),
    ).toThrow(/kind Lease/);
    expect(() =>
      clients.forResourceKind(
        { group: 'events.k8s.io', version: 'v1', resource: 'events' },
        'Other',
        true,
      ),
    ).toThrow(/kind Event/);
    await operator.close();
    expect(clients.transport.closed).toBe(true);
  });

  it('refuses a start without an AbortSignal', async () => {
    const operator = await createOperator({ config, logger: createTestLogger() });
    await expect(operator.start(undefined as never)).rejects.toThrow(TypeError);
    await operator.close();
  });
});
