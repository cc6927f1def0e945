/**
 * Fakes for unit tests of API clients' users (controllers, the node agent): an informer whose cache
 * the test fills and changes by hand, and an API client that records every call (the "exact
 * actions" a test asserts) and answers through reactors. No process, no network, no timers.
 */
import { notFound } from '../api/errors.ts';
import { deepCopy, type KubeList, type KubeObject } from '../api/types.ts';
import type { ApiClient, PatchType, Query, ResourceRef } from './api-client.ts';
import type { InformerFactory } from './informer-factory.ts';
import { objectKey, splitKey, type Informer, type InformerHandlers, type InformerOptions } from './informer.ts';

export class FakeInformer<T extends KubeObject> implements Informer<T> {
  private readonly objects = new Map<string, T>();
  private readonly handlers: InformerHandlers<T>[] = [];

  constructor(initial: T[] = []) {
    for (const obj of initial) this.objects.set(objectKey(obj), obj);
  }

  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  list(namespace?: string): T[] {
    return [...this.objects.values()].filter((o) => namespace === undefined || (o.metadata.namespace ?? '') === namespace);
  }

  on(handlers: InformerHandlers<T>): void {
    this.handlers.push(handlers);
    // A new handler hears about what is already cached, as a shared informer's late handler does.
    for (const obj of this.objects.values()) handlers.add?.(obj);
  }

  synced(): Promise<void> {
    return Promise.resolve();
  }

  /** Adds or replaces `obj`, calling the add or update handlers. */
  set(obj: T): void {
    const key = objectKey(obj);
    const existed = this.objects.has(key);
    this.objects.set(key, obj);
    for (const h of this.handlers) {
      if (existed) h.update?.(obj);
      else h.add?.(obj);
    }
  }

  remove(key: string): void {
    const obj = this.objects.get(key);
    if (!obj) return;
    this.objects.delete(key);
    for (const h of this.handlers) h.delete?.(obj);
  }
}

/** Hands out one FakeInformer per resource (by plural name and namespace); tests pre-fill them through `of`. */
export class FakeInformerFactory implements InformerFactory {
  private readonly informers = new Map<string, FakeInformer<KubeObject>>();

  informer<T extends KubeObject>(resource: ResourceRef, options: InformerOptions = {}): Informer<T> {
    return this.of<T>(resource.resource, options.namespace);
  }

  synced(): Promise<void> {
    return Promise.resolve();
  }

  of<T extends KubeObject>(resource: string, namespace?: string): FakeInformer<T> {
    const key = `${resource}/${namespace ?? ''}`;
    let informer = this.informers.get(key);
    if (!informer) {
      informer = new FakeInformer<KubeObject>();
      this.informers.set(key, informer);
    }
    return informer as FakeInformer<T>;
  }
}

export interface ApiAction {
  verb: 'get' | 'list' | 'create' | 'update' | 'patch' | 'delete';
  path: string;
  body?: unknown;
  query?: Query;
  patchType?: PatchType;
}

/** A reactor answers an action it recognises (a value, or by throwing), or returns undefined to pass. */
export type Reactor = (action: ApiAction) => unknown;

/**
 * Records every call. Unanswered calls: create, update and patch return their body, delete an
 * empty Status, list an empty list, get a NotFound.
 */
export class RecordingApiClient implements ApiClient {
  readonly actions: ApiAction[] = [];
  private readonly reactors: Reactor[] = [];

  /** Adds a reactor, tried before those added earlier. */
  react(reactor: Reactor): void {
    this.reactors.unshift(reactor);
  }

  /** The actions other than reads, as `VERB path` lines: what a controller did. */
  writes(): string[] {
    return this.actions.filter((a) => a.verb !== 'get' && a.verb !== 'list').map((a) => `${a.verb.toUpperCase()} ${a.path}`);
  }

  get<T extends KubeObject>(path: string, query?: Query): Promise<T> {
    return this.call({ verb: 'get', path, query }, () => {
      const name = splitKey(path.split('/').slice(-1)[0] ?? '').name;
      throw notFound({ group: '', resource: path.split('/').slice(-2)[0] ?? '' }, name);
    });
  }

  list<T extends KubeObject>(path: string, query?: Query): Promise<KubeList<T>> {
    return this.call({ verb: 'list', path, query }, () => ({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '1' }, items: [] }));
  }

  create<T extends KubeObject>(path: string, body: KubeObject, query?: Query): Promise<T> {
    return this.call({ verb: 'create', path, body: deepCopy(body), query }, () => deepCopy(body));
  }

  update<T extends KubeObject>(path: string, body: KubeObject, query?: Query): Promise<T> {
    return this.call({ verb: 'update', path, body: deepCopy(body), query }, () => deepCopy(body));
  }

  patch<T extends KubeObject>(path: string, type: PatchType, body: unknown, query?: Query): Promise<T> {
    return this.call({ verb: 'patch', path, body: deepCopy(body), query, patchType: type }, () => deepCopy(body));
  }

  delete(path: string, options?: Record<string, unknown>, query?: Query): Promise<unknown> {
    return this.call({ verb: 'delete', path, body: options, query }, () => ({ kind: 'Status', apiVersion: 'v1', status: 'Success', metadata: {} }));
  }

  private async call<R>(action: ApiAction, fallback: () => unknown): Promise<R> {
    this.actions.push(action);
    await Promise.resolve();
    for (const reactor of this.reactors) {
      const answer = reactor(action);
      if (answer !== undefined) return answer as R;
    }
    return fallback() as R;
  }
}

/** Resolves once pending promise callbacks and immediates have run: lets workers finish what the test started. */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}
