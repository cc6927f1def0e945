/**
 * Informers: a cache of one resource kept in step with the API by @kubernetes/client-node's
 * ListWatch (list, then watch from the list's resourceVersion; a 410 re-lists), with event
 * handlers that feed work queues. ListWatch stops at the first connection error and leaves the
 * restart to its owner: here it restarts with a capped back-off, so an API server restart or
 * fail-over costs a re-list, never a stopped controller.
 *
 * Controllers see the Informer interface only (a cache plus handlers), so their tests fill a
 * FakeInformer (testing.ts) instead of running an API.
 */
import { ListWatch, type KubeConfig, type KubernetesObject, type Watch } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { KubeObject } from '../api/types.ts';
import type { ApiClient, ResourceRef, WatchClient } from './api-client.ts';
import { resourcePath } from './api-client.ts';
import { sleep, type Clock } from './clock.ts';

/*
 * client-node declares ListWatch's objects as its models (timestamps as Date), but ListWatch
 * stores and hands back what it was given: wire JSON, from our list and from its own watch, with
 * string timestamps. These two functions are the one place where the two views meet.
 */
function toClientNode(obj: KubeObject): KubernetesObject {
  return obj as unknown as KubernetesObject;
}

function fromClientNode<T extends KubeObject>(obj: KubernetesObject): T {
  return obj as unknown as T;
}

/** `namespace/name` for namespaced objects, `name` otherwise: the work-queue key of an object. */
export function objectKey(obj: KubeObject): string {
  const ns = obj.metadata.namespace;
  return ns ? `${ns}/${obj.metadata.name ?? ''}` : (obj.metadata.name ?? '');
}

/** The namespace (empty for cluster-scoped) and name in a key made by objectKey. */
export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export interface InformerHandlers<T extends KubeObject> {
  add?(obj: T): void;
  update?(obj: T): void;
  delete?(obj: T): void;
}

/** A read-only cache of one resource, with handlers called on every change it sees. */
export interface Informer<T extends KubeObject> {
  /** The cached object under `key` (objectKey's form). */
  get(key: string): T | undefined;
  /** Every cached object, or those of one namespace. */
  list(namespace?: string): T[];
  on(handlers: InformerHandlers<T>): void;
  /** Resolves once the first list is in the cache. */
  synced(): Promise<void>;
}

export interface InformerOptions {
  /** Only this namespace's objects. */
  namespace?: string;
  fieldSelector?: string;
  labelSelector?: string;
}

/** An Informer over ListWatch: one per resource and selection, shared by every controller that needs it. */
export class ListWatchInformer<T extends KubeObject> implements Informer<T> {
  private readonly listWatch: ListWatch<KubernetesObject>;
  private readonly handlers: InformerHandlers<T>[] = [];
  private readonly firstSync: Promise<void>;
  private markSynced: () => void = () => {};
  private stopped = false;
  /** Failed starts since the last successful list, for the back-off. */
  private failures = 0;

  constructor(
    kubeconfig: KubeConfig,
    api: ApiClient & WatchClient,
    readonly resource: ResourceRef,
    private readonly options: InformerOptions,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    const path = resourcePath(resource, options.namespace);
    const query = { fieldSelector: options.fieldSelector, labelSelector: options.labelSelector };
    const list = async (): Promise<{ metadata?: { resourceVersion?: string }; items: KubernetesObject[] }> => {
      const result = await api.list<T>(path, query);
      return { metadata: { resourceVersion: result.metadata.resourceVersion ?? '' }, items: result.items.map(toClientNode) };
    };
    // The client's own watch, on its one connection, stands in for client-node's (a connection per watch).
    const watch: Watch = { config: kubeconfig, watch: (watchPath, params, onEvent, done) => api.watch(watchPath, params, onEvent, done) };
    this.listWatch = new ListWatch(path, watch, list, false, options.labelSelector, options.fieldSelector);
    this.firstSync = new Promise((resolve) => (this.markSynced = resolve));
    this.listWatch.on('add', (obj) => this.emit('add', obj));
    this.listWatch.on('update', (obj) => this.emit('update', obj));
    this.listWatch.on('delete', (obj) => this.emit('delete', obj));
    this.listWatch.on('error', (err) => void this.restart(err));
  }

  get(key: string): T | undefined {
    const { namespace, name } = splitKey(key);
    const obj = this.listWatch.get(name, namespace || undefined);
    return obj && fromClientNode<T>(obj);
  }

  list(namespace?: string): T[] {
    return this.listWatch.list(namespace).map((obj) => fromClientNode<T>(obj));
  }

  on(handlers: InformerHandlers<T>): void {
    this.handlers.push(handlers);
  }

  synced(): Promise<void> {
    return this.firstSync;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.listWatch.stop();
  }

  /**
   * One start of ListWatch. Its failures (list or watch) arrive as 'error' events, never as a
   * rejection, and leave it stopped; the list succeeded when it holds a resourceVersion.
   */
  private async run(): Promise<void> {
    try {
      await this.listWatch.start();
    } catch (err) {
      await this.restart(err);
      return;
    }
    if (this.listWatch.latestResourceVersion()) {
      this.failures = 0;
      this.markSynced();
    }
  }

  /** ListWatch stopped on an error: start again after a capped back-off (re-listing when its resourceVersion is gone). */
  private async restart(err: unknown): Promise<void> {
    if (this.stopped) return;
    const delay = Math.min(30_000, 500 * 2 ** this.failures++);
    this.logger.info(
      { err: err instanceof Error ? err.message : String(err), resource: this.describe(), delayMs: delay },
      'informer list or watch failed; restarting',
    );
    await sleep(this.clock, delay);
    if (!this.stopped) await this.run();
  }

  private emit(event: keyof InformerHandlers<T>, obj: KubernetesObject): void {
    for (const handlers of this.handlers) {
      try {
        handlers[event]?.(fromClientNode<T>(obj));
      } catch (err) {
        this.logger.error({ err, resource: this.describe() }, 'informer event handler failed');
      }
    }
  }

  private describe(): string {
    const { group, resource } = this.resource;
    return `${group ? `${resource}.${group}` : resource}${this.options.namespace ? ` in ${this.options.namespace}` : ''}`;
  }
}
