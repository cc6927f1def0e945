/**
 * ClusterRole aggregation (upstream's clusterrole-aggregation controller): the rules of a
 * ClusterRole with an aggregationRule are the union of the rules of every other ClusterRole its
 * selectors match, kept current as roles come, change and go. `admin`, `edit` and `view` get their
 * rules this way from the `aggregate-to-*` roles.
 *
 * It runs in every API server replica until corral's controller manager takes it over: each replica
 * computes the same rules from its watch cache and writes only when they differ, so replicas agree
 * and a lost race (409) just waits for the next pass. A pass runs after every change of a
 * ClusterRole (several changes in one turn make one pass); a failed write is retried after a second.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { isStatusError, notFound } from '../../../shared/api/errors.ts';
import { rbacGroup, type ClusterRole, type PolicyRule } from '../../../shared/api/rbac.ts';
import { labelSelectorFromObject, matches } from '../../../shared/selectors/labels.ts';
import type { RequestContext } from '../../registry/definition.ts';
import type { GenericStore } from '../../registry/store.ts';
import type { ResourceCache, Subscription, WatchCache } from '../../storage/cache/watch-cache.ts';

const fieldManager = 'clusterrole-aggregation-controller';
const retryMs = 1000;

/** The rules `role` aggregates from `all` (sorted by name, itself excluded, each distinct rule once), or undefined without an aggregationRule. */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] | undefined {
  if (!role.aggregationRule) return undefined;
  const sorted = [...all].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  const rules: PolicyRule[] = [];
  for (const selectorObject of role.aggregationRule.clusterRoleSelectors ?? []) {
    const selector = labelSelectorFromObject(selectorObject);
    for (const other of sorted) {
      if (other.metadata.name === role.metadata.name || !matches(selector, other.metadata.labels)) continue;
      for (const rule of other.rules ?? []) if (!rules.some((r) => isDeepStrictEqual(r, rule))) rules.push(rule);
    }
  }
  return rules;
}

export class ClusterRoleAggregator {
  private readonly cache: ResourceCache;
  private subscription: Subscription | undefined;
  private scheduled = false;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly watchCache: WatchCache,
    private readonly store: GenericStore,
    private readonly context: () => RequestContext,
    private readonly logger: Logger,
  ) {
    this.cache = watchCache.resource('clusterroles');
  }

  /** Subscribes to ClusterRole changes and runs a first pass; the cache must be started. */
  start(): void {
    this.subscribe();
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.subscription?.cancel();
    clearTimeout(this.retry);
  }

  private subscribe(): void {
    this.subscription = this.cache.subscribe(this.cache.prefix, this.watchCache.revision, {
      onEvent: () => this.schedule(),
      // The cache re-listed: subscribe again from its new state, once it is in place.
      onClose: () => queueMicrotask(() => this.stopped || (this.subscribe(), this.schedule())),
    });
  }

  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pass().catch((err: unknown) => {
        this.logger.warn({ err }, 'clusterrole aggregation failed; retrying');
        clearTimeout(this.retry);
        this.retry = setTimeout(() => this.schedule(), retryMs);
      });
    });
  }

  private roles(): ClusterRole[] {
    return this.cache.list(this.cache.prefix).map((v) => v.object as ClusterRole);
  }

  private async pass(): Promise<void> {
    const all = this.roles();
    for (const role of all) {
      const rules = aggregatedRules(role, all);
      if (!rules || isDeepStrictEqual(rules, role.rules ?? [])) continue;
      await this.write(role.metadata.name ?? '');
    }
  }

  /** Writes the aggregated rules computed on the current object (a vanished role needs nothing). */
  private async write(name: string): Promise<void> {
    try {
      await this.store.update(
        '',
        name,
        '',
        {
          derive: (current) => {
            const copy = structuredClone<ClusterRole | null>(current);
            if (!copy) throw notFound({ group: rbacGroup, resource: 'clusterroles' }, name);
            const rules = aggregatedRules(copy, this.roles());
            if (rules) copy.rules = rules;
            return copy;
          },
        },
        this.context(),
        { dryRun: false, manager: fieldManager },
      );
    } catch (err) {
      // Deleted meanwhile, or another replica wrote first: the event that follows schedules a new pass.
      if (isStatusError(err, 'NotFound') || isStatusError(err, 'Conflict')) return;
      throw err;
    }
  }
}
