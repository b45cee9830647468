// ConfigMaps: data maps and the `immutable` flag.
import { canonical } from '../apimachinery/objects.ts';
import type { Cause, Strategy } from '../registry/strategy.ts';
import type { KubeObject } from '../storage/store.ts';
import { builtinStrategy } from './builtin-strategy.ts';

/** ConfigMap strategy: typed data maps, immutable once `immutable: true` is stored. */
export const configMapStrategy: Strategy = {
  ...builtinStrategy,
  topLevelFields: ['data', 'binaryData', 'immutable'],
  stringMapFields: ['data', 'binaryData', 'stringData'],
  validateUpdate: (existing, next) => validateImmutableData(existing, next, false),
};

/**
 * ValidateConfigMapUpdate / ValidateSecretUpdate: once `immutable: true` is stored, data, binaryData
 * and the flag itself cannot change; a Secret's type never can.
 */
export function validateImmutableData(
  existing: KubeObject,
  next: KubeObject,
  secret: boolean,
): Cause[] {
  const causes: Cause[] = [];
  if (secret && (existing.type ?? 'Opaque') !== (next.type ?? 'Opaque')) {
    causes.push({
      type: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(next.type ?? '')}: field is immutable`,
      field: 'type',
    });
  }
  if (existing.immutable !== true) return causes;
  const forbidden = (field: string): void => {
    causes.push({
      type: 'FieldValueForbidden',
      message: 'Forbidden: field is immutable when `immutable` is set',
      field,
    });
  };
  if (next.immutable !== true) forbidden('immutable');
  // reflect.DeepEqual: an absent map and an empty one differ, as in Go.
  if (canonical(existing.data ?? null) !== canonical(next.data ?? null)) forbidden('data');
  if (!secret && canonical(existing.binaryData ?? null) !== canonical(next.binaryData ?? null)) {
    forbidden('binaryData');
  }
  return causes;
}
