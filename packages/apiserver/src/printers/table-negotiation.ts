// Where server-side printing meets the handlers: a get, list or watch whose Accept header asks for a
// meta.k8s.io Table answers with one (table-builder.ts builds it), as kube-apiserver's transformObject does.

import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '@lasso/core';
import type { ResourceRequestInfo } from '../request/request-info.ts';
import { storageKey } from '../resources/builtin-resources.ts';
import type { Store } from '../storage/store.ts';
import type { WatchPlan } from '../storage/watch-fanout.ts';
import type { TablePrinter } from './cells.ts';
import {
  createTableWatchTransform,
  printerForResource,
  type TableRequest,
  type TableWatchEvent,
  tableRequest,
  toTable,
} from './table-builder.ts';

/** What printing reads of the server: stored CRDs (their printer columns) and the clock (ages). */
export interface PrintingContext {
  readonly store: Pick<Store, 'get'>;
  readonly clock: Clock;
}

/** What printing reads of a request besides its RequestInfo: the Accept header. */
export interface PrintingRequest {
  readonly headers: IncomingHttpHeaders;
}

const crdKey = storageKey({ group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' });

function acceptOf(raw: PrintingRequest): string | undefined {
  const accept = raw.headers.accept;
  return Array.isArray(accept) ? accept.join(',') : accept;
}

function printerOf(context: PrintingContext, request: ResourceRequestInfo): TablePrinter {
  return printerForResource(request.info, (name) => context.store.get(crdKey, '', name));
}

function asked(request: ResourceRequestInfo, raw: PrintingRequest): TableRequest | undefined {
  return tableRequest(acceptOf(raw), request.query);
}

/**
 * The Table to answer instead of `body` (an object or a list) when the request asked for one;
 * undefined otherwise. Throws kube's 400 for an unknown `includeObject`.
 */
export function tableResponse(
  context: PrintingContext,
  request: ResourceRequestInfo,
  raw: PrintingRequest,
  body: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const table = asked(request, raw);
  if (table === undefined) return undefined;
  return toTable(body, printerOf(context, request), table, context.clock.now());
}

/** `plan` with each event turned into a one-row Table when the watch asked for Tables; else undefined. */
export function tableWatchPlan(
  context: PrintingContext,
  request: ResourceRequestInfo,
  raw: PrintingRequest,
  plan: WatchPlan,
): WatchPlan | undefined {
  const table = asked(request, raw);
  if (table === undefined) return undefined;
  const printer = printerOf(context, request);
  return {
    timeoutMs: plan.timeoutMs,
    bookmarks: plan.bookmarks,
    key: plan.key,
    start(send, end) {
      // One transform per stream: only its first event carries the column definitions.
      const transform = createTableWatchTransform(printer, table, () => context.clock.now());
      return plan.start((event) => send(transform(event as TableWatchEvent)), end);
    },
  };
}
