// The table of built-in API types, keyed by OpenAPI definition name, with a lookup by group/version/kind.
// Each group's definitions live in their own file; this one only gathers them.
import { admissionregistrationV1Types } from './admissionregistration-v1.ts';
import { apiextensionsV1Types } from './apiextensions-v1.ts';
import { appsV1Types } from './apps-v1.ts';
import { authenticationV1Types } from './authentication-v1.ts';
import { authorizationV1Types } from './authorization-v1.ts';
import { autoscalingV1Types } from './autoscaling-v1.ts';
import { batchV1Types } from './batch-v1.ts';
import { coordinationV1Types } from './coordination-v1.ts';
import { coreV1Types } from './core-v1.ts';
import { eventsV1Types } from './events-v1.ts';
import { metaV1Types } from './meta-v1.ts';
import { networkingV1Types } from './networking-v1.ts';
import { policyV1Types } from './policy-v1.ts';
import { rbacV1Types } from './rbac-v1.ts';
import { schedulingV1Types } from './scheduling-v1.ts';
import type { TypeDefinition } from './type-definition.ts';

const allTypes: readonly (readonly TypeDefinition[])[] = [
  metaV1Types,
  coreV1Types,
  appsV1Types,
  batchV1Types,
  rbacV1Types,
  policyV1Types,
  networkingV1Types,
  schedulingV1Types,
  autoscalingV1Types,
  authenticationV1Types,
  coordinationV1Types,
  eventsV1Types,
  apiextensionsV1Types,
  admissionregistrationV1Types,
  authorizationV1Types,
];

/** Every built-in type definition by its OpenAPI definition name (`io.k8s.api.core.v1.ConfigMap`). */
export const typeDefinitions: ReadonlyMap<string, TypeDefinition> = new Map(
  allTypes.flat().map((definition) => [definition.name, definition]),
);

const byGroupVersionKind = new Map<string, TypeDefinition>();
for (const definition of typeDefinitions.values()) {
  if (definition.gvk === undefined) continue;
  const { group, version, kind } = definition.gvk;
  byGroupVersionKind.set(`${group}/${version}/${kind}`, definition);
}

/**
 * The top-level type served as `group`/`version`/`kind` (group `''` for the core group), or undefined when
 * the table does not describe that kind.
 */
export function typeDefinitionFor(
  group: string,
  version: string,
  kind: string,
): TypeDefinition | undefined {
  return byGroupVersionKind.get(`${group}/${version}/${kind}`);
}

/**
 * ObjectMeta's JSON field names in Go declaration order: the order Go writes them in, and the set of fields
 * a built-in object's metadata may carry (the table lists fields in declaration order; protobuf numbers do
 * not follow it).
 */
export const objectMetaFieldOrder: readonly string[] = Object.freeze(
  (typeDefinitions.get('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')?.fields ?? []).map(
    (field) => field.json,
  ),
);
