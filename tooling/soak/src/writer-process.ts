// A soak writer process: churns ConfigMaps and Widgets (create, update, delete) in its namespaces at a steady rate
// with a few writes in flight, through @lasso/client, while the server injects faults. Failed writes are counted
// and not retried: the server's state is the truth the factory is checked against. Each write carries the
// wall-clock time it was sent (`writtenAt`) so the consumer can measure write-to-handler lag.
import type { Client, KubeObject } from '@lasso/client';
import { soakKinds, writtenAtKey } from './kinds.ts';
import { runWriterProcess } from './writer-loop.ts';

export type { WriterMessage } from './writer-loop.ts';

runWriterProcess('writer-process', 8, (writer) => {
  const { random, cap, namespaces, count, fail } = writer;
  const clients = soakKinds.map((kind) => writer.client(kind));
  // What this writer believes exists (its namespaces are its own): namespace/kind -> names.
  const existing = new Map<string, Set<string>>();
  let serial = 0;
  const payload = (field: 'data' | 'spec'): Record<string, unknown> => {
    const values = { [writtenAtKey]: String(Date.now()), n: String(random.int(0, 1_000_000)) };
    return field === 'data' ? values : { ...values, size: random.int(1, 10) };
  };
  const writeOnce = async (): Promise<void> => {
    const kindIndex = random.int(0, soakKinds.length - 1);
    const kind = soakKinds[kindIndex] as (typeof soakKinds)[number];
    const client = clients[kindIndex] as Client<KubeObject>;
    const namespace = random.pick(namespaces);
    const slot = `${namespace}/${kind.name}`;
    const names = existing.get(slot) ?? new Set<string>();
    existing.set(slot, names);
    const draw = random();
    const op =
      names.size === 0 || (names.size < cap && draw < 0.4)
        ? 'create'
        : draw < 0.85 || names.size < cap / 2
          ? 'update'
          : 'delete';
    const name =
      op === 'create' ? `${kind.name.toLowerCase()}-${serial++}` : random.pick([...names]);
    count(op);
    try {
      if (op === 'create') {
        names.add(name);
        await client.create(namespace, {
          apiVersion: kind.gvk.group === '' ? 'v1' : `${kind.gvk.group}/${kind.gvk.version}`,
          kind: kind.gvk.kind,
          metadata: { name, namespace },
          [kind.field]: payload(kind.field),
        } as KubeObject);
      } else if (op === 'update') {
        await client.patch(namespace, name, 'merge', { [kind.field]: payload(kind.field) });
      } else {
        names.delete(name);
        await client.delete(namespace, name);
      }
    } catch (error) {
      fail();
      const status = (error as { status?: unknown }).status;
      // Not there (deleted by a write whose answer was lost): forget it. A create that failed may have been
      // stored: keep it, an update or delete will find out.
      if (status === 404) names.delete(name);
      if (status === 409 && op === 'create') names.add(name);
    }
  };
  return writeOnce;
});
