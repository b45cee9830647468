// Secrets: write-only stringData, the default type, immutability.
import { isRecord } from '../apimachinery/objects.ts';
import type { Strategy } from '../registry/strategy.ts';
import type { KubeObject } from '../storage/store.ts';
import { builtinStrategy, pruneTopLevel } from './builtin-strategy.ts';
import { validateImmutableData } from './configmaps.ts';

/** Secret strategy: stringData folded into data, type Opaque by default, immutable data and type. */
export const secretStrategy: Strategy = {
  ...builtinStrategy,
  topLevelFields: ['data', 'stringData', 'type', 'immutable'],
  stringMapFields: ['data', 'binaryData', 'stringData'],
  prepareForCreate(context, info, object) {
    builtinStrategy.prepareForCreate(context, info, object);
    if (object.type === undefined) object.type = 'Opaque';
  },
  canonicalize(_context, _info, object) {
    pruneTopLevel(this.topLevelFields ?? [], object);
    foldStringData(object);
  },
  validateUpdate: (existing, next) => validateImmutableData(existing, next, true),
};

/**
 * Secret.stringData is write-only: v1 -> internal conversion copies each entry into `data`
 * (base64 on the wire), overriding `data`, and never stores stringData itself.
 */
function foldStringData(secret: KubeObject): void {
  const stringData = secret.stringData;
  delete secret.stringData;
  if (!isRecord(stringData)) return;
  const data = isRecord(secret.data) ? secret.data : {};
  for (const [key, value] of Object.entries(stringData)) {
    if (typeof value === 'string') data[key] = Buffer.from(value, 'utf8').toString('base64');
  }
  secret.data = data;
}
