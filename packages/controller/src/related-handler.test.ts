// enqueueRelatedHandler: keys mapped from a changed object are enqueued on the target, with the keys mapped last
// time for the same object (a target it stopped pointing to reconciles too), deletions included.
import type { KubeObject } from '@lasso/client';
import { noopLogger } from '@lasso/core';
import { describe, expect, it } from 'vitest';
import type { ReconcileContext } from './reconcile-context.ts';
import { enqueueRelatedHandler, type RelatedKey } from './related-handler.ts';

function secret(name: string, app?: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'ns', ...(app === undefined ? {} : { annotations: { app } }) },
  };
}

function harness(map: (object: KubeObject | undefined) => readonly RelatedKey[] | undefined) {
  const enqueued: string[] = [];
  const handler = enqueueRelatedHandler<KubeObject>(
    { enqueueKey: (key) => void enqueued.push(key) },
    (_key, object) => map(object),
  );
  const context: ReconcileContext = {
    key: 'ns/s',
    signal: new AbortController().signal,
    logger: noopLogger,
  };
  return {
    enqueued,
    // The handler is synchronous: what it enqueued is there when it returns.
    run: (object: KubeObject | undefined): void => {
      void handler('ns/s', object, context);
    },
  };
}

const byAnnotation = (object: KubeObject | undefined): RelatedKey[] => {
  const app = object?.metadata?.annotations?.app;
  return app === undefined ? [] : [{ namespace: 'ns', name: app }];
};

describe('enqueueRelatedHandler', () => {
  it('enqueues what the object maps to now and what it mapped to last, on changes and on delete', () => {
    const t = harness(byAnnotation);
    t.run(secret('s', 'web'));
    expect(t.enqueued).toEqual(['ns/web']);
    t.run(secret('s', 'api'));
    expect(t.enqueued).toEqual(['ns/web', 'ns/api', 'ns/web']);
    t.enqueued.length = 0;
    t.run(undefined);
    expect(t.enqueued).toEqual(['ns/api']);
    // Forgotten after the delete: a second delete maps to nothing.
    t.enqueued.length = 0;
    t.run(undefined);
    expect(t.enqueued).toEqual([]);
  });

  it('accepts string keys and cluster-scoped names, dedupes, and refuses malformed keys naming the source', () => {
    const t = harness(() => [
      'ns/a',
      'ns/a',
      { name: 'cluster-wide' },
      { namespace: '', name: 'b' },
    ]);
    t.run(secret('s'));
    expect(t.enqueued).toEqual(['ns/a', 'cluster-wide', 'b']);
    for (const bad of [[''], [{ name: '' }], [{ name: 'a/b' }], [5], 'ns/a']) {
      const broken = harness(() => bad as never);
      expect(() => broken.run(secret('s'))).toThrow(
        /enqueueRelatedHandler: map returned .*'ns\/s'/,
      );
    }
  });

  it('refuses a target without enqueueKey or a map that is not a function', () => {
    expect(() => enqueueRelatedHandler({} as never, () => [])).toThrow(/enqueueKey/);
    expect(() => enqueueRelatedHandler({ enqueueKey: () => {} }, 'x' as never)).toThrow(/map/);
  });
});
