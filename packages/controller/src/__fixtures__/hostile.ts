// Hostile values for unit tests: values that throw as soon as they are inspected, which the controller, the shared
// handler and the error helpers must survive (a handler may throw or return anything).

/** A revoked Proxy of `target` (default `{}`): reading a property, or asking for its prototype, throws. */
export function revokedProxy<T extends object = object>(target?: T): T {
  const { proxy, revoke } = Proxy.revocable(target ?? ({} as T), {});
  revoke();
  return proxy;
}

/**
 * `target` (default a new `{}`) with an enumerable own `property` whose getter throws `Error('<property> getter')`.
 * The name is a parameter, so `then` needs no lint exception.
 */
export function throwingGetter<T extends object = object>(property: string, target?: T): T {
  return Object.defineProperty(target ?? ({} as T), property, {
    get(): never {
      throw new Error(`${property} getter`);
    },
    enumerable: true,
    configurable: true,
  });
}
