// Custom resources: pruned, defaulted and validated by their CRD's structural schema (CEL rules included,
// transition rules on update), defaulted again on every read, status reset on create when the CRD has a
// status subresource, Scale at the CRD's paths.

import type { Json } from '../apimachinery/objects.ts';
import {
  defaultObject,
  pruneObject,
  schemaOf,
  servedSchema,
  validateAgainstSchema,
  validateTransitionRules,
} from '../registry/custom-resource-definitions.ts';
import type { ServerContext } from '../registry/server-context.ts';
import type { Strategy } from '../registry/strategy.ts';
import { apiVersionOf, type ResourceInfo } from '../resources/builtin-resources.ts';
import { builtinStrategy } from './builtin-strategy.ts';

function schemaFor(context: ServerContext, info: ResourceInfo): Json | undefined {
  const crd = context.store.get(
    'apiextensions.k8s.io/customresourcedefinitions',
    '',
    `${info.resource}.${info.group}`,
  );
  return crd === undefined ? undefined : schemaOf(crd, info.version);
}

/** The strategy of every custom resource. */
export const customResourceStrategy: Strategy = {
  // No topLevelFields: a custom resource keeps what its schema keeps.
  prepareForCreate: builtinStrategy.prepareForCreate,
  prepareForUpdate: builtinStrategy.prepareForUpdate,
  allowCreateOnUpdate: false,
  // Updates without a resourceVersion are refused (kube's customResourceStrategy).
  allowUnconditionalUpdate: false,
  returnDeletedObject: true,
  canonicalize(context, info, object) {
    const schema = schemaFor(context, info);
    if (schema !== undefined) pruneObject(object, schema);
  },
  validate(context, info, object) {
    const schema = schemaFor(context, info);
    return schema === undefined ? [] : validateAgainstSchema(object, schema);
  },
  validateUpdate(existing, next, context, info) {
    const schema = schemaFor(context, info);
    return schema === undefined ? [] : validateTransitionRules(next, schema, existing);
  },
  // kube applies defaults to objects read from storage as well (not written back): get, list, watch.
  toVersion(info, object) {
    object.apiVersion = apiVersionOf(info);
    object.kind = info.kind;
    const schema = servedSchema(info);
    if (schema !== undefined) defaultObject(object, schema);
    return object;
  },
  scalePaths(info) {
    const scale = info.scale;
    if (scale === undefined) return { spec: 'spec.replicas', status: 'status.replicas' };
    return {
      spec: scale.specReplicasPath.replace(/^\./, ''),
      status: scale.statusReplicasPath.replace(/^\./, ''),
      ...(scale.labelSelectorPath === undefined
        ? {}
        : { selector: scale.labelSelectorPath.replace(/^\./, '') }),
    };
  },
};
