// lasso's `dynamic-types` handler: every CRD/APIService event marks discovery dirty (one refresh per burst), naming
// the group it is about so that only that group's versions are read again.
import { type EventHandlerRegistration, isDeletedFinalStateUnknown } from '@lasso/cache';
import { servedGroupOf } from '@lasso/client';
import { errorMessage, type Logger } from '@lasso/core';
import type { SharedCacheFactory } from '@lasso/factory';
import type { DiscoveryRefresher } from './discovery-refresher.ts';

const crdKind = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
const apiServiceKind = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService' };

/**
 * @internal Add the `dynamic-types` handler to the factory's CRD and APIService informers (into `handlers`, for
 * the run to remove) and start them with `signal` (which starts the cache factory when it does not run). A kind
 * that cannot be watched is logged: discovery is then refreshed with backoff only.
 */
export async function watchDiscoveryChanges(
  caches: SharedCacheFactory,
  refresher: DiscoveryRefresher,
  handlers: EventHandlerRegistration[],
  run: AbortSignal,
  signal: AbortSignal,
  logger: Logger,
): Promise<void> {
  for (const kind of [crdKind, apiServiceKind]) {
    try {
      const informer = await caches.forKind(kind, { signal: run });
      if (run.aborted) return;
      handlers.push(
        informer.addEventHandler(
          {
            onAdd: (object, initial) => {
              if (!initial) refresher.markDirty(servedGroupOf(object));
            },
            onUpdate: (_old, object) => refresher.markDirty(servedGroupOf(object)),
            onDelete: (object) =>
              refresher.markDirty(
                servedGroupOf(isDeletedFinalStateUnknown(object) ? object.object : object),
              ),
          },
          { name: 'dynamic-types' },
        ),
      );
      // Starts the cache factory with this signal when it does not run yet.
      caches.startGVK(signal, kind).catch((error: unknown) => {
        if (!run.aborted) {
          logger.warn('could not watch for discovery changes', {
            kind: kind.kind,
            error: errorMessage(error),
          });
        }
      });
    } catch (error) {
      if (run.aborted) return;
      logger.warn('could not watch for discovery changes; refreshing with backoff only', {
        kind: kind.kind,
        error: errorMessage(error),
      });
    }
  }
}
