/**
 * One informer per resource and selection for the whole controller manager, so that controllers
 * watching the same kind share one cache and one watch, as client-go's shared informer factory
 * does. Informers made before `start` start with it; those made later (the garbage collector
 * discovers kinds as they appear) start at once.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { KubeObject } from '../api/types.ts';
import type { ApiClient, ResourceRef, WatchClient } from './api-client.ts';
import type { Clock } from './clock.ts';
import { ListWatchInformer, type Informer, type InformerOptions } from './informer.ts';

export interface InformerFactory {
  informer<T extends KubeObject>(resource: ResourceRef, options?: InformerOptions): Informer<T>;
  /** Resolves once every informer made so far has listed. */
  synced(): Promise<void>;
}

export class SharedInformerFactory implements InformerFactory {
  private readonly informers = new Map<string, ListWatchInformer<KubeObject>>();
  private started = false;

  constructor(
    private readonly kubeconfig: KubeConfig,
    private readonly api: ApiClient & WatchClient,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  informer<T extends KubeObject>(resource: ResourceRef, options: InformerOptions = {}): Informer<T> {
    const key = JSON.stringify([resource.group, resource.version, resource.resource, options.namespace, options.fieldSelector, options.labelSelector]);
    let informer = this.informers.get(key);
    if (!informer) {
      informer = new ListWatchInformer<KubeObject>(this.kubeconfig, this.api, resource, options, this.clock, this.logger);
      this.informers.set(key, informer);
      if (this.started) void informer.start();
    }
    // One cache serves every T asked of this resource: the caller names the kind it holds.
    return informer as Informer<KubeObject> as Informer<T>;
  }

  async synced(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.synced()));
  }

  start(): void {
    this.started = true;
    for (const informer of this.informers.values()) void informer.start();
  }

  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
    this.informers.clear();
  }
}
