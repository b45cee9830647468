// kube-controller-manager's garbage collector (pkg/controller/garbagecollector), in-process: a graph of
// owners and dependents kept from the store's commits, and the same decisions on the same triggers.
// - An object whose owners are all absent (gone, or present with another uid) is deleted, with the
//   policy its own finalizers ask for (default Background).
// - An owner deleted with `propagationPolicy: Foreground` (deletionTimestamp + `foregroundDeletion`)
//   has its dependents deleted; the finalizer is removed once no dependent with
//   `blockOwnerDeletion: true` is left, and the owner goes.
// - An owner deleted with `Orphan` (the `orphan` finalizer) has its reference removed from every
//   dependent, then the finalizer.
// Not modelled: the absent-owner cache, the OwnerRefInvalidNamespace events, and retrying references
// whose kind is not served (left alone).
import type { Logger } from '@lasso/core';
import { isRecord, type Json, metaOf, stringOf } from '../apimachinery/objects.ts';
import { type ResourceInfo, storageKey } from '../resources/builtin-resources.ts';
import type { Registry } from '../resources/served-resources.ts';
import type { HistoryEvent, KubeObject, Store } from '../storage/store.ts';
import type { Enqueue, InProcessController } from './controller-manager.ts';
import { finalizersOf, InProcessClient, type RequestHandler } from './in-process-client.ts';

const foregroundFinalizer = 'foregroundDeletion';
const orphanFinalizer = 'orphan';

/** One reference of `metadata.ownerReferences`. */
interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  blockOwnerDeletion: boolean;
}

/** A node of the graph: where the object is stored, what it references, whether it is being deleted. */
interface GraphNode {
  key: string;
  namespace: string;
  name: string;
  owners: OwnerReference[];
  /** deletionTimestamp set and the `foregroundDeletion` finalizer present (kube: deletingDependents). */
  deletingDependents: boolean;
  /** deletionTimestamp set and the `orphan` finalizer present. */
  orphaning: boolean;
}

function ownersOf(object: KubeObject): OwnerReference[] {
  const references = metaOf(object).ownerReferences;
  if (!Array.isArray(references)) return [];
  return references.filter(isRecord).map((reference) => ({
    apiVersion: stringOf(reference.apiVersion) ?? '',
    kind: stringOf(reference.kind) ?? '',
    name: stringOf(reference.name) ?? '',
    uid: stringOf(reference.uid) ?? '',
    blockOwnerDeletion: reference.blockOwnerDeletion === true,
  }));
}

function nodeOf(
  event: Pick<HistoryEvent, 'key' | 'namespace' | 'name'>,
  object: KubeObject,
): GraphNode {
  const deleting = metaOf(object).deletionTimestamp !== undefined;
  const finalizers = finalizersOf(object);
  return {
    key: event.key,
    namespace: event.namespace,
    name: event.name,
    owners: ownersOf(object),
    deletingDependents: deleting && finalizers.includes(foregroundFinalizer),
    orphaning: deleting && finalizers.includes(orphanFinalizer),
  };
}

/** The garbage collector of one built-in server. */
export class GarbageCollector implements InProcessController {
  readonly #store: Store;
  readonly #registry: Registry;
  readonly #client: InProcessClient;
  readonly #logger: Logger;
  /** Every stored object by uid. */
  readonly #nodes = new Map<string, GraphNode>();
  /** Owner uid -> uids of the objects that reference it (the owner may be absent). */
  readonly #dependents = new Map<string, Set<string>>();
  #enqueue: Enqueue = () => {};

  constructor(options: {
    store: Store;
    registry: Registry;
    handle: RequestHandler;
    logger: Logger;
  }) {
    this.#store = options.store;
    this.#registry = options.registry;
    this.#logger = options.logger;
    this.#client = new InProcessClient({
      handle: options.handle,
      registry: options.registry,
      serviceAccount: 'generic-garbage-collector',
    });
  }

  resync(enqueue: Enqueue): void {
    this.#enqueue = enqueue;
    this.#nodes.clear();
    this.#dependents.clear();
    const keys = new Set(this.#registry.all().map((info) => storageKey(info)));
    for (const key of keys) {
      for (const object of this.#store.snapshot(key).objects(undefined)) {
        const metadata = metaOf(object);
        const uid = stringOf(metadata.uid) ?? '';
        if (uid === '') continue;
        const at = {
          key,
          namespace: stringOf(metadata.namespace) ?? '',
          name: String(metadata.name),
        };
        this.#insert(uid, nodeOf(at, object));
      }
    }
    // What was due while the controller did not run (a restart of the server).
    for (const [uid, node] of this.#nodes) {
      if (node.orphaning) this.#queueOrphan(uid);
      if (node.deletingDependents) this.#queueDelete(uid);
      if (node.owners.some((owner) => !this.#nodes.has(owner.uid))) this.#queueDelete(uid);
    }
  }

  observe(event: HistoryEvent, enqueue: Enqueue): void {
    this.#enqueue = enqueue;
    const uid = stringOf(metaOf(event.object).uid) ?? '';
    if (uid === '') return;
    const before = this.#nodes.get(uid);
    if (event.type === 'DELETED') {
      if (before === undefined) return;
      this.#remove(uid, before);
      // Its dependents may have lost their last owner; owners deleting in foreground re-check.
      for (const dependent of this.#dependents.get(uid) ?? []) this.#queueDelete(dependent);
      for (const owner of before.owners) {
        if (this.#nodes.get(owner.uid)?.deletingDependents === true) this.#queueDelete(owner.uid);
      }
      return;
    }
    const node = nodeOf(event, event.object);
    if (before !== undefined) this.#remove(uid, before);
    this.#insert(uid, node);
    if (node.orphaning && before?.orphaning !== true) this.#queueOrphan(uid);
    if (node.deletingDependents && before?.deletingDependents !== true) {
      this.#queueDelete(uid);
      for (const dependent of this.#dependents.get(uid) ?? []) this.#queueDelete(dependent);
    }
    // A reference removed or changed: an owner waiting for its dependents re-checks.
    for (const owner of [...(before?.owners ?? []), ...node.owners]) {
      if (this.#nodes.get(owner.uid)?.deletingDependents === true) this.#queueDelete(owner.uid);
    }
    if (node.owners.some((owner) => this.#nodes.get(owner.uid)?.deletingDependents !== false)) {
      // An owner absent from the graph (or deleting in foreground): verify it.
      this.#queueDelete(uid);
    }
  }

  #insert(uid: string, node: GraphNode): void {
    this.#nodes.set(uid, node);
    for (const owner of node.owners) {
      let dependents = this.#dependents.get(owner.uid);
      if (dependents === undefined) {
        dependents = new Set();
        this.#dependents.set(owner.uid, dependents);
      }
      dependents.add(uid);
    }
  }

  #remove(uid: string, node: GraphNode): void {
    this.#nodes.delete(uid);
    for (const owner of node.owners) {
      const dependents = this.#dependents.get(owner.uid);
      dependents?.delete(uid);
      // Kept while the owner is in the graph: its dependents are found through it.
      if (dependents?.size === 0) this.#dependents.delete(owner.uid);
    }
  }

  #queueDelete(uid: string): void {
    this.#enqueue(`gc/attempt-to-delete/${uid}`, () => this.#attemptToDelete(uid));
  }

  #queueOrphan(uid: string): void {
    this.#enqueue(`gc/attempt-to-orphan/${uid}`, () => this.#attemptToOrphan(uid));
  }

  /** The live object of a graph node, when it is still the object with `uid`. */
  #live(uid: string): { node: GraphNode; info: ResourceInfo; object: KubeObject } | undefined {
    const node = this.#nodes.get(uid);
    if (node === undefined) return undefined;
    const info = this.#client.resourceOf(node.key);
    if (info === undefined) return undefined;
    const object = this.#store.get(node.key, node.namespace, node.name);
    if (object === undefined || metaOf(object).uid !== uid) return undefined;
    return { node, info, object };
  }

  /** attemptToDeleteItem: delete an object whose owners are all gone, or process a foreground deletion. */
  #attemptToDelete(uid: string): void {
    const live = this.#live(uid);
    if (live === undefined) return;
    const { node, info, object } = live;
    const metadata = metaOf(object);
    const finalizers = finalizersOf(object);
    const beingDeleted = metadata.deletionTimestamp !== undefined;
    // "Being deleted" is a one-way trip: wait for the final deletion, unless it waits for dependents.
    if (beingDeleted && !finalizers.includes(foregroundFinalizer)) return;
    if (beingDeleted) {
      this.#processDeletingDependents(uid, live);
      return;
    }
    if (node.owners.length === 0) return;
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const reference of node.owners) {
      const owner = this.#resolveOwner(reference, info, node.namespace);
      // kube's classifyReferences fails on such a reference, and the item is retried: nothing is done.
      if (owner === 'unresolvable') return;
      if (owner === undefined) dangling.push(reference);
      else if (
        metaOf(owner).deletionTimestamp !== undefined &&
        finalizersOf(owner).includes(foregroundFinalizer)
      ) {
        waiting.push(reference);
      } else solid.push(reference);
    }
    const name = node.name;
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      // References to gone owners, and to owners waiting for their dependents, are removed.
      const drop = new Set([...dangling, ...waiting].map((reference) => reference.uid));
      this.#removeOwnerReferences(info, object, drop);
      return;
    }
    let policy = 'Background';
    const dependents = [...(this.#dependents.get(uid) ?? [])];
    if (waiting.length > 0 && dependents.length > 0) {
      // A dependent deleting its own dependents in foreground may be waiting for this object in turn:
      // kube breaks such a possible cycle by making this object's references non-blocking first.
      if (dependents.some((dependent) => this.#nodes.get(dependent)?.deletingDependents === true)) {
        this.#unblockOwnerReferences(info, object);
      }
      policy = 'Foreground';
    } else if (finalizers.includes(orphanFinalizer)) policy = 'Orphan';
    else if (finalizers.includes(foregroundFinalizer)) policy = 'Foreground';
    const outcome = this.#client.delete(info, node.namespace, name, {
      propagationPolicy: policy,
      preconditions: { uid },
    });
    if (!outcome.ok && outcome.code !== 404 && outcome.code !== 409) {
      this.#logger.warn('garbage collector: delete failed', {
        resource: info.resource,
        namespace: node.namespace,
        name,
        error: outcome.message,
      });
    }
  }

  /**
   * The owner of `reference` as seen from a dependent of `info` in `namespace`: the live object, undefined
   * when absent (not found, or found with another uid), or 'unresolvable' when its kind is not served or
   * a cluster-scoped dependent names a namespaced kind (kube 1.20+ leaves such a dependent alone).
   */
  #resolveOwner(
    reference: OwnerReference,
    info: ResourceInfo,
    namespace: string,
  ): KubeObject | undefined | 'unresolvable' {
    const slash = reference.apiVersion.lastIndexOf('/');
    const group = slash === -1 ? '' : reference.apiVersion.slice(0, slash);
    const version = reference.apiVersion.slice(slash + 1);
    const candidates = this.#registry
      .all()
      .filter((served) => served.group === group && served.kind === reference.kind);
    const owner = candidates.find((served) => served.version === version) ?? candidates[0];
    if (owner === undefined) return 'unresolvable';
    if (owner.namespaced && !info.namespaced) return 'unresolvable';
    const found = this.#store.get(
      storageKey(owner),
      owner.namespaced ? namespace : '',
      reference.name,
    );
    if (found === undefined || metaOf(found).uid !== reference.uid) return undefined;
    return found;
  }

  /** processDeletingDependentsItem: wait for the blocking dependents, then remove `foregroundDeletion`. */
  #processDeletingDependents(
    uid: string,
    owner: { node: GraphNode; info: ResourceInfo; object: KubeObject },
  ): void {
    const blocking: string[] = [];
    for (const dependentUid of this.#dependents.get(uid) ?? []) {
      const dependent = this.#nodes.get(dependentUid);
      if (dependent === undefined) continue;
      if (
        dependent.owners.some((reference) => reference.uid === uid && reference.blockOwnerDeletion)
      ) {
        blocking.push(dependentUid);
      }
    }
    if (blocking.length === 0) {
      this.#removeFinalizer(owner.info, owner.object, foregroundFinalizer);
      return;
    }
    for (const dependentUid of blocking) {
      if (this.#nodes.get(dependentUid)?.deletingDependents !== true)
        this.#queueDelete(dependentUid);
    }
  }

  /** attemptToOrphan: remove the owner's reference from every dependent, then the `orphan` finalizer. */
  #attemptToOrphan(uid: string): void {
    const live = this.#live(uid);
    if (live === undefined) return;
    const { info, object } = live;
    if (metaOf(object).deletionTimestamp === undefined) return;
    if (!finalizersOf(object).includes(orphanFinalizer)) return;
    for (const dependentUid of [...(this.#dependents.get(uid) ?? [])]) {
      const dependent = this.#live(dependentUid);
      if (dependent === undefined) continue;
      this.#removeOwnerReferences(dependent.info, dependent.object, new Set([uid]));
    }
    this.#removeFinalizer(info, object, orphanFinalizer);
  }

  #removeOwnerReferences(info: ResourceInfo, object: KubeObject, uids: ReadonlySet<string>): void {
    const metadata = metaOf(object);
    const references = Array.isArray(metadata.ownerReferences) ? metadata.ownerReferences : [];
    const kept = references.filter(
      (reference) => !(isRecord(reference) && uids.has(String(reference.uid))),
    );
    this.#patchMetadata(info, object, { ownerReferences: kept.length === 0 ? null : kept });
  }

  #unblockOwnerReferences(info: ResourceInfo, object: KubeObject): void {
    const metadata = metaOf(object);
    const references = Array.isArray(metadata.ownerReferences) ? metadata.ownerReferences : [];
    const unblocked = references.map((reference) =>
      isRecord(reference) && reference.blockOwnerDeletion === true
        ? { ...reference, blockOwnerDeletion: false }
        : reference,
    );
    this.#patchMetadata(info, object, { ownerReferences: unblocked });
  }

  #removeFinalizer(info: ResourceInfo, object: KubeObject, finalizer: string): void {
    const kept = finalizersOf(object).filter((item) => item !== finalizer);
    this.#patchMetadata(info, object, { finalizers: kept.length === 0 ? null : kept });
  }

  /** A merge patch of metadata, conditional on the uid and resourceVersion read. */
  #patchMetadata(info: ResourceInfo, object: KubeObject, changes: Json): void {
    const metadata = metaOf(object);
    const name = String(metadata.name);
    const namespace = stringOf(metadata.namespace) ?? '';
    const outcome = this.#client.mergePatch(info, namespace, name, {
      metadata: { ...changes, uid: metadata.uid, resourceVersion: metadata.resourceVersion },
    });
    if (outcome.ok || outcome.code === 404) return;
    if (outcome.code === 409) {
      // Changed since it was read: decide again from the new state.
      const uid = String(metadata.uid);
      this.#queueDelete(uid);
      if (this.#nodes.get(uid)?.orphaning === true) this.#queueOrphan(uid);
      return;
    }
    this.#logger.warn('garbage collector: patch failed', {
      resource: info.resource,
      namespace,
      name,
      error: outcome.message,
    });
  }
}
