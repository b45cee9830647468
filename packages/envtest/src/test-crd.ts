// testCrd: the CustomResourceDefinition manifest of a test kind, written once for every integration suite.

/** What {@link testCrd} builds a CRD for. */
export interface TestCrdOptions {
  /** API group, e.g. `test.lasso.dev`; a suite gives each test its own to keep tests apart. */
  group: string;
  /** Kind (default `Widget`); plural and singular are its lowercase, the plural with an `s`. */
  kind?: string | undefined;
  /** The `openAPIV3Schema` of v1 (default: an object whose `spec` has an integer `size`). */
  schema?: Record<string, unknown> | undefined;
  /** Serve the `status` subresource (default false). */
  statusSubresource?: boolean | undefined;
}

/**
 * The CRD manifest {@link testCrd} returns: create it with any client of `apiextensions.k8s.io/v1`. A type alias, so it
 * is a `Record<string, unknown>` where an installer asks for one.
 */
export type TestCrd = {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string };
  spec: {
    group: string;
    scope: 'Namespaced';
    names: { plural: string; singular: string; kind: string; listKind: string };
    versions: Array<{
      name: 'v1';
      served: true;
      storage: true;
      subresources?: { status: Record<string, never> };
      schema: { openAPIV3Schema: Record<string, unknown> };
    }>;
  };
};

const defaultSchema = {
  type: 'object',
  properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
};

/**
 * A namespaced CRD of `kind` (default `Widget`) in `group`, served and stored as v1. Named
 * `<plural>.<group>`, e.g. `widgets.test.lasso.dev`.
 *
 * @example
 * ```ts
 * const crd = testCrd({ group: 'test.lasso.dev' });
 * crd.metadata.name; // 'widgets.test.lasso.dev'
 * const gadgets = testCrd({ group: 'test.lasso.dev', kind: 'Gadget', statusSubresource: true });
 * gadgets.spec.names.plural; // 'gadgets'
 * ```
 */
export function testCrd(options: TestCrdOptions): TestCrd {
  const kind = options.kind ?? 'Widget';
  const singular = kind.toLowerCase();
  const plural = `${singular}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${options.group}` },
    spec: {
      group: options.group,
      scope: 'Namespaced',
      names: { plural, singular, kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          ...(options.statusSubresource === true ? { subresources: { status: {} } } : {}),
          schema: { openAPIV3Schema: options.schema ?? defaultSchema },
        },
      ],
    },
  };
}
