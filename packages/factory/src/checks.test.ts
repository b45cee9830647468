// The factories' shared argument checks, as each factory reports them.
import { createRestConfig } from '@lasso/client';
import { describe, expect, it } from 'vitest';
import { FakeCluster } from './__fixtures__/fake-cluster.ts';
import { createSharedCacheFactory } from './shared-cache-factory.ts';
import { createSharedClientFactory } from './shared-client-factory.ts';
import {
  createSharedControllerFactory,
  createSharedControllerFactoryFromConfig,
} from './shared-controller-factory.ts';

describe('checkOptionsObject', () => {
  it('makes every factory refuse options that are not an object, naming the factory', () => {
    const config = createRestConfig({ server: 'https://k8s.example:6443' });
    const clients = new FakeCluster().clientFactory();
    const caches = createSharedCacheFactory(clients);
    for (const options of [null, 'defaults', 5]) {
      const bad = options as never;
      expect(() => createSharedClientFactory(config, bad)).toThrow(
        new TypeError('createSharedClientFactory: options must be an object'),
      );
      expect(() => createSharedCacheFactory(clients, bad)).toThrow(
        new TypeError('createSharedCacheFactory: options must be an object'),
      );
      expect(() => createSharedControllerFactory(caches, bad)).toThrow(
        new TypeError('createSharedControllerFactory: options must be an object'),
      );
      expect(() => createSharedControllerFactoryFromConfig(config, bad)).toThrow(
        new TypeError('createSharedControllerFactoryFromConfig: options must be an object'),
      );
    }
  });
});
