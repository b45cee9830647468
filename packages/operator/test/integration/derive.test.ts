// The README's derive controller (examples/derive.ts) on an operator over @lasso/envtest, tested as the factory
// README's Testing section says: start the environment, run the controller, read its effects back through the
// API (a bounded expect.poll). Passes on the built-in server and on kube-apiserver (KUBEBUILDER_ASSETS).
import { clientFor, isNotFound, loadKubeConfig, type RestConfig } from '@lasso/client';
import { createTestLogger } from '@lasso/core/testing';
import { type Environment, startEnvironment } from '@lasso/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveController } from '../../examples/derive.ts';
import { createOperator, type Operator } from '../../src/index.ts';

let env: Environment;
let rest: RestConfig;

beforeAll(async () => {
  env = await startEnvironment();
  rest = await loadKubeConfig({ path: env.kubeconfigPath });
});

afterAll(async () => {
  await env?.stop();
});

const pollMs = { timeout: 10_000, interval: 50 };

describe('the derive controller on an operator', () => {
  it('derives an upper-cased owned copy, recreates it when deleted, and records an Event on the source', async () => {
    const logger = createTestLogger();
    const configMaps = clientFor(rest, { apiVersion: 'v1', kind: 'ConfigMap' });
    const events = clientFor(rest, { apiVersion: 'events.k8s.io/v1', kind: 'Event' });
    const operator: Operator = await createOperator({ config: rest, workers: 1, logger });
    const stop = new AbortController();
    try {
      await deriveController(operator);
      await operator.start(stop.signal);
      await configMaps.create('default', { metadata: { name: 'plain' }, data: { a: 'x' } });
      const source = await configMaps.create('default', {
        metadata: { name: 'source', labels: { 'example.com/derive': 'true' } },
        data: { greeting: 'hello', farewell: 'bye' },
      });
      const derived = () =>
        configMaps.get('default', 'source-derived').then(
          (cm) => cm,
          (error: unknown) => {
            if (isNotFound(error)) return undefined;
            throw error;
          },
        );
      await expect
        .poll(() => derived().then((cm) => cm?.data), pollMs)
        .toEqual({
          greeting: 'HELLO',
          farewell: 'BYE',
        });
      const copy = await derived();
      expect(copy?.metadata?.ownerReferences).toEqual([
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'source',
          uid: source.metadata?.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      // One worker takes keys in order: 'plain' was handled before 'source', and got no copy.
      await expect(configMaps.get('default', 'plain-derived')).rejects.toSatisfy(isNotFound);

      // The Event on the source, written by the operator's recorder for 'example.com/derive'.
      await expect
        .poll(
          () =>
            events
              .list('default')
              .then((list) =>
                list.items
                  .filter((event) => event.regarding?.name === 'source')
                  .map((event) => [event.reason, event.reportingController, event.note]),
              ),
          pollMs,
        )
        .toContainEqual(['Derived', 'example.com/derive', 'created default/source-derived']);

      // Deleted: the copy's delete enqueues its owner, which recreates it (a new object).
      await configMaps.delete('default', 'source-derived');
      await expect
        .poll(() => derived().then((cm) => cm?.metadata?.uid), pollMs)
        .not.toBeOneOf([undefined, copy?.metadata?.uid]);

      // A change of the source reaches the copy.
      await configMaps.update('default', { ...source, data: { greeting: 'hi' } });
      await expect
        .poll(() => derived().then((cm) => cm?.data), pollMs)
        .toEqual({
          greeting: 'HI',
        });
      expect(logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
    } finally {
      stop.abort();
      const result = await operator.stopped();
      await operator.close();
      expect(result.drained).toBe(true);
    }
  });
});
