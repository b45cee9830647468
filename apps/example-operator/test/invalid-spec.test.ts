// An Icecream CRD installed without its schema lets any JSON through to the operator: a `deploymentName` that is
// a number or an array must end as Ready=False InvalidSpec naming the field, with a Warning Event and a log line,
// reported once (no retry storm), and the Icecream must still be deletable; fixing the spec reconciles it.

import { readFileSync } from 'node:fs';
import type { Event } from 'kubernetes-types/events/v1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Icecream } from '../src/generated/index.ts';
import {
  crdPath,
  icecream,
  isReadyAt,
  observe,
  readyCondition,
  runOperator,
  runSimulatedWorkload,
  startCluster,
  type TestCluster,
} from './helpers.ts';

/** manifests/crd.yaml with its spec schema replaced by "anything goes" (a CRD without validation). */
function schemalessCrd(): Record<string, unknown> {
  const crd = parse(readFileSync(crdPath, 'utf8')) as {
    spec: { versions: Array<{ schema: { openAPIV3Schema: Record<string, unknown> } }> };
  };
  for (const version of crd.spec.versions) {
    const schema = version.schema.openAPIV3Schema as {
      required?: string[];
      properties: Record<string, unknown>;
    };
    delete schema.required;
    schema.properties.spec = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  }
  return crd as unknown as Record<string, unknown>;
}

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster({ crds: [schemalessCrd()] });
});

afterAll(async () => {
  await cluster?.stop();
});

function invalidIcecream(namespace: string, name: string, deploymentName: unknown): Icecream {
  const object = icecream(namespace, name);
  return { ...object, spec: { ...object.spec, deploymentName } as NonNullable<Icecream['spec']> };
}

describe('an Icecream whose spec the schema would refuse (CRD without validation)', () => {
  it('is Ready=False InvalidSpec naming spec.deploymentName, with an Event and a log, once; a fix reconciles it', async () => {
    const namespace = await cluster.namespace('invalid');
    const simulated = await runSimulatedWorkload(cluster.env, cluster.rest);
    const running = await runOperator({ rest: cluster.rest, namespace });
    const icecreams = await observe(cluster.icecreams, namespace);
    const events = await observe(cluster.events, namespace);
    try {
      await cluster.icecreams.create(namespace, invalidIcecream(namespace, 'number', 42));
      await cluster.icecreams.create(namespace, invalidIcecream(namespace, 'array', ['a', 'b']));
      for (const [name, got] of [
        ['number', 'number 42'],
        ['array', 'an array'],
      ] as const) {
        const reported = await icecreams.untilObject(
          name,
          (object) => readyCondition(object)?.reason === 'InvalidSpec',
          'Ready=False InvalidSpec',
        );
        expect(readyCondition(reported)).toMatchObject({
          status: 'False',
          message: `invalid spec: spec.deploymentName must be a string (a DNS subdomain), got ${got}`,
          observedGeneration: reported.metadata?.generation,
        });
        await events.until(
          () =>
            events
              .list()
              .some(
                (event: Event) =>
                  event.regarding?.name === name &&
                  event.type === 'Warning' &&
                  event.reason === 'InvalidSpec' &&
                  (event.note ?? '').includes('spec.deploymentName'),
              ),
          `a Warning InvalidSpec Event about ${name}`,
        );
      }

      // A valid Icecream created afterwards becomes Ready: the operator went on, and had every chance to
      // retry the invalid ones meanwhile. They were reported once each, never as reconcile errors.
      await cluster.icecreams.create(namespace, icecream(namespace, 'vanilla', { replicas: 1 }));
      await icecreams.untilObject('vanilla', (object) => isReadyAt(object, 1), 'Ready');
      const warnings = running.logger.find('invalid spec');
      expect(warnings.map((entry) => entry.level)).toEqual(['warn', 'warn']);
      expect(warnings.map((entry) => String(entry.attributes?.problems))).toEqual(
        expect.arrayContaining([
          expect.stringContaining('spec.deploymentName'),
          expect.stringContaining('spec.deploymentName'),
        ]),
      );
      expect(running.logger.entries.filter((entry) => entry.level === 'error')).toEqual([]);
      const before = icecreams.get('number')?.metadata?.resourceVersion;

      // Fixing the spec reconciles it.
      await cluster.icecreams.patch(namespace, 'number', 'merge', {
        spec: { deploymentName: 'number-scoops', replicas: 1 },
      });
      await icecreams.untilObject('number', (object) => isReadyAt(object, 1), 'Ready once fixed');
      expect(icecreams.get('number')?.metadata?.resourceVersion).not.toBe(before);

      // The still invalid one is deletable: its finalizer's cleanup has no Deployment to delete.
      await cluster.icecreams.delete(namespace, 'array');
      await icecreams.untilGone('array');
    } finally {
      await running.stop();
      await Promise.all([icecreams.stop(), events.stop()]);
      await simulated.stop();
    }
  }, 90_000);
});
