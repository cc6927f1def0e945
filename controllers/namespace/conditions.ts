/**
 * The status conditions the namespace controller keeps on a terminating namespace (upstream's
 * pkg/controller/namespace/deletion/status_condition_utils.go): one condition per type, True with a
 * reason and message saying what failed or remains, False with the "ok" reason and message
 * otherwise. `kubectl get ns x -o yaml` shows them; they are written only when one changed.
 */
import type { NamespaceCondition } from '../../apiserver/registry/core/namespace.ts';

export const conditionTypes = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

export type NamespaceConditionType = (typeof conditionTypes)[number];

const okReasons: Record<NamespaceConditionType, string> = {
  NamespaceDeletionDiscoveryFailure: 'ResourcesDiscovered',
  NamespaceDeletionGroupVersionParsingFailure: 'ParsedGroupVersions',
  NamespaceDeletionContentFailure: 'ContentDeleted',
  NamespaceContentRemaining: 'ContentRemoved',
  NamespaceFinalizersRemaining: 'ContentHasNoFinalizers',
};

const okMessages: Record<NamespaceConditionType, string> = {
  NamespaceDeletionDiscoveryFailure: 'All resources successfully discovered',
  NamespaceDeletionGroupVersionParsingFailure: 'All legacy kube types successfully parsed',
  NamespaceDeletionContentFailure: 'All content successfully deleted, may be waiting on finalization',
  NamespaceContentRemaining: 'All content successfully removed',
  NamespaceFinalizersRemaining: 'All content-preserving finalizers finished',
};

/** What one pass of content deletion found: per resource (`resource.group`), objects left and their finalizers. */
export interface ContentTotals {
  remainingByResource: Map<string, number>;
  remainingByFinalizer: Map<string, number>;
}

/** Collects one pass's failures, then writes them into a namespace's conditions. */
export class NamespaceConditionUpdater {
  private readonly failures = new Map<NamespaceConditionType, { reason: string; message: string }>();
  private readonly deleteContentErrors: string[] = [];

  discoveryFailed(message: string): void {
    this.failures.set('NamespaceDeletionDiscoveryFailure', { reason: 'DiscoveryFailed', message });
  }

  deleteContentFailed(message: string): void {
    this.deleteContentErrors.push(message);
  }

  contentTotals(totals: ContentTotals): void {
    const resources = [...totals.remainingByResource]
      .filter(([, n]) => n > 0)
      .map(([resource, n]) => `${resource} has ${n} resource instances`)
      .sort();
    if (resources.length > 0) {
      this.failures.set('NamespaceContentRemaining', { reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${resources.join(', ')}` });
    }
    const finalizers = [...totals.remainingByFinalizer]
      .filter(([, n]) => n > 0)
      .map(([finalizer, n]) => `${finalizer} in ${n} resource instances`)
      .sort();
    if (finalizers.length > 0) {
      this.failures.set('NamespaceFinalizersRemaining', {
        reason: 'SomeFinalizersRemain',
        message: `Some content in the namespace has finalizers remaining: ${finalizers.join(', ')}`,
      });
    }
  }

  /**
   * The conditions after this pass, from `current`: a condition whose status, reason or message
   * changed takes `now` as its transition time; `changed` says whether a write is needed.
   */
  update(current: readonly NamespaceCondition[], now: string): { conditions: NamespaceCondition[]; changed: boolean } {
    if (this.deleteContentErrors.length > 0 && !this.failures.has('NamespaceDeletionContentFailure')) {
      const messages = [...this.deleteContentErrors].sort();
      this.failures.set('NamespaceDeletionContentFailure', {
        reason: 'ContentDeletionFailed',
        message: `Failed to delete all resource types, ${messages.length} remaining: ${messages.join(', ')}`,
      });
    }
    const conditions = current.map((c) => ({ ...c }));
    let changed = false;
    for (const type of conditionTypes) {
      const failure = this.failures.get(type);
      const wanted = failure
        ? { type, status: 'True', reason: failure.reason, message: failure.message }
        : { type, status: 'False', reason: okReasons[type], message: okMessages[type] };
      const existing = conditions.find((c) => c.type === type);
      if (!existing) {
        conditions.push({ type, status: wanted.status, lastTransitionTime: now, reason: wanted.reason, message: wanted.message });
        changed = true;
      } else if (existing.status !== wanted.status || existing.reason !== wanted.reason || existing.message !== wanted.message) {
        Object.assign(existing, { status: wanted.status, reason: wanted.reason, message: wanted.message, lastTransitionTime: now });
        changed = true;
      }
    }
    return { conditions, changed };
  }
}
