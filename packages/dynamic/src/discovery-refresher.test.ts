import type { ApiResourceInfo, DiscoveryResult } from '@lasso/client';
import { createTestLogger, FakeClock } from '@lasso/core/testing';
import { describe, expect, it } from 'vitest';
import {
  DiscoveryRefresher,
  type DiscoverySnapshot,
  type DiscoverySource,
  servedKinds,
} from './discovery-refresher.ts';

function resource(group: string, version: string, name: string, kind: string): ApiResourceInfo {
  return {
    group,
    version,
    name,
    singularName: kind.toLowerCase(),
    kind,
    namespaced: true,
    verbs: ['get', 'list', 'watch'],
    shortNames: [],
  };
}

/** A discovery source answering from a queue of results (an Error rejects). */
function fakeSource(answers: Array<DiscoveryResult | Error>) {
  const source: DiscoverySource & {
    calls: number;
    invalidations: number;
    changed?: (group: string) => void;
  } = {
    calls: 0,
    invalidations: 0,
    async discover() {
      source.calls++;
      const answer = answers.shift();
      if (answer === undefined) throw new Error('no answer queued');
      if (answer instanceof Error) throw answer;
      return answer;
    },
    invalidate() {
      source.invalidations++;
    },
  };
  return source;
}

const widgets = resource('example.com', 'v1', 'widgets', 'Widget');
const ok = (resources: ApiResourceInfo[], failed = new Map<string, Error>()): DiscoveryResult => ({
  groups: [],
  resources,
  failed,
});

function harness(answers: Array<DiscoveryResult | Error>) {
  const clock = new FakeClock();
  const logger = createTestLogger();
  const source = fakeSource(answers);
  const snapshots: DiscoverySnapshot[] = [];
  const stop = new AbortController();
  const refresher = new DiscoveryRefresher(
    {
      source,
      clock,
      logger,
      debounceMs: 500,
      retryInitialMs: 1000,
      retryMaxMs: 4000,
      onSnapshot: (snapshot) => snapshots.push(snapshot),
    },
    stop.signal,
  );
  return { clock, logger, source, snapshots, stop, refresher };
}

describe('DiscoveryRefresher', () => {
  it('logs a partial discovery failure, skips that group version and reports it as failed', async () => {
    const { logger, snapshots, refresher } = harness([
      ok([widgets], new Map([['metrics.k8s.io/v1beta1', new Error('503 service unavailable')]])),
    ]);
    await refresher.refresh();
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]?.kinds.map((kind) => kind.gvk.kind)).toEqual(['Widget']);
    expect([...(snapshots[0]?.failed ?? [])]).toEqual(['metrics.k8s.io/v1beta1']);
    expect(logger.entries).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'discovery of a group version failed, skipping it',
        attributes: expect.objectContaining({
          groupVersion: 'metrics.k8s.io/v1beta1',
          error: '503 service unavailable',
        }),
      }),
    );
  });

  it('refreshes once, 500 ms after the first event of a burst', async () => {
    const { clock, source, snapshots, refresher } = harness([ok([widgets]), ok([])]);
    refresher.markDirty();
    await clock.advance(200);
    refresher.markDirty();
    refresher.markDirty();
    await clock.advance(299);
    expect(source.calls).toBe(0);
    await clock.advance(1);
    expect(source.calls).toBe(1);
    expect(source.invalidations).toBe(1);
    expect(snapshots).toHaveLength(1);
    await clock.advance(10_000);
    expect(source.calls).toBe(1); // nothing more without another event
  });

  it('retries a failed refresh with backoff, without waiting for an event', async () => {
    const { clock, logger, source, snapshots, refresher } = harness([
      new Error('connection refused'),
      new Error('connection refused'),
      ok([widgets]),
    ]);
    await refresher.refresh();
    expect(snapshots).toHaveLength(0);
    expect(
      logger.entries.filter((entry) => entry.message === 'discovery refresh failed, retrying'),
    ).toHaveLength(1);
    await clock.advance(999);
    expect(source.calls).toBe(1);
    await clock.advance(1);
    expect(source.calls).toBe(2); // after 1 s
    await clock.advance(1999);
    expect(source.calls).toBe(2);
    await clock.advance(1);
    expect(source.calls).toBe(3); // after 2 s more
    expect(snapshots).toHaveLength(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('runs once more after a refresh when asked during it, and nothing after the abort', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { clock, source, snapshots, stop, refresher } = harness([ok([widgets]), ok([])]);
    const discover = source.discover.bind(source);
    source.discover = async (options) => {
      if (source.calls === 0) await gate;
      return discover(options);
    };
    const first = refresher.refresh();
    refresher.markDirty();
    release();
    await first;
    await clock.advance(500);
    expect(snapshots).toHaveLength(2);
    refresher.markDirty();
    stop.abort();
    await clock.advance(1000);
    expect(snapshots).toHaveLength(2);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('lists only listable, watchable kinds, without subresources, each once', () => {
    const kinds = servedKinds(
      ok([
        widgets,
        { ...widgets, name: 'widgets/status' },
        { ...resource('', 'v1', 'bindings', 'Binding'), verbs: ['create'] },
        widgets,
      ]),
    );
    expect(kinds).toEqual([
      {
        gvk: { group: 'example.com', version: 'v1', kind: 'Widget' },
        gvr: { group: 'example.com', version: 'v1', resource: 'widgets' },
        namespaced: true,
      },
    ]);
  });

  it('rereads only the group an event named, with a source that can; everything after a failure', async () => {
    const { clock, source, refresher } = harness([
      ok([widgets]),
      ok([widgets]),
      new Error('down'),
      ok([]),
    ]);
    const changed: string[] = [];
    source.changed = (group) => changed.push(group);
    await refresher.refresh(); // the first refresh reads everything
    expect(source.invalidations).toBe(1);
    refresher.markDirty('example.com');
    await clock.advance(500);
    expect(changed).toEqual(['example.com']);
    expect(source.invalidations).toBe(1);
    refresher.markDirty('example.com');
    await clock.advance(500); // fails
    refresher.markDirty('other.example.com');
    await clock.advance(1000); // the retry reads everything
    expect(source.calls).toBe(4);
    expect(source.invalidations).toBe(2);
  });
});
