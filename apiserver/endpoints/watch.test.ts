/**
 * The watch verb in process: watchRequest on a GenericStore over the in-memory etcd (no watch
 * cache, so the store watches storage directly), frames collected from a fake stream. Which events
 * follow a resourceVersion, the initial events and their closing bookmark, 410 Expired for a
 * compacted version, selections entered and left, and the release of the storage watch.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../shared/api/errors.ts';
import type { KubeObject } from '../../shared/api/types.ts';
import { AdmissionChain } from '../admission/admission.ts';
import { configMapDefinition } from '../registry/core/configmap.ts';
import type { RequestContext } from '../registry/definition.ts';
import { GenericStore, type Transform, type WriteOptions } from '../registry/store.ts';
import { MemoryEtcd } from '../testing/memory-etcd.ts';
import { waitFor } from '../testing/wait-for.ts';
import { watchRequest, type WatchStream } from './watch.ts';

interface Frame {
  type: string;
  object: KubeObject & { code?: number; reason?: string; message?: string };
}

/** A client's end of a watch: every frame it got, decoded, and whether the server ended it. */
class FakeStream implements WatchStream {
  readonly frames: Frame[] = [];
  ended = false;
  private readonly closeHandlers: (() => void)[] = [];

  write(frame: Uint8Array): boolean {
    if (this.ended) return false;
    this.frames.push(JSON.parse(Buffer.from(frame).toString('utf8')) as Frame);
    return true;
  }

  end(): void {
    this.ended = true;
  }

  onClose(handler: () => void): void {
    this.closeHandlers.push(handler);
  }

  /** The client goes away. */
  close(): void {
    for (const handler of this.closeHandlers) handler();
  }

  /** [type, name, resourceVersion] of each frame. */
  summary(): [string, string, string][] {
    return this.frames.map((f) => [f.type, f.object.metadata?.name ?? '', f.object.metadata?.resourceVersion ?? '']);
  }
}

const ctx: RequestContext = { user: { username: 'admin', groups: ['system:masters'] }, now: new Date() };
const write: WriteOptions = { dryRun: false, manager: 'test' };
const configMap = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data: { a: '1' },
});
const relabel =
  (labels: Record<string, string>): Transform =>
  (current) => ({ ...(current ?? configMap('x')), metadata: { ...current?.metadata, labels } });
const annotate =
  (value: string): Transform =>
  (current) => ({ ...(current ?? configMap('x')), metadata: { ...current?.metadata, annotations: { v: value } } });

function setup(): { storage: MemoryEtcd; store: GenericStore; watch: (query: string, accept?: string) => Promise<FakeStream> } {
  const storage = new MemoryEtcd();
  const store = new GenericStore(configMapDefinition, storage, new AdmissionChain([]));
  const watch = async (query: string, accept = 'application/json'): Promise<FakeStream> => {
    const stream = new FakeStream();
    await watchRequest(configMapDefinition, store, 'default', new URLSearchParams(query), accept).start(stream);
    return stream;
  };
  return { storage, store, watch };
}

const rv = (obj: KubeObject): string => obj.metadata.resourceVersion ?? '';
const until = (stream: FakeStream, count: number): Promise<boolean> =>
  waitFor(`${count} watch frames`, () => stream.frames.length >= count, { timeoutMs: 5_000, intervalMs: 2 });

describe('watchRequest', () => {
  it('streams every change after the resourceVersion, and nothing before it', async () => {
    const { store, watch } = setup();
    const a = await store.create('default', configMap('a'), ctx, write);
    const b = await store.create('default', configMap('b'), ctx, write);
    const stream = await watch(`resourceVersion=${rv(a)}`);
    const modified = await store.update('default', 'a', '', annotate('1'), ctx, write);
    const deleted = await store.delete('default', 'b', ctx, { dryRun: false });
    await until(stream, 3);
    const deletion = String(Number(rv(modified.object)) + 1);
    assert.deepEqual(stream.summary(), [
      ['ADDED', 'b', rv(b)],
      ['MODIFIED', 'a', rv(modified.object)],
      ['DELETED', 'b', deletion],
    ]);
    assert.equal(stream.frames[2]?.object.metadata.uid, deleted.object.metadata.uid);
    assert.equal(stream.frames[1]?.object.metadata.annotations?.['v'], '1');
    assert.equal(stream.frames[1]?.object.kind, 'ConfigMap');
    assert.equal(stream.ended, false);
    stream.close();
  });

  it('sends the state first without a resourceVersion, closed by the initial-events-end bookmark', async () => {
    const { store, storage, watch } = setup();
    const a = await store.create('default', configMap('a'), ctx, write);
    await store.create('other', configMap('elsewhere'), ctx, write);
    const stream = await watch('allowWatchBookmarks=true');
    const listed = String(await storage.currentRevision());
    const b = await store.create('default', configMap('b'), ctx, write);
    await until(stream, 3);
    assert.deepEqual(stream.summary(), [
      ['ADDED', 'a', rv(a)],
      ['BOOKMARK', '', listed],
      ['ADDED', 'b', rv(b)],
    ]);
    assert.deepEqual(stream.frames[1]?.object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
    stream.close();
  });

  it('ends a watch from a compacted resourceVersion with an ERROR event: 410 Expired', async () => {
    const { store, storage, watch } = setup();
    const created = await store.create('default', configMap('old'), ctx, write);
    await store.update('default', 'old', '', annotate('1'), ctx, write);
    await store.update('default', 'old', '', annotate('2'), ctx, write);
    storage.compact();
    const stream = await watch(`resourceVersion=${rv(created)}`);
    assert.equal(stream.frames.length, 1);
    const [error] = stream.frames;
    assert.equal(error?.type, 'ERROR');
    assert.equal(error?.object.code, 410);
    assert.equal(error?.object.reason, 'Expired');
    assert.match(error?.object.message ?? '', new RegExp(`^too old resource version: ${rv(created)} \\(\\d+\\)$`));
    assert.equal(stream.ended, true);
    assert.equal(storage.openWatches, 0);
  });

  it('turns entering and leaving a label selection into ADDED and DELETED', async () => {
    const { store, storage, watch } = setup();
    await store.create('default', configMap('sel'), ctx, write);
    const stream = await watch(`resourceVersion=${await storage.currentRevision()}&labelSelector=app%3Dweb`);
    const entered = await store.update('default', 'sel', '', relabel({ app: 'web' }), ctx, write);
    const changed = await store.update('default', 'sel', '', relabel({ app: 'web', more: 'x' }), ctx, write);
    const left = await store.update('default', 'sel', '', relabel({ app: 'db' }), ctx, write);
    await until(stream, 3);
    assert.deepEqual(stream.summary(), [
      ['ADDED', 'sel', rv(entered.object)],
      ['MODIFIED', 'sel', rv(changed.object)],
      ['DELETED', 'sel', rv(left.object)],
    ]);
    // Leaving: the last state that matched, at the version that left.
    assert.deepEqual(stream.frames[2]?.object.metadata.labels, { app: 'web', more: 'x' });
    stream.close();
  });

  it('sends a bookmark at the last version shortly before its timeout', async () => {
    const { store, watch } = setup();
    const created = await store.create('default', configMap('bm'), ctx, write);
    // A 2 s watch gets its before-timeout bookmark at once (2 s before its end).
    const stream = await watch(`resourceVersion=${rv(created)}&allowWatchBookmarks=true&timeoutSeconds=2`);
    await until(stream, 1);
    assert.deepEqual(stream.summary(), [['BOOKMARK', '', rv(created)]]);
    stream.close();
  });

  it('releases the storage watch when the client goes away, and delivers nothing more', async () => {
    const { store, storage, watch } = setup();
    const stream = await watch(`resourceVersion=${await storage.currentRevision()}`);
    assert.equal(storage.openWatches, 1);
    stream.close();
    await waitFor('the storage watch to be cancelled', () => storage.openWatches === 0, { timeoutMs: 5_000, intervalMs: 2 });
    await store.create('default', configMap('late'), ctx, write);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(stream.frames, []);
  });

  it('refuses YAML with 406 and invalid options with 422 before it watches', () => {
    const { store, storage } = setup();
    const refused = (query: string, accept: string): unknown => {
      try {
        watchRequest(configMapDefinition, store, 'default', new URLSearchParams(query), accept);
      } catch (err) {
        return err;
      }
      return assert.fail('the watch was accepted');
    };
    assert.ok(isStatusError(refused('', 'application/yaml'), 'NotAcceptable'));
    const invalid = refused('resourceVersionMatch=NotOlderThan', 'application/json');
    assert.ok(isStatusError(invalid, 'Invalid'));
    assert.equal(
      invalid.status.message,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    );
    assert.equal(
      watchRequest(configMapDefinition, store, 'default', new URLSearchParams(), 'application/vnd.kubernetes.protobuf').contentType,
      'application/vnd.kubernetes.protobuf;stream=watch',
    );
    assert.equal(storage.openWatches, 0);
  });
});
