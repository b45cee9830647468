// List and watch options: ListOptions validation, resourceVersion rules and continue tokens, as
// k8s.io/apimachinery's ListOptions validation and the storage layer's list semantics have them (the
// selection predicate is predicate.ts).
import { errorMessage } from '@lasso/core';
import { goJsonSyntaxError } from '../apimachinery/go-json-errors.ts';
import { isRecord } from '../apimachinery/objects.ts';
import {
  badRequest,
  failure,
  invalid,
  StatusError,
  tooLargeResourceVersion,
} from '../apimachinery/status.ts';

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
export function requireReached(
  context: { readonly store: { currentRv(): number } },
  rvText: string,
): void {
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
