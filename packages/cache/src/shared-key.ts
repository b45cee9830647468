// The key function createCache gives its informer: metaNamespaceKeyFunc's keys, with the `namespace/` prefix
// shared between consecutive keys of one namespace (issue 22 item 4, bytes per cached object).
import { type KeyFunc, metaNamespaceKeyFunc, tombstoneBrand } from './store.ts';

/**
 * A key function equal to {@link metaNamespaceKeyFunc} (same keys for every input, same errors) that keeps the
 * `namespace/` prefix of the last namespace it saw. `${namespace}/${name}` allocates a new prefix for every object
 * (32 bytes for a short namespace), which each stored key then keeps alive; here consecutive keys of one namespace
 * share one prefix, so a stored key costs its cons string only (the name is the object's own string).
 */
export function createSharedPrefixKeyFunc(): KeyFunc {
  let namespace = '';
  let prefix = '/';
  return (object) => {
    if (typeof object === 'object' && object !== null && !(tombstoneBrand in object)) {
      const metadata = (object as { metadata?: { name?: unknown; namespace?: unknown } }).metadata;
      const name = metadata?.name;
      const ns = metadata?.namespace;
      if (typeof name === 'string' && name !== '' && typeof ns === 'string' && ns !== '') {
        if (ns !== namespace) {
          namespace = ns;
          prefix = `${ns}/`;
        }
        return prefix + name;
      }
    }
    return metaNamespaceKeyFunc(object);
  };
}
