// List and watch options: selectors (parsed and matched), resourceVersion rules, continue tokens, as
// k8s.io/apimachinery's ListOptions validation and the storage layer's list semantics have them.
import { errorMessage } from '@lasso/core';
import {
  createShardMatcher,
  formatShardSelector,
  parseShardSelector,
  type ShardKey,
  ShardSelectorError,
  shardKeyValue,
} from '@lasso/core/sharding';
import { goJsonSyntaxError } from '../apimachinery/go-json-errors.ts';
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
import {
  badRequest,
  failure,
  invalid,
  StatusError,
  tooLargeResourceVersion,
} from '../apimachinery/status.ts';
import type { ServerContext } from '../registry/server-context.ts';
import type { ResourceInfo } from '../resources/builtin-resources.ts';
import {
  canonicalFieldLabel,
  selectableFields,
  unsupportedFieldLabel,
} from '../selection/field-labels.ts';
import type { KubeObject } from '../storage/store.ts';

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
 * Status), which the handler answers with 500 and no reason: "invalid shard selector: …" — not a 400.
 */
export function shardSelectorOf(
  context: ServerContext,
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

/**
 * ValidateListOptions of k8s.io/apimachinery's internalversion/validation: resourceVersionMatch and
 * sendInitialEvents combinations kube-apiserver refuses with 422 Invalid ListOptions.meta.k8s.io.
 */
export function validateListOptions(query: URLSearchParams, watch: boolean): void {
  const match = query.get('resourceVersionMatch') ?? '';
  const rv = query.get('resourceVersion') ?? '';
  const hasContinue = (query.get('continue') ?? '') !== '';
  const initialEvents = query.get('sendInitialEvents');
  const causes: Array<{ type: string; message: string; field: string }> = [];
  const forbidden = (field: string, detail: string): void => {
    causes.push({ type: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field });
  };
  const notSupported = (supported: string[]): void => {
    causes.push({
      type: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(match)}: supported values: ${supported.map((value) => JSON.stringify(value)).join(', ')}`,
      field: 'resourceVersionMatch',
    });
  };
  if (watch) {
    if (initialEvents !== null && match !== 'NotOlderThan') {
      forbidden(
        'resourceVersionMatch',
        'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      );
    }
    if (match !== '') {
      if (initialEvents === null) {
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        );
      }
      if (match !== 'NotOlderThan') notSupported(['NotOlderThan']);
      if (hasContinue) {
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden when continue is provided',
        );
      }
    }
  } else {
    if (match !== '') {
      if (rv === '') {
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden unless resourceVersion is provided',
        );
      }
      if (hasContinue) {
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden when continue is provided',
        );
      }
      if (match !== 'Exact' && match !== 'NotOlderThan')
        notSupported(['Exact', 'NotOlderThan', '']);
      if (match === 'Exact' && rv === '0') {
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        );
      }
    }
    if (initialEvents !== null)
      forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list');
  }
  if (causes.length > 0) throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', causes);
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

/**
 * Refuse a resourceVersion the storage versioner cannot parse as a uint64. Its error is no Status, so
 * kube-apiserver answers 500 without a reason, on list, watch and get alike (every release so far).
 */
export function checkResourceVersion(rvText: string): void {
  if (rvText === '') return;
  const syntax = /^\d+$/.test(rvText);
  if (syntax && BigInt(rvText) <= 18_446_744_073_709_551_615n) return;
  const quoted = JSON.stringify(rvText);
  throw new StatusError(
    failure(
      500,
      '',
      `resourceVersion: Invalid value: ${quoted}: strconv.ParseUint: parsing ${quoted}: ${syntax ? 'value out of range' : 'invalid syntax'}`,
    ),
  );
}

/**
 * A not-older-than read at a resourceVersion this server has not reached. kube-apiserver's watch
 * cache waits up to 3 s for it and then answers 504; a single in-process store never catches up,
 * so this answers at once.
 */
export function requireReached(context: ServerContext, rvText: string): void {
  checkResourceVersion(rvText);
  if (!/^\d+$/.test(rvText)) return;
  const current = Number(context.store.currentRv());
  if (Number(rvText) > current) throw tooLargeResourceVersion(Number(rvText), current);
}

/** The Status message of a 410 for a continue token older than the compaction point. */
export const continueTooOld =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/**
 * A continue token: the snapshot's resourceVersion and the key to resume after, as kube's storage encodes
 * it (JSON `{v, rv, start}` in unpadded URL-safe base64).
 */
export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

/** The resourceVersion and start key of a continue token; 400 for a token this server did not issue. */
export function decodeContinue(token: string): { rv: number; start: string } {
  const invalidKey = (detail: string): StatusError =>
    badRequest(`invalid continue token: continue key is not valid: ${detail}`);
  // base64.RawURLEncoding: the URL-safe alphabet, no padding.
  const illegal = token.search(/[^A-Za-z0-9_-]/);
  if (illegal >= 0 || token.length % 4 === 1) {
    throw invalidKey(
      `illegal base64 data at input byte ${illegal >= 0 ? illegal : token.length - 1}`,
    );
  }
  const data = Buffer.from(token, 'base64url');
  let decoded: unknown;
  try {
    decoded = JSON.parse(data.toString('utf8'));
  } catch (error) {
    throw invalidKey(goJsonSyntaxError(data) ?? errorMessage(error));
  }
  if (
    isRecord(decoded) &&
    decoded.v === 'meta.k8s.io/v1' &&
    typeof decoded.rv === 'number' &&
    typeof decoded.start === 'string'
  ) {
    return { rv: decoded.rv, start: decoded.start };
  }
  throw badRequest(
    'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
}
