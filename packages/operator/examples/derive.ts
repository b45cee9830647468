// The derive controller of the README: ConfigMaps labelled example.com/derive=true get an upper-cased
// `<name>-derived` copy owned by the source, recreated when deleted, with an Event on the source.
// Run as a program (`node derive.js`: SIGTERM drains and exits); test/integration/derive.test.ts runs
// deriveController on an operator over @lasso/envtest.
import { createOrUpdate, enqueueOwnerHandler } from '@lasso/controller';
import { kindFor } from '@lasso/factory';
import { createOperator, type Operator } from '@lasso/operator';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';

export async function deriveController(operator: Operator): Promise<void> {
  const configMaps = await operator.forKind(kindFor('v1', 'ConfigMap'));
  const events = operator.recorder('example.com/derive');
  // A copy deleted or changed enqueues its source, which recreates or repairs it.
  const owners = enqueueOwnerHandler<ConfigMap>(configMaps, { group: '', kind: 'ConfigMap' });
  configMaps.registerHandler(operator.signal, 'derive-owner', owners);
  configMaps.registerHandler(operator.signal, 'derive', async (_key, source, { signal }) => {
    if (source?.metadata?.labels?.['example.com/derive'] !== 'true') return source;
    const { namespace = '', name } = source.metadata;
    const copy: ConfigMap = { metadata: { namespace, name: `${name}-derived` } };
    const upper = Object.entries(source.data ?? {}).map(([k, v]) => [k, v.toUpperCase()]);
    const derive = (cm: ConfigMap) => void Object.assign(cm, { data: Object.fromEntries(upper) });
    const options = { signal, owner: source };
    const { operation } = await createOrUpdate(configMaps.client(), copy, derive, options);
    if (operation === 'unchanged') return source;
    const note = `${operation} ${namespace}/${name}-derived`;
    events.event(source, copy, 'Normal', 'Derived', 'Derive', note);
    return source;
  });
}

if (process.argv[1]?.endsWith('derive.js')) {
  const operator = await createOperator({
    leaderElection: { namespace: 'default', name: 'derive' },
    health: { port: 8081 },
    metrics: { port: 8080 },
  });
  await deriveController(operator);
  await operator.run();
}
