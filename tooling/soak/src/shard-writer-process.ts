// A writer of the sharded soak: churns Widgets (the primary kind) and ConfigMaps each owned by a Widget through a
// controller ownerReference (the owned kind, hashed by its owner's uid) in its namespaces, at a steady rate with a
// few writes in flight. Seeded. Failed writes are counted, not retried: the server's state at the end is what the
// checker compares the replicas' last reconciles with.
import type { KubeObject } from '@lasso/client';
import { soakKinds } from './kinds.ts';
import { runWriterProcess } from './writer-loop.ts';

export type { WriterMessage as ShardWriterMessage } from './writer-loop.ts';

const [configMapKind, widgetKind] = soakKinds as [
  (typeof soakKinds)[number],
  (typeof soakKinds)[number],
];

// Its cap counts Widgets per namespace (each with the ConfigMaps it owns).
runWriterProcess('shard-writer-process', 4, ({ random, cap, namespaces, client, count, fail }) => {
  const widgets = client(widgetKind);
  const configMaps = client(configMapKind);
  // What this writer believes exists (its namespaces are its own).
  const owners = new Map<
    string,
    { namespace: string; name: string; uid: string; children: Set<string> }
  >();
  let serial = 0;
  const widgetsIn = (namespace: string) =>
    [...owners.values()].filter((owner) => owner.namespace === namespace);
  const writeOnce = async (): Promise<void> => {
    const namespace = random.pick(namespaces);
    const mine = widgetsIn(namespace);
    const draw = random();
    let op: string;
    if (mine.length === 0 || (mine.length < cap && draw < 0.2)) op = 'create-widget';
    else if (draw < 0.4) op = 'create-child';
    else if (draw < 0.65) op = 'update-widget';
    else if (draw < 0.9) op = 'update-child';
    else if (draw < 0.95) op = 'delete-child';
    else op = mine.length > cap / 2 ? 'delete-widget' : 'update-widget';
    const owner = mine.length === 0 ? undefined : random.pick(mine);
    const ownedNames = owner === undefined ? [] : [...owner.children];
    if ((op === 'update-child' || op === 'delete-child') && ownedNames.length === 0)
      op = 'create-child';
    if (op === 'create-child' && owner === undefined) op = 'create-widget';
    count(op);
    const payload = { n: String(random.int(0, 1_000_000)) };
    try {
      switch (op) {
        case 'create-widget': {
          const name = `w-${serial++}`;
          const created = await widgets.create(namespace, {
            apiVersion: 'soak.lasso.dev/v1',
            kind: 'Widget',
            metadata: { name, namespace },
            spec: payload,
          } as KubeObject);
          owners.set(`${namespace}/${name}`, {
            namespace,
            name,
            uid: created.metadata?.uid as string,
            children: new Set(),
          });
          return;
        }
        case 'create-child': {
          const target = owner as NonNullable<typeof owner>;
          const name = `${target.name}-c${serial++}`;
          target.children.add(name);
          await configMaps.create(namespace, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name,
              namespace,
              ownerReferences: [
                {
                  apiVersion: 'soak.lasso.dev/v1',
                  kind: 'Widget',
                  name: target.name,
                  uid: target.uid,
                  controller: true,
                },
              ],
            },
            data: payload,
          } as KubeObject);
          return;
        }
        case 'update-widget':
          await widgets.patch(namespace, (owner as NonNullable<typeof owner>).name, 'merge', {
            spec: payload,
          });
          return;
        case 'update-child':
          await configMaps.patch(namespace, random.pick(ownedNames), 'merge', { data: payload });
          return;
        case 'delete-child': {
          const name = random.pick(ownedNames);
          owner?.children.delete(name);
          await configMaps.delete(namespace, name);
          return;
        }
        default: {
          // delete-widget: its children first (the built-in server has no garbage collector).
          const target = owner as NonNullable<typeof owner>;
          owners.delete(`${namespace}/${target.name}`);
          for (const name of target.children) {
            await configMaps.delete(namespace, name).catch(() => {});
          }
          await widgets.delete(namespace, target.name);
        }
      }
    } catch (error) {
      fail();
      const status = (error as { status?: unknown }).status;
      if (status === 404 && op === 'update-widget') owners.delete(`${namespace}/${owner?.name}`);
    }
  };
  return writeOnce;
});
