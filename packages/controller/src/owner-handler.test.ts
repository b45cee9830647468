// Ports the behaviours of controller-runtime pkg/handler/eventhandler_test.go (EnqueueRequestForOwner cases;
// own tests, not copies).

import { noopLogger } from '@lasso/core';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { OwnerReference } from 'kubernetes-types/meta/v1.js';
import { describe, expect, it } from 'vitest';
import { enqueueOwnerHandler, ownerKeysOf } from './owner-handler.ts';
import type { ReconcileContext } from './reconcile-context.ts';

/** The third argument a controller passes to a handler. */
const context: ReconcileContext = {
  signal: new AbortController().signal,
  key: 'default/settings',
  logger: noopLogger,
};

function reference(
  kind: string,
  name: string,
  options: { apiVersion?: string; controller?: boolean } = {},
): OwnerReference {
  return {
    apiVersion: options.apiVersion ?? 'apps/v1',
    kind,
    name,
    uid: `uid-${name}`,
    ...(options.controller === undefined ? {} : { controller: options.controller }),
  };
}

function configMap(namespace: string | undefined, ownerReferences: OwnerReference[]): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'settings',
      ...(namespace === undefined ? {} : { namespace }),
      ownerReferences,
    },
  };
}

function recordingController() {
  const keys: string[] = [];
  return { keys, enqueueKey: (key: string) => void keys.push(key) };
}

describe('ownerKeysOf', () => {
  it.for([
    {
      name: 'maps the controller of the kind to namespace/name',
      references: [reference('Deployment', 'web', { controller: true })],
      options: { group: 'apps', kind: 'Deployment' },
      expected: ['default/web'],
    },
    {
      name: 'ignores owners that are not controllers by default',
      references: [reference('Deployment', 'web')],
      options: { group: 'apps', kind: 'Deployment' },
      expected: [],
    },
    {
      name: 'maps every owner of the kind with controllerOnly: false',
      references: [
        reference('Deployment', 'a'),
        reference('Deployment', 'b', { controller: true }),
      ],
      options: { group: 'apps', kind: 'Deployment', controllerOnly: false },
      expected: ['default/a', 'default/b'],
    },
    {
      name: 'ignores owners of another kind',
      references: [reference('StatefulSet', 'db', { controller: true })],
      options: { group: 'apps', kind: 'Deployment' },
      expected: [],
    },
    {
      name: 'ignores owners of another group, whatever the version',
      references: [
        reference('Deployment', 'web', { apiVersion: 'example.com/v1', controller: true }),
      ],
      options: { apiVersion: 'apps/v1beta2', kind: 'Deployment' },
      expected: [],
    },
    {
      name: 'matches the group whatever the version',
      references: [
        reference('Deployment', 'web', { apiVersion: 'apps/v1beta2', controller: true }),
      ],
      options: { apiVersion: 'apps/v1', kind: 'Deployment' },
      expected: ['default/web'],
    },
    {
      name: 'reads the core group from apiVersion v1',
      references: [reference('Service', 'svc', { apiVersion: 'v1', controller: true })],
      options: { group: '', kind: 'Service' },
      expected: ['default/svc'],
    },
    {
      name: 'uses the bare name for a cluster-scoped owner kind',
      references: [reference('Namespace', 'team', { apiVersion: 'v1', controller: true })],
      options: { group: '', kind: 'Namespace', clusterScoped: true },
      expected: ['team'],
    },
  ])('$name', ({ references, options, expected }) => {
    expect(ownerKeysOf(configMap('default', references), options)).toEqual(expected);
  });

  it('uses the bare name for owners of a cluster-scoped object', () => {
    const object = configMap(undefined, [reference('ClusterThing', 'x', { controller: true })]);
    expect(ownerKeysOf(object, { group: 'apps', kind: 'ClusterThing' })).toEqual(['x']);
  });

  it('returns no keys for an object without owners', () => {
    expect(ownerKeysOf({ metadata: { name: 'x' } }, { group: 'apps', kind: 'Deployment' })).toEqual(
      [],
    );
  });

  it.for([
    { name: 'kind', options: { group: 'apps', kind: '' }, message: 'options.kind' },
    {
      name: 'group',
      options: { kind: 'Deployment' },
      message: 'options.group or options.apiVersion',
    },
    {
      name: 'group and apiVersion agreement',
      options: { kind: 'Deployment', group: 'apps', apiVersion: 'batch/v1' },
      message: 'disagrees',
    },
  ])('throws a TypeError naming $name', ({ options, message }) => {
    expect(() => ownerKeysOf(configMap('default', []), options)).toThrow(TypeError);
    expect(() => ownerKeysOf(configMap('default', []), options)).toThrow(message);
  });
});

describe('enqueueOwnerHandler', () => {
  const options = { group: 'apps', kind: 'Deployment' };

  it('enqueues the owner of a changed object and returns nothing', async () => {
    const controller = recordingController();
    const handler = enqueueOwnerHandler<ConfigMap>(controller, options);
    const object = configMap('default', [reference('Deployment', 'web', { controller: true })]);
    expect(await handler('default/settings', object, context)).toBeUndefined();
    expect(controller.keys).toEqual(['default/web']);
  });

  // EnqueueRequestForOwner's Update enqueues the owners of both the old and the new object.
  it('enqueues the previous owner too when the controller changes', async () => {
    const controller = recordingController();
    const handler = enqueueOwnerHandler<ConfigMap>(controller, options);
    await handler(
      'default/settings',
      configMap('default', [reference('Deployment', 'a', { controller: true })]),
      context,
    );
    await handler(
      'default/settings',
      configMap('default', [reference('Deployment', 'b', { controller: true })]),
      context,
    );
    expect(controller.keys).toEqual(['default/a', 'default/b', 'default/a']);
  });

  it('enqueues the owner last seen when the object is deleted, then forgets it', async () => {
    const controller = recordingController();
    const handler = enqueueOwnerHandler<ConfigMap>(controller, options);
    await handler(
      'default/settings',
      configMap('default', [reference('Deployment', 'web', { controller: true })]),
      context,
    );
    controller.keys.length = 0;
    await handler('default/settings', undefined, context);
    expect(controller.keys).toEqual(['default/web']);
    await handler('default/settings', undefined, context);
    expect(controller.keys).toEqual(['default/web']);
  });

  it('enqueues nothing on the delete of an object never seen with an owner', async () => {
    const controller = recordingController();
    const handler = enqueueOwnerHandler<ConfigMap>(controller, options);
    await handler('default/settings', configMap('default', []), context);
    await handler('default/settings', undefined, context);
    await handler('default/never-seen', undefined, context);
    expect(controller.keys).toEqual([]);
  });

  it('keeps a separate memory per object key', async () => {
    const controller = recordingController();
    const handler = enqueueOwnerHandler<ConfigMap>(controller, options);
    await handler(
      'default/a',
      configMap('default', [reference('Deployment', 'one', { controller: true })]),
      context,
    );
    await handler(
      'default/b',
      configMap('default', [reference('Deployment', 'two', { controller: true })]),
      context,
    );
    controller.keys.length = 0;
    await handler('default/b', undefined, context);
    expect(controller.keys).toEqual(['default/two']);
  });

  it('throws a TypeError for a controller without enqueueKey', () => {
    expect(() => enqueueOwnerHandler({} as never, options)).toThrow(/ownerController/);
  });
});
