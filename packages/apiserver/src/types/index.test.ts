import { describe, expect, it } from 'vitest';
import { typeDefinitionFor, typeDefinitions } from './index.ts';
import type { FieldType } from './type-definition.ts';

function referenced(type: FieldType): string[] {
  if (typeof type !== 'object') return [];
  if ('message' in type) return [type.message];
  return referenced(type.map);
}

describe('typeDefinitions', () => {
  it('resolves every message reference', () => {
    const missing = [...typeDefinitions.values()].flatMap((definition) =>
      definition.fields
        .flatMap((field) => referenced(field.type))
        .filter((name) => !typeDefinitions.has(name))
        .map((name) => `${definition.name} -> ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('gives each field of a type its own number and JSON name', () => {
    for (const definition of typeDefinitions.values()) {
      const numbers = definition.fields.map((field) => field.number);
      const names = definition.fields
        .filter((field) => field.inline !== true)
        .map((field) => field.json);
      expect(new Set(numbers).size, definition.name).toBe(numbers.length);
      expect(new Set(names).size, definition.name).toBe(names.length);
    }
  });

  it('marks only message fields inline, with an empty JSON name', () => {
    for (const definition of typeDefinitions.values()) {
      for (const field of definition.fields.filter((item) => item.inline === true)) {
        expect(field.json, definition.name).toBe('');
        expect(field.type, definition.name).toHaveProperty('message');
      }
    }
  });
});

describe('typeDefinitionFor()', () => {
  it.for([
    ['', 'v1', 'ConfigMap'],
    ['', 'v1', 'Secret'],
    ['', 'v1', 'Service'],
    ['', 'v1', 'ServiceAccount'],
    ['', 'v1', 'Namespace'],
    ['', 'v1', 'Pod'],
    ['', 'v1', 'ResourceQuota'],
    ['apps', 'v1', 'Deployment'],
    ['batch', 'v1', 'Job'],
    ['batch', 'v1', 'CronJob'],
    ['rbac.authorization.k8s.io', 'v1', 'Role'],
    ['rbac.authorization.k8s.io', 'v1', 'RoleBinding'],
    ['rbac.authorization.k8s.io', 'v1', 'ClusterRole'],
    ['rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding'],
    ['scheduling.k8s.io', 'v1', 'PriorityClass'],
    ['policy', 'v1', 'PodDisruptionBudget'],
    ['networking.k8s.io', 'v1', 'Ingress'],
    ['authentication.k8s.io', 'v1', 'TokenRequest'],
  ] as const)(
    'describes %s/%s %s, which kubectl create or run generates',
    ([group, version, kind]) => {
      expect(typeDefinitionFor(group, version, kind)?.gvk).toEqual({ group, version, kind });
    },
  );

  it('knows no kind outside the table', () => {
    expect(typeDefinitionFor('', 'v1', 'Widget')).toBeUndefined();
  });
});
