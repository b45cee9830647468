// `fieldValidation` on writes: with `Strict`, an object carrying fields its published schema does not
// declare is refused with kube-apiserver's strict-decoding 400, before anything else looks at it. `Warn`
// (kube's default) and `Ignore` let it through; the fields are dropped as the kind's decoding drops them.

import { badRequest } from '../apimachinery/status.ts';
import type { ResourceInfo } from '../resources/builtin-resources.ts';
import { strictDecodingMessage } from './unknown-fields.ts';

/** Finds the undeclared fields of an object of a served kind (the OpenAPI publisher's `unknownFields`). */
export type UnknownFieldsFinder = (
  gvk: { group: string; version: string; kind: string },
  object: unknown,
) => string[];

/** Throw the strict-decoding 400 when `query` asks for `fieldValidation=Strict` and `object` has unknown fields. */
export function enforceFieldValidation(
  find: UnknownFieldsFinder | undefined,
  query: URLSearchParams,
  info: Pick<ResourceInfo, 'group' | 'version' | 'kind'>,
  object: unknown,
): void {
  if (find === undefined || query.get('fieldValidation') !== 'Strict') return;
  const paths = find({ group: info.group, version: info.version, kind: info.kind }, object);
  if (paths.length > 0) throw badRequest(strictDecodingMessage(info.kind, info.version, paths));
}
