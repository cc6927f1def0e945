/**
 * The garbage collector's dependency graph (upstream's GraphBuilder, pkg/controller/garbagecollector/
 * graph_builder.go): one node per object UID seen by the informers or named as an owner, with its
 * ownerReferences and the set of its dependents. Informer events change it synchronously (one
 * event loop: no locks and no graph-changes queue), and each change tells the collector what to
 * look at through a GraphSink:
 * - an owner named by a reference but not observed becomes a *virtual* node, to verify with a live
 *   GET (attemptToDelete); a verified absence removes it (`virtualDelete`) and its dependents are
 *   looked at, which collects references to owners that never existed or were deleted unseen;
 * - an object deleted with the `orphan` finalizer goes to attemptToOrphan;
 * - an object deleted with `foregroundDeletion` is *deleting dependents*: it and its dependents go
 *   to attemptToDelete;
 * - the removal of an object sends its dependents (their owner is gone) and its owners that wait
 *   for their dependents to attemptToDelete.
 *
 * Owners are matched to references by UID; the rest of a reference (apiVersion's group, kind, name,
 * and for a namespaced owner the dependent's namespace) are its coordinates, which must agree with
 * the owner as observed. A namespaced dependent may have a cluster-scoped owner; a namespaced owner
 * in another namespace than its dependent is reported (OwnerRefInvalidNamespace).
 */
import type { OwnerReference } from '../../shared/api/types.ts';
import { finalizerDeleteDependents, finalizerOrphanDependents } from '../../shared/validation/objectmeta.ts';

/** Which object a node stands for: an owner reference's coordinates plus the namespace ('' when cluster-scoped). */
export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  namespace: string;
}

/** What the graph needs of an observed object. */
export interface ObservedObject {
  identity: ObjectIdentity;
  ownerReferences: OwnerReference[];
  deletionTimestamp?: string;
  finalizers: string[];
}

export interface GraphSink {
  attemptToDelete(uid: string): void;
  attemptToOrphan(uid: string): void;
  /** `dependent` names `owner`, which lives in another namespace: the reference can never resolve. */
  invalidNamespaceOwnerRef(dependent: GraphNode, owner: OwnerReference): void;
}

export class GraphNode {
  readonly dependents = new Set<GraphNode>();
  owners: OwnerReference[] = [];
  /** Seen through an informer; false for a virtual node (only named as an owner). */
  observed = false;
  beingDeleted = false;
  /** Being deleted with foregroundDeletion: waits for its blocking dependents. */
  deletingDependents = false;

  constructor(public identity: ObjectIdentity) {}

  /** Dependents whose reference to this node has blockOwnerDeletion. */
  blockingDependents(): GraphNode[] {
    return [...this.dependents].filter((dep) => dep.owners.some((ref) => ref.uid === this.identity.uid && ref.blockOwnerDeletion === true));
  }
}

/** The group of an apiVersion (`''` for core `v1`). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * Whether `ref` names `identity` (upstream's ownerReferenceMatchesCoordinates). Versions of one group
 * name the same object, so the group of apiVersion is compared, not the version.
 */
export function referenceMatches(ref: OwnerReference, identity: ObjectIdentity): boolean {
  return ref.uid === identity.uid && ref.name === identity.name && ref.kind === identity.kind && groupOf(ref.apiVersion) === groupOf(identity.apiVersion);
}

export function sameIdentity(a: ObjectIdentity, b: ObjectIdentity): boolean {
  return a.uid === b.uid && a.name === b.name && a.kind === b.kind && a.namespace === b.namespace && groupOf(a.apiVersion) === groupOf(b.apiVersion);
}

/** Upstream's objectReference.String(), used in Events and logs. */
export function describeIdentity(identity: ObjectIdentity): string {
  return `[${identity.apiVersion}/${identity.kind}, namespace: ${identity.namespace}, name: ${identity.name}, uid: ${identity.uid}]`;
}

/** The identity `ref` gives its owner when named from `namespace`. */
export function identityOfReference(ref: OwnerReference, namespace: string): ObjectIdentity {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace };
}

/**
 * Dependents whose references to `owner` agree with its coordinates, and those that disagree
 * (another name or kind, or another namespace than a namespaced owner's); upstream's partitionDependents.
 */
export function partitionDependents(dependents: Iterable<GraphNode>, owner: ObjectIdentity): { matching: GraphNode[]; nonmatching: GraphNode[] } {
  const matching: GraphNode[] = [];
  const nonmatching: GraphNode[] = [];
  for (const dep of dependents) {
    let match = false;
    let mismatch = false;
    if (owner.namespace !== '' && owner.namespace !== dep.identity.namespace) {
      mismatch = true;
    } else {
      for (const ref of dep.owners) {
        if (ref.uid !== owner.uid) continue;
        if (referenceMatches(ref, owner)) match = true;
        else mismatch = true;
      }
    }
    if (match) matching.push(dep);
    if (mismatch) nonmatching.push(dep);
  }
  return { matching, nonmatching };
}

const absentOwnerCacheSize = 500;

export class DependencyGraph {
  private readonly nodes = new Map<string, GraphNode>();
  /** Owners verified absent, by identity (namespace '' for cluster-scoped): upstream's absentOwnerCache, bounded as its LRU. */
  private readonly absent = new Map<string, true>();

  constructor(private readonly sink: GraphSink) {}

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  get size(): number {
    return this.nodes.size;
  }

  isAbsent(identity: ObjectIdentity): boolean {
    const key = absentKey(identity);
    if (!this.absent.has(key)) return false;
    this.absent.delete(key);
    this.absent.set(key, true);
    return true;
  }

  markAbsent(identity: ObjectIdentity): void {
    const key = absentKey(identity);
    this.absent.delete(key);
    this.absent.set(key, true);
    if (this.absent.size > absentOwnerCacheSize) this.absent.delete(this.absent.keys().next().value ?? key);
  }

  /** An informer's add or update. */
  observe(obj: ObservedObject): void {
    let node = this.nodes.get(obj.identity.uid);
    if (node && !node.observed) {
      // A virtual node turns real: dependents that named it by other coordinates may be wrong.
      if (!sameIdentity(node.identity, obj.identity)) {
        for (const dep of partitionDependents(node.dependents, obj.identity).nonmatching) {
          if (obj.identity.namespace !== '' && dep.identity.namespace !== obj.identity.namespace) {
            const ref = dep.owners.find((r) => r.uid === obj.identity.uid);
            if (ref) this.sink.invalidNamespaceOwnerRef(dep, ref);
          }
          this.sink.attemptToDelete(dep.identity.uid);
        }
        node.identity = obj.identity;
      }
      node.observed = true;
    }
    if (node) {
      const { added, removed, changed } = referenceDiffs(node.owners, obj.ownerReferences);
      if (added.length || removed.length || changed.length) {
        this.addUnblockedOwnersToDeleteQueue(removed, changed);
        node.owners = obj.ownerReferences;
        this.addDependentToOwners(node, added);
        this.removeDependentFromOwners(node, removed);
      }
    } else {
      node = new GraphNode(obj.identity);
      node.observed = true;
      node.owners = obj.ownerReferences;
      this.nodes.set(obj.identity.uid, node);
      this.addDependentToOwners(node, node.owners);
    }
    if (obj.deletionTimestamp) node.beingDeleted = true;
    this.processTransitions(obj, node);
  }

  /** An informer's delete: the object is gone. */
  removeObserved(identity: ObjectIdentity): void {
    const node = this.nodes.get(identity.uid);
    if (node) this.removeNode(node, identity);
  }

  /**
   * The collector verified with a live GET that `identity` does not exist (upstream's virtual
   * delete event). A virtual node that dependents name by other coordinates stays, under one of
   * those, to be verified in turn; an observed node whose coordinates differ stays.
   */
  virtualDelete(identity: ObjectIdentity): void {
    const node = this.nodes.get(identity.uid);
    if (!node) return;
    if (!node.observed) {
      const { matching, nonmatching } = partitionDependents(node.dependents, identity);
      if (nonmatching.length > 0) {
        if (matching.length > 0) {
          this.markAbsent(identity);
          for (const dep of matching) this.sink.attemptToDelete(dep.identity.uid);
        }
        if (sameIdentity(node.identity, identity)) {
          const alternative = alternateOwnerIdentity(nonmatching, identity);
          if (alternative) {
            node.identity = alternative;
            this.sink.attemptToDelete(node.identity.uid);
          }
        }
        return;
      }
    } else if (!sameIdentity(node.identity, identity)) {
      const { matching } = partitionDependents(node.dependents, identity);
      if (matching.length > 0) {
        this.markAbsent(identity);
        for (const dep of matching) this.sink.attemptToDelete(dep.identity.uid);
      }
      return;
    }
    this.removeNode(node, identity);
  }

  private removeNode(node: GraphNode, identity: ObjectIdentity): void {
    this.nodes.delete(node.identity.uid);
    this.removeDependentFromOwners(node, node.owners);
    if (node.dependents.size > 0) this.markAbsent(identity);
    for (const dep of node.dependents) this.sink.attemptToDelete(dep.identity.uid);
    for (const ref of node.owners) {
      const owner = this.nodes.get(ref.uid);
      // An owner waiting for its dependents may now have none left.
      if (owner?.deletingDependents) this.sink.attemptToDelete(owner.identity.uid);
    }
  }

  /** Orphan and foreground deletions start when an object is marked deleted with their finalizer. */
  private processTransitions(obj: ObservedObject, node: GraphNode): void {
    if (!obj.deletionTimestamp) return;
    if (obj.finalizers.includes(finalizerOrphanDependents)) {
      this.sink.attemptToOrphan(node.identity.uid);
      return;
    }
    if (obj.finalizers.includes(finalizerDeleteDependents)) {
      node.deletingDependents = true;
      for (const dep of node.dependents) this.sink.attemptToDelete(dep.identity.uid);
      this.sink.attemptToDelete(node.identity.uid);
    }
  }

  private addDependentToOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    let potentiallyInvalid = false;
    for (const ref of owners) {
      let owner = this.nodes.get(ref.uid);
      if (!owner) {
        // Named but not seen: a virtual node, verified by the collector.
        owner = new GraphNode(identityOfReference(ref, node.identity.namespace));
        this.nodes.set(ref.uid, owner);
        owner.dependents.add(node);
        this.sink.attemptToDelete(ref.uid);
        continue;
      }
      owner.dependents.add(node);
      if (potentiallyInvalid) continue;
      const ownerNamespaced = owner.identity.namespace !== '';
      if (ownerNamespaced && owner.identity.namespace !== node.identity.namespace) {
        // A namespaced owner is only ever in its dependent's namespace.
        if (owner.observed) this.sink.invalidNamespaceOwnerRef(node, ref);
        potentiallyInvalid = true;
      } else if (!referenceMatches(ref, owner.identity)) {
        potentiallyInvalid = true;
      } else if (!ownerNamespaced && owner.identity.namespace !== node.identity.namespace && !owner.observed) {
        // A virtual cluster-scoped owner named from a namespace: possibly a namespaced kind named
        // from a cluster-scoped dependent; the collector checks.
        potentiallyInvalid = true;
      }
    }
    if (potentiallyInvalid) this.sink.attemptToDelete(node.identity.uid);
  }

  private removeDependentFromOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    for (const ref of owners) this.nodes.get(ref.uid)?.dependents.delete(node);
  }

  /** References that stopped blocking an owner deleting its dependents let it be looked at again. */
  private addUnblockedOwnersToDeleteQueue(removed: OwnerReference[], changed: { before: OwnerReference; after: OwnerReference }[]): void {
    const unblocked = [
      ...removed.filter((ref) => ref.blockOwnerDeletion === true),
      ...changed.filter(({ before, after }) => before.blockOwnerDeletion === true && after.blockOwnerDeletion !== true).map(({ after }) => after),
    ];
    for (const ref of unblocked) {
      const owner = this.nodes.get(ref.uid);
      if (owner?.deletingDependents) this.sink.attemptToDelete(owner.identity.uid);
    }
  }
}

function absentKey(identity: ObjectIdentity): string {
  return JSON.stringify([groupOf(identity.apiVersion), identity.kind, identity.namespace, identity.name, identity.uid]);
}

/** Another identity the nonmatching dependents name `deleted`'s UID by (upstream's getAlternateOwnerIdentity, first one). */
function alternateOwnerIdentity(dependents: GraphNode[], deleted: ObjectIdentity): ObjectIdentity | undefined {
  for (const dep of dependents) {
    for (const ref of dep.owners) {
      if (ref.uid !== deleted.uid) continue;
      const candidate = identityOfReference(ref, dep.identity.namespace);
      if (!sameIdentity(candidate, deleted)) return candidate;
    }
  }
  return undefined;
}

/** Owner references added, removed, and changed (same UID, other fields), by UID. */
export function referenceDiffs(
  before: readonly OwnerReference[],
  after: readonly OwnerReference[],
): { added: OwnerReference[]; removed: OwnerReference[]; changed: { before: OwnerReference; after: OwnerReference }[] } {
  const old = new Map(before.map((ref) => [ref.uid, ref]));
  const next = new Map(after.map((ref) => [ref.uid, ref]));
  const added = after.filter((ref) => !old.has(ref.uid));
  const removed = before.filter((ref) => !next.has(ref.uid));
  const changed: { before: OwnerReference; after: OwnerReference }[] = [];
  for (const ref of after) {
    const previous = old.get(ref.uid);
    if (previous && !sameReference(previous, ref)) changed.push({ before: previous, after: ref });
  }
  return { added, removed, changed };
}

function sameReference(a: OwnerReference, b: OwnerReference): boolean {
  return (
    a.apiVersion === b.apiVersion &&
    a.kind === b.kind &&
    a.name === b.name &&
    a.uid === b.uid &&
    (a.controller ?? false) === (b.controller ?? false) &&
    (a.blockOwnerDeletion ?? false) === (b.blockOwnerDeletion ?? false)
  );
}
