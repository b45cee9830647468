// The demo's live view: one line per Icecream whenever what a person would notice changes (its Deployment,
// replicas available, nodes, Ready), read from the API through a cache like any other client.
import { createCache, isDeletedFinalStateUnknown, type SharedIndexInformer } from '@lasso/cache';
import { Client, type RestConfig } from '@lasso/client';
import type { Logger } from '@lasso/core';
import type { Icecream } from './generated/index.ts';
import { icecreamResource } from './icecream.ts';

/** Options of {@link startLiveView}. */
export interface LiveViewOptions {
  rest: RestConfig;
  signal: AbortSignal;
  logger: Logger;
  /** Where lines go (default stdout). */
  out?: NodeJS.WritableStream;
  /** Called whenever an Icecream's summary changes, with every Icecream's Ready status. */
  onChange?: (ready: ReadonlyMap<string, boolean>) => void;
}

function summarize(icecream: Icecream): { line: string; ready: boolean } {
  const spec = icecream.spec;
  const status = icecream.status;
  const ready = status?.conditions?.find((c) => c.type === 'Ready');
  const deleting = icecream.metadata?.deletionTimestamp !== undefined;
  const parts = [
    `${spec?.flavor ?? '?'} x${spec?.replicas ?? '?'}`,
    `deployment ${spec?.deploymentName ?? '?'}`,
    `${status?.availableReplicas ?? 0}/${spec?.replicas ?? '?'} available`,
  ];
  if (status?.nodes?.length) parts.push(`on ${status.nodes.join(', ')}`);
  if (deleting) parts.push('deleting');
  else if (ready !== undefined)
    parts.push(ready.status === 'True' ? 'Ready' : `not ready (${ready.reason})`);
  else parts.push('waiting for the operator');
  return { line: parts.join(' · '), ready: ready?.status === 'True' && !deleting };
}

/** Print Icecream changes as they happen; stops with `signal`. */
export function startLiveView(options: LiveViewOptions): { done: Promise<void> } {
  const out = options.out ?? process.stdout;
  const client = new Client<Icecream>({
    gvr: icecreamResource,
    kind: 'Icecream',
    namespaced: true,
    rest: options.rest,
  });
  const informer: SharedIndexInformer<Icecream> = createCache(client, {
    resyncMs: 0,
    logger: options.logger,
  });
  const last = new Map<string, string>();
  const readiness = new Map<string, boolean>();
  const show = (icecream: Icecream | undefined, key: string): void => {
    const { line, ready } =
      icecream === undefined ? { line: 'gone', ready: false } : summarize(icecream);
    if (last.get(key) === line) return;
    last.set(key, line);
    if (icecream === undefined) readiness.delete(key);
    else readiness.set(key, ready);
    const time = new Date().toTimeString().slice(0, 8);
    out.write(`  ${time}  ${key.padEnd(24)} ${line}\n`);
    options.onChange?.(readiness);
  };
  const keyOf = (icecream: Icecream): string =>
    `${icecream.metadata?.namespace}/${icecream.metadata?.name}`;
  informer.addEventHandler({
    onAdd: (icecream) => show(icecream, keyOf(icecream)),
    onUpdate: (_old, icecream) => show(icecream, keyOf(icecream)),
    onDelete: (icecream) =>
      show(undefined, isDeletedFinalStateUnknown(icecream) ? icecream.key : keyOf(icecream)),
  });
  // done: the informer's run has ended (its start, then its stop after the signal aborted).
  const done = informer.start(options.signal).then(async () => {
    await informer.stopped();
  });
  return { done };
}
