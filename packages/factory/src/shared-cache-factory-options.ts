// The checks of a shared cache factory's options: bad options throw a TypeError or RangeError naming the option.
import { checkOptionsObject, checkTimeout } from './checks.ts';
import type { SharedCacheFactoryOptions } from './shared-cache-factory-api.ts';
import type { SharedClientFactory } from './shared-client-factory.ts';

/** @internal A namespace option (`''` = all). */
export function checkNamespaceOption(value: unknown, name: string): void {
  if (typeof value !== 'string') throw new TypeError(`${name} must be a string ('' = all)`);
}

/** @internal A resync period option (ms, `0` = never). */
export function checkResyncOption(value: unknown, name: string): void {
  if (typeof value !== 'number' || !(value >= 0)) {
    throw new RangeError(`${name} must be a number of ms >= 0 (0 = never), got ${String(value)}`);
  }
}

const initialLists: readonly string[] = ['streaming', 'cached', 'consistent'];

/** @internal An initial-list strategy option. */
export function checkInitialListOption(value: unknown, name: string): void {
  if (typeof value !== 'string' || !initialLists.includes(value)) {
    throw new RangeError(
      `${name} must be 'streaming', 'cached' or 'consistent', got ${JSON.stringify(value) ?? typeof value}`,
    );
  }
}

/** @internal A list/watch tweak option. */
export function checkTweakOption(value: unknown, name: string): void {
  if (typeof value !== 'function') throw new TypeError(`${name} must be a function`);
}

/** @internal Check the arguments of `createSharedCacheFactory`. */
export function checkSharedCacheFactoryArgs(
  clientFactory: SharedClientFactory,
  options: SharedCacheFactoryOptions,
): void {
  if (typeof clientFactory?.forResourceKind !== 'function') {
    throw new TypeError('createSharedCacheFactory: clientFactory must be a SharedClientFactory');
  }
  checkOptionsObject(options, 'createSharedCacheFactory');
  if (options.defaultNamespace !== undefined)
    checkNamespaceOption(options.defaultNamespace, 'defaultNamespace');
  if (options.defaultResyncMs !== undefined)
    checkResyncOption(options.defaultResyncMs, 'defaultResyncMs');
  if (options.defaultTweakList !== undefined)
    checkTweakOption(options.defaultTweakList, 'defaultTweakList');
  if (options.defaultInitialList !== undefined)
    checkInitialListOption(options.defaultInitialList, 'defaultInitialList');
  if (options.healthCallback !== undefined && typeof options.healthCallback !== 'function') {
    throw new TypeError('createSharedCacheFactory: healthCallback must be a function');
  }
  if (options.gracefulShutdownTimeoutMs !== undefined) {
    checkTimeout(options.gracefulShutdownTimeoutMs, 'gracefulShutdownTimeoutMs');
  }
  if (options.startTimeoutMs !== undefined) checkTimeout(options.startTimeoutMs, 'startTimeoutMs');
  const follow = options.watchDiscovery;
  if (follow !== undefined && typeof follow !== 'boolean' && follow !== 'auto') {
    throw new TypeError(
      `createSharedCacheFactory: watchDiscovery must be true, false or 'auto', got ${JSON.stringify(follow) ?? typeof follow}`,
    );
  }
  const retry = options.unservedRetry;
  if (retry !== undefined) {
    for (const name of ['initialMs', 'maxMs'] as const) {
      const value = retry[name];
      if (
        value !== undefined &&
        !(typeof value === 'number' && value > 0 && Number.isFinite(value))
      ) {
        throw new RangeError(
          `unservedRetry.${name} must be a finite number of ms > 0, got ${String(value)}`,
        );
      }
    }
  }
}
