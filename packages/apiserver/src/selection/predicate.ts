// The selection predicate of a list or watch (kube's storage.SelectionPredicate): label, field and shard
// selectors parsed from the request and matched against stored objects. Below the registry and the
// handlers, which both filter with it.
import {
  createShardMatcher,
  formatShardSelector,
  parseShardSelector,
  type ShardKey,
  ShardSelectorError,
  shardKeyValue,
} from '@lasso/core/sharding';
import { isRecord } from '../apimachinery/objects.ts';
import {
  type FieldRequirement,
  type LabelRequirement,
  matchesFieldSelector,
  matchesLabelSelector,
  parseFieldSelector,
  parseLabelSelector,
  SelectorParseError,
} from '../apimachinery/selectors.ts';
import { badRequest, failure, StatusError } from '../apimachinery/status.ts';
import type { ResourceInfo } from '../resources/builtin-resources.ts';
import type { KubeObject } from '../storage/store.ts';
import { canonicalFieldLabel, selectableFields, unsupportedFieldLabel } from './field-labels.ts';

/** Parsed label and field selectors of a list or watch. */
export interface Selectors {
  labels: LabelRequirement[];
  fields: FieldRequirement[];
  /** No label or field requirement (a shard may still filter). */
  empty: boolean;
  /** The applied shardSelector (KEP-5866); undefined when absent or not served. */
  shard?: AppliedShard | undefined;
}

/** A shardSelector the server applies: its canonical text (echoed in shardInfo) and its range check. */
export interface AppliedShard {
  text: string;
  key: ShardKey;
  contains: (value: string) => boolean;
}

/**
 * The shardSelector of a list or watch, as kube-apiserver 1.36's generic registry store reads it with the
 * ShardedListAndWatch gate on: ignored when empty or when the server does not serve it; otherwise parsed,
 * and a selector it cannot parse fails the request. The store returns that failure as a plain error (no
 * Status), which the handler answers with 500 and no reason: "invalid shard selector: …" — not a 400
 * (k8s.io/apiserver v0.36.0-v0.36.3 registry/generic/registry/store.go ListPredicate and Watch, then
 * responsewriters/status.go ErrorToAPIStatus; shard-selector.test.ts has the cases).
 */
export function shardSelectorOf(
  context: { readonly shardedListAndWatch?: boolean | undefined },
  query: URLSearchParams,
): AppliedShard | undefined {
  const raw = query.get('shardSelector') ?? '';
  if (raw === '' || context.shardedListAndWatch === false) return undefined;
  try {
    const selector = parseShardSelector(raw);
    return {
      text: formatShardSelector(selector),
      key: selector.key,
      contains: createShardMatcher(selector),
    };
  } catch (error) {
    if (error instanceof ShardSelectorError) {
      throw new StatusError(failure(500, '', `invalid shard selector: ${error.message}`));
    }
    throw error;
  }
}

/** The label and field selectors of a request (`name`: a watch of one object selects on its name). */
export function selectorsOf(info: ResourceInfo, query: URLSearchParams, name?: string): Selectors {
  let labels: LabelRequirement[] = [];
  let fields: FieldRequirement[] = [];
  try {
    labels = parseLabelSelector(query.get('labelSelector') ?? '');
    fields = parseFieldSelector(query.get('fieldSelector') ?? '');
  } catch (error) {
    if (error instanceof SelectorParseError) throw badRequest(error.message);
    throw error;
  }
  if (name !== undefined)
    fields = [...fields, { field: 'metadata.name', operator: '=', value: name }];
  fields = fields.map((requirement) => {
    const refused = unsupportedFieldLabel(info, requirement.field);
    if (refused !== undefined) throw badRequest(refused);
    return { ...requirement, field: canonicalFieldLabel(info, requirement.field) };
  });
  return { labels, fields, empty: labels.length === 0 && fields.length === 0 };
}

/** True when a stored object matches the selectors (field labels named as `info`'s version names them). */
export function matches(info: ResourceInfo, selectors: Selectors, object: KubeObject): boolean {
  const { shard } = selectors;
  if (shard !== undefined && !shard.contains(shardKeyValue(object, shard.key))) return false;
  if (selectors.empty) return true;
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const labels = isRecord(metadata.labels) ? (metadata.labels as Record<string, string>) : {};
  if (!matchesLabelSelector(selectors.labels, labels)) return false;
  if (selectors.fields.length === 0) return true;
  const fields = selectableFields(info, object);
  return matchesFieldSelector(selectors.fields, fields);
}
