import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceCache, type CacheEvent } from './watch-cache.ts';
import type { StoredValue } from '../etcd/store.ts';

const prefix = '/registry/configmaps/';

function value(name: string, revision: number): StoredValue {
  return { object: { metadata: { name, namespace: 'ns', resourceVersion: String(revision) } }, modRevision: revision };
}

function put(name: string, revision: number, ns = 'ns'): CacheEvent {
  return { type: 'put', key: `${prefix}${ns}/${name}`, value: value(name, revision), previous: null, revision };
}

function del(name: string, revision: number): CacheEvent {
  const last = value(name, revision);
  return { type: 'delete', key: `${prefix}ns/${name}`, value: last, previous: last, revision };
}

describe('ResourceCache', () => {
  it('keeps objects in key order and forgets deleted ones', () => {
    const cache = new ResourceCache(prefix);
    cache.reset([], [], 1);
    cache.apply(put('b', 2));
    cache.apply(put('a', 3));
    cache.apply(put('c', 4, 'other'));
    cache.apply(del('b', 5));
    assert.deepEqual(
      cache.list(prefix).map((v) => v.object.metadata.name),
      ['a', 'c'],
    );
    assert.deepEqual(
      cache.list(`${prefix}ns/`).map((v) => v.object.metadata.name),
      ['a'],
    );
    assert.equal(cache.get(`${prefix}ns/b`), undefined);
  });

  it('replays history after a revision, then streams, each event once and in order', () => {
    const cache = new ResourceCache(prefix);
    cache.reset([], [], 1);
    for (let r = 2; r <= 6; r++) cache.apply(put(`o${r}`, r));
    const seen: number[] = [];
    const sub = cache.subscribe(prefix, 3, { onEvent: (e) => seen.push(e.revision), onClose: () => {} });
    cache.apply(put('late', 7));
    sub.cancel();
    cache.apply(put('after-cancel', 8));
    assert.deepEqual(seen, [4, 5, 6, 7]);
  });

  it('filters by key prefix (namespace)', () => {
    const cache = new ResourceCache(prefix);
    cache.reset([], [], 1);
    const seen: string[] = [];
    cache.subscribe(`${prefix}ns/`, 1, { onEvent: (e) => seen.push(String(e.value.object.metadata.name)), onClose: () => {} });
    cache.apply(put('in', 2));
    cache.apply(put('out', 3, 'other'));
    assert.deepEqual(seen, ['in']);
  });

  it('knows which revisions it can resume from once history is trimmed', () => {
    const cache = new ResourceCache(prefix, 3);
    cache.reset([], [], 10);
    assert.equal(cache.canResumeFrom(10), true);
    assert.equal(cache.canResumeFrom(9), false);
    for (let r = 11; r <= 15; r++) cache.apply(put(`o${r}`, r));
    // History holds 13..15: resuming after 12 replays all of them, after 11 would miss 12.
    assert.equal(cache.canResumeFrom(12), true);
    assert.equal(cache.canResumeFrom(11), false);
  });

  it('closes subscribers when it is re-initialized', () => {
    const cache = new ResourceCache(prefix);
    cache.reset([], [], 1);
    let closed = '';
    cache.subscribe(prefix, 1, { onEvent: () => {}, onClose: (reason) => (closed = reason) });
    cache.reset([], [], 20);
    assert.match(closed, /re-initialized/);
    assert.equal(cache.subscriberCount, 0);
  });
});
