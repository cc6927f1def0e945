/**
 * Watch end to end, against one API server process (on the embedded store; etcd with CORRAL_E2E_STORAGE=etcd): the event types and what each
 * carries, bookmarks, selectors (objects entering and leaving a selection), timeoutSeconds, streaming
 * the initial state (sendInitialEvents), exactly-once delivery under concurrent writers for watchers
 * started at different revisions, resuming a cut watch, protobuf watch frames, and kubectl's
 * `get -w` and `--chunk-size`.
 *
 * The expected event sequence is always built from the writes' own answers (each carries the
 * revision etcd gave it), never from the server's watch code. Waits have generous deadlines that
 * only turn a hang into a failure; nothing asserts how long anything took.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { configMapDefinition } from '../apiserver/registry/core/configmap.ts';
import { createTestClient, type TestClient, type TestResponse } from '../apiserver/testing/client.ts';
import {
  openProtobufWatch,
  openWatch,
  revisionOf,
  WATCH_WAIT_MS,
  type WatchConnection,
  type WatchEvent,
  type WatchTls,
} from '../apiserver/testing/watch-stream.ts';
import { decodeObject } from '../shared/codec/protobuf/object.ts';
import { waitFor } from '../apiserver/testing/wait-for.ts';
import { adminTls, kubectlEnv, startCluster, type Cluster } from './harness.ts';

let cluster: Cluster;
let client: TestClient;
let tls: WatchTls;
let url = '';

const mergePatch = { 'content-type': 'application/merge-patch+json' };

function expectCode(res: TestResponse, code: number): void {
  assert.equal(res.status, code, `expected ${code}, got ${res.status}: ${res.text}`);
}

const cms = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`;

async function createNamespace(name: string): Promise<void> {
  expectCode(await client.request('POST', '/api/v1/namespaces', { metadata: { name } }), 201);
}

/** The current list resourceVersion of a collection: where a watch that must miss nothing starts. */
async function listRevision(path: string): Promise<number> {
  const res = await client.request('GET', path);
  expectCode(res, 200);
  return Number(res.body.metadata?.resourceVersion);
}

interface Written {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  name: string;
  rv: number;
}

async function createCm(ns: string, name: string, data: Record<string, string> = {}, labels?: Record<string, string>): Promise<Written & { uid: string }> {
  const res = await client.request('POST', cms(ns), { metadata: { name, ...(labels ? { labels } : {}) }, data });
  expectCode(res, 201);
  return { type: 'ADDED', name, rv: Number(res.body.metadata?.resourceVersion), uid: res.body.metadata?.uid ?? '' };
}

async function patchCm(ns: string, name: string, patch: unknown): Promise<Written> {
  const res = await client.request('PATCH', `${cms(ns)}/${name}`, patch, mergePatch);
  expectCode(res, 200);
  return { type: 'MODIFIED', name, rv: Number(res.body.metadata?.resourceVersion) };
}

async function deleteCm(ns: string, name: string): Promise<void> {
  expectCode(await client.request('DELETE', `${cms(ns)}/${name}`), 200);
}

const watch = (path: string): Promise<WatchConnection<WatchEvent>> => openWatch(url, tls, path);

function summary(events: readonly WatchEvent[]): [string, string | undefined, number][] {
  return events.map((e) => [e.type, e.object.metadata?.name, revisionOf(e)]);
}

/** A bookmark names only a resourceVersion (and, at the end of initial events, that annotation). */
function assertBookmarkShape(event: WatchEvent): void {
  assert.equal(event.type, 'BOOKMARK');
  assert.equal(event.object.kind, 'ConfigMap');
  assert.equal(event.object.apiVersion, 'v1');
  assert.match(event.object.metadata.resourceVersion ?? '', /^\d+$/);
  const extra = Object.keys(event.object.metadata).filter((k) => !['resourceVersion', 'annotations', 'creationTimestamp'].includes(k));
  assert.deepEqual(extra, [], 'a bookmark carries no other metadata');
  assert.equal(event.object.data, undefined);
}

before(
  async () => {
    cluster = await startCluster();
    url = cluster.urls[0] ?? '';
    tls = adminTls(cluster.dataDir);
    client = createTestClient(url, cluster.dataDir);
  },
  { timeout: 120_000 },
);
after(async () => {
  client?.close();
  await cluster?.stop();
});

describe('event types', () => {
  const ns = 'watch-types';
  before(() => createNamespace(ns));

  it('ADDED, MODIFIED, MODIFIED, DELETED in order; DELETED carries the last state at the deletion revision', async () => {
    const start = await listRevision(cms(ns));
    const w = await watch(`${cms(ns)}?watch=1&resourceVersion=${start}`);
    try {
      assert.equal(w.status, 200);
      assert.match(String(w.headers['content-type']), /^application\/json/);
      assert.equal(w.headers['transfer-encoding'], 'chunked');
      const created = await createCm(ns, 'x', { v: '1' });
      const m1 = await patchCm(ns, 'x', { data: { v: '2' } });
      const m2 = await patchCm(ns, 'x', { data: { v: '3' }, metadata: { labels: { last: 'state' } } });
      await deleteCm(ns, 'x');
      await w.waitFor((events) => events.length >= 4, '4 events');
      assert.deepEqual(
        w.events.slice(0, 3).map((e) => [e.type, e.object.metadata.name, revisionOf(e), e.object.data]),
        [
          ['ADDED', 'x', created.rv, { v: '1' }],
          ['MODIFIED', 'x', m1.rv, { v: '2' }],
          ['MODIFIED', 'x', m2.rv, { v: '3' }],
        ],
      );
      const deleted = w.events[3];
      assert.ok(deleted);
      assert.equal(deleted.type, 'DELETED');
      assert.equal(deleted.object.kind, 'ConfigMap');
      assert.equal(deleted.object.apiVersion, 'v1');
      assert.equal(deleted.object.metadata.uid, created.uid);
      assert.deepEqual(deleted.object.data, { v: '3' });
      assert.deepEqual(deleted.object.metadata.labels, { last: 'state' });
      assert.ok(revisionOf(deleted) > m2.rv, 'the deletion has its own, newer revision');
      for (const e of w.events) {
        assert.equal(e.object.kind, 'ConfigMap');
        assert.equal(e.object.apiVersion, 'v1');
      }
    } finally {
      w.close();
    }
  });

  it('with a finalizer: the delete is MODIFIED (deletionTimestamp set), removing the last finalizer is DELETED', async () => {
    const start = await listRevision(cms(ns));
    const w = await watch(`${cms(ns)}?watch=1&resourceVersion=${start}`);
    try {
      const created = await client.request('POST', cms(ns), { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
      expectCode(created, 201);
      const deleting = await client.request('DELETE', `${cms(ns)}/held`);
      expectCode(deleting, 200);
      await patchCm(ns, 'held', { metadata: { finalizers: null } });
      await w.waitFor((events) => events.length >= 3, '3 events');
      assert.deepEqual(
        summary(w.events).map(([type, name]) => [type, name]),
        [
          ['ADDED', 'held'],
          ['MODIFIED', 'held'],
          ['DELETED', 'held'],
        ],
      );
      const [, marked, gone] = w.events as [WatchEvent, WatchEvent, WatchEvent];
      assert.equal(revisionOf(marked), Number(deleting.body.metadata?.resourceVersion));
      assert.ok(marked.object.metadata.deletionTimestamp);
      assert.ok(revisionOf(gone) > revisionOf(marked));
      // Upstream removes the stored object without writing the finalizer-less state first.
      assert.deepEqual(gone.object.metadata.finalizers, ['example.com/hold']);
      assert.equal(gone.object.metadata.deletionTimestamp, marked.object.metadata.deletionTimestamp);
    } finally {
      w.close();
    }
  });

  it('a watch across all namespaces sees every namespace', async () => {
    const other = 'watch-types-other';
    await createNamespace(other);
    const start = await listRevision('/api/v1/configmaps');
    const w = await watch(`/api/v1/configmaps?watch=1&resourceVersion=${start}`);
    try {
      const a = await createCm(ns, 'everywhere');
      const b = await createCm(other, 'everywhere');
      await w.waitFor((events) => events.length >= 2, '2 events');
      assert.deepEqual(
        w.events.map((e) => [e.type, e.object.metadata.namespace, e.object.metadata.name, revisionOf(e)]),
        [
          ['ADDED', ns, 'everywhere', a.rv],
          ['ADDED', other, 'everywhere', b.rv],
        ],
      );
    } finally {
      w.close();
    }
  });

  it('timeoutSeconds ends the stream without an error', async () => {
    const start = await listRevision(cms(ns));
    const w = await watch(`${cms(ns)}?watch=1&resourceVersion=${start}&timeoutSeconds=1`);
    try {
      await w.done;
      assert.deepEqual(w.events, []);
    } finally {
      w.close();
    }
  });

  it('timeoutSeconds=0 means the server default, not an immediate end', {}, async () => {
    const start = await listRevision(cms(ns));
    const w = await watch(`${cms(ns)}?watch=1&resourceVersion=${start}&timeoutSeconds=0`);
    try {
      const created = await createCm(ns, 'timeout-zero');
      await w.waitFor((events) => events.length >= 1, 'the ADDED event');
      assert.deepEqual(summary(w.events), [['ADDED', 'timeout-zero', created.rv]]);
    } finally {
      w.close();
    }
  });

  it('allowWatchBookmarks: a BOOKMARK with only metadata.resourceVersion, at the latest before the watch times out', async () => {
    const start = await listRevision(cms(ns));
    const w = await watch(`${cms(ns)}?watch=1&resourceVersion=${start}&allowWatchBookmarks=true&timeoutSeconds=5`);
    try {
      await w.done;
      const bookmarks = w.events.filter((e) => e.type === 'BOOKMARK');
      assert.ok(bookmarks.length >= 1, `no BOOKMARK in ${JSON.stringify(summary(w.events))}`);
      for (const b of bookmarks) {
        assertBookmarkShape(b);
        assert.ok(revisionOf(b) >= start);
        assert.equal(b.object.metadata.annotations, undefined);
      }
    } finally {
      w.close();
    }
  });
});

describe('sendInitialEvents', () => {
  const ns = 'watch-initial';
  const names = ['i-a', 'i-b', 'i-c'];
  let written: Written[] = [];
  before(async () => {
    await createNamespace(ns);
    written = [];
    for (const name of names) written.push(await createCm(ns, name, { v: name }));
  });

  /** The ADDED events, the end-of-initial-events bookmark, and what follows it. */
  async function initialEvents(w: WatchConnection<WatchEvent>): Promise<{ added: WatchEvent[]; bookmark: WatchEvent }> {
    await w.waitFor((events) => events.some((e) => e.type === 'BOOKMARK' || e.type === 'ERROR'), 'the initial-events-end BOOKMARK');
    const at = w.events.findIndex((e) => e.type === 'BOOKMARK' || e.type === 'ERROR');
    const bookmark = w.events[at];
    assert.ok(bookmark && bookmark.type === 'BOOKMARK', JSON.stringify(bookmark));
    return { added: w.events.slice(0, at), bookmark };
  }

  function assertInitialEventsEnd(bookmark: WatchEvent): void {
    assertBookmarkShape(bookmark);
    assert.deepEqual(bookmark.object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
  }

  const current = async (): Promise<[string, number][]> => {
    const res = await client.request('GET', cms(ns));
    return (res.body.items ?? []).map((i) => [i.metadata.name ?? '', Number(i.metadata.resourceVersion)]);
  };

  for (const rv of ['unset', '0', 'a version'] as const) {
    it(`resourceVersion ${rv}: synthetic ADDED for every object, a BOOKMARK annotated k8s.io/initial-events-end, then changes`, async () => {
      const before = await listRevision(cms(ns));
      const param = rv === 'unset' ? '' : rv === '0' ? '&resourceVersion=0' : `&resourceVersion=${written[0]?.rv}`;
      const w = await watch(`${cms(ns)}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true${param}`);
      try {
        assert.equal(w.status, 200, w.text);
        const { added, bookmark } = await initialEvents(w);
        assert.ok(added.every((e) => e.type === 'ADDED'));
        const state = await current();
        assert.deepEqual(
          added.map((e) => [e.object.metadata.name, revisionOf(e)]),
          state,
          'the ADDED events are the current objects',
        );
        assertInitialEventsEnd(bookmark);
        for (const e of added) assert.ok(revisionOf(bookmark) >= revisionOf(e));
        if (rv === 'unset') assert.ok(revisionOf(bookmark) >= before, 'a consistent start: at least as new as the request');
        if (rv === 'a version') assert.ok(revisionOf(bookmark) >= (written[0]?.rv ?? 0));
        const change = await patchCm(ns, 'i-a', { data: { v: `after-${rv}` } });
        await w.waitFor((events) => events.some((e) => revisionOf(e) === change.rv), 'the change after the bookmark');
        assert.deepEqual(
          summary(w.events.slice(added.length + 1)).filter(([type]) => type !== 'BOOKMARK'),
          [['MODIFIED', 'i-a', change.rv]],
        );
      } finally {
        w.close();
      }
    });
  }

  it('without allowWatchBookmarks: the initial ADDED events, no bookmark, then changes', {}, async () => {
    const w = await watch(`${cms(ns)}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`);
    try {
      assert.equal(w.status, 200, w.text);
      const state = await current();
      await w.waitFor((events) => events.length >= state.length, `${state.length} ADDED events`);
      const change = await patchCm(ns, 'i-b', { data: { v: 'no-bookmarks' } });
      await w.waitFor((events) => events.some((e) => revisionOf(e) === change.rv), 'the change');
      assert.deepEqual(summary(w.events), [...state.map(([name, r]): [string, string, number] => ['ADDED', name, r]), ['MODIFIED', 'i-b', change.rv]]);
    } finally {
      w.close();
    }
  });

  for (const rv of ['unset', '0'] as const) {
    it(`sendInitialEvents=false, resourceVersion ${rv}: no synthetic events, only changes from now on`, {}, async () => {
      const param = rv === '0' ? '&resourceVersion=0' : '';
      const w = await watch(`${cms(ns)}?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true${param}`);
      try {
        assert.equal(w.status, 200, w.text);
        const change = await patchCm(ns, 'i-c', { data: { v: `no-initial-${rv}` } });
        await w.waitFor((events) => events.some((e) => revisionOf(e) === change.rv), 'the change');
        assert.deepEqual(
          summary(w.events).filter(([type]) => type !== 'BOOKMARK'),
          [['MODIFIED', 'i-c', change.rv]],
        );
      } finally {
        w.close();
      }
    });
  }

  it('a plain watch without resourceVersion but with allowWatchBookmarks also ends its initial events with the annotated BOOKMARK', async () => {
    const w = await watch(`${cms(ns)}?watch=1&allowWatchBookmarks=true`);
    try {
      const state = await current();
      await w.waitFor((events) => events.length >= state.length, `${state.length} ADDED events`);
      // A change after the initial events: the bookmark must come before it.
      const change = await patchCm(ns, 'i-c', { data: { v: 'plain-watch' } });
      await w.waitFor((events) => events.some((e) => revisionOf(e) === change.rv), 'the change');
      assert.deepEqual(
        summary(w.events.slice(0, state.length)),
        state.map(([name, r]) => ['ADDED', name, r]),
      );
      const bookmark = w.events[state.length];
      assert.ok(bookmark);
      assert.equal(bookmark.type, 'BOOKMARK', `after the initial events came ${JSON.stringify(summary(w.events.slice(state.length)))}`);
      assertInitialEventsEnd(bookmark);
    } finally {
      w.close();
    }
  });
});

describe('selectors', () => {
  const ns = 'watch-selectors';
  before(() => createNamespace(ns));

  /** Objects moving in and out of `app=in`; what a watch with that selector must report. */
  async function relabelScenario(): Promise<{ expected: [string, string, number][]; start: number; leaveRv: number }> {
    const start = await listRevision(cms(ns));
    const a = await createCm(ns, 'a', { v: '1' }, { app: 'in' });
    await createCm(ns, 'b', { v: '1' }, { app: 'out' });
    const bIn = await patchCm(ns, 'b', { metadata: { labels: { app: 'in' } } });
    const aOut = await patchCm(ns, 'a', { metadata: { labels: { app: 'out' } }, data: { v: '2' } });
    await patchCm(ns, 'a', { data: { v: '3' } });
    const bChanged = await patchCm(ns, 'b', { data: { v: '2' } });
    await deleteCm(ns, 'a');
    await deleteCm(ns, 'b');
    return {
      start,
      leaveRv: aOut.rv,
      expected: [
        ['ADDED', 'a', a.rv],
        ['ADDED', 'b', bIn.rv],
        ['DELETED', 'a', aOut.rv],
        ['MODIFIED', 'b', bChanged.rv],
      ],
    };
  }

  let events: WatchEvent[] = [];
  let scenario: { expected: [string, string, number][]; start: number; leaveRv: number };

  before(async () => {
    const start = await listRevision(cms(ns));
    const w = await watch(`${cms(ns)}?watch=1&resourceVersion=${start}&labelSelector=${encodeURIComponent('app=in')}`);
    try {
      scenario = await relabelScenario();
      await w.waitFor((e) => e.length >= 5, '5 events');
      events = [...w.events];
    } finally {
      w.close();
    }
  });

  it('a label selector: entering the selection is ADDED, leaving it DELETED, changes outside it nothing', () => {
    assert.deepEqual(summary(events.slice(0, 4)), scenario.expected);
    assert.equal(events[4]?.type, 'DELETED');
    assert.equal(events[4]?.object.metadata.name, 'b');
    assert.equal(events.length, 5);
  });

  it('the DELETED event of an object leaving the selection carries its previous state at the new revision', {}, () => {
    const left = events[2];
    assert.ok(left);
    assert.equal(revisionOf(left), scenario.leaveRv);
    assert.deepEqual(left.object.metadata.labels, { app: 'in' });
    assert.deepEqual(left.object.data, { v: '1' });
  });

  it('the initial state of a watch with a label selector has only the selected objects', async () => {
    await createCm(ns, 'init-in', {}, { initial: 'in' });
    await createCm(ns, 'init-out', {}, { initial: 'out' });
    const w = await watch(`${cms(ns)}?watch=1&labelSelector=${encodeURIComponent('initial=in')}`);
    try {
      // The initial state first: a change made before the watch took it would be part of it.
      await w.waitFor((e) => e.some((x) => x.type === 'ADDED' && x.object.metadata.name === 'init-in'), 'the initial ADDED');
      const change = await patchCm(ns, 'init-in', { data: { v: '1' } });
      await w.waitFor((e) => e.some((x) => revisionOf(x) === change.rv), 'the change');
      assert.deepEqual(
        summary(w.events).map(([type, name]) => [type, name]),
        [
          ['ADDED', 'init-in'],
          ['MODIFIED', 'init-in'],
        ],
      );
    } finally {
      w.close();
    }
  });

  it('a field selector on metadata.name sees only that object', async () => {
    const start = await listRevision(cms(ns));
    const w = await watch(`${cms(ns)}?watch=1&resourceVersion=${start}&fieldSelector=${encodeURIComponent('metadata.name=f-1')}`);
    try {
      await createCm(ns, 'f-0');
      const f1 = await createCm(ns, 'f-1');
      await patchCm(ns, 'f-0', { data: { v: 'x' } });
      const f1m = await patchCm(ns, 'f-1', { data: { v: 'x' } });
      await w.waitFor((e) => e.length >= 2, '2 events');
      assert.deepEqual(summary(w.events), [
        ['ADDED', 'f-1', f1.rv],
        ['MODIFIED', 'f-1', f1m.rv],
      ]);
    } finally {
      w.close();
    }
  });

  it('a field selector on a mutable field (nodes, spec.unschedulable): entering is ADDED, leaving DELETED', async () => {
    const name = 'watch-node-1';
    const nodes = '/api/v1/nodes';
    const start = await listRevision(nodes);
    const w = await watch(`${nodes}?watch=1&resourceVersion=${start}&fieldSelector=${encodeURIComponent('spec.unschedulable=true')}`);
    try {
      expectCode(await client.request('POST', nodes, { metadata: { name }, spec: {} }), 201);
      const cordon = await client.request('PATCH', `${nodes}/${name}`, { spec: { unschedulable: true } }, mergePatch);
      expectCode(cordon, 200);
      const uncordon = await client.request('PATCH', `${nodes}/${name}`, { spec: { unschedulable: false } }, mergePatch);
      expectCode(uncordon, 200);
      await w.waitFor((e) => e.length >= 2, '2 events');
      assert.deepEqual(summary(w.events), [
        ['ADDED', name, Number(cordon.body.metadata?.resourceVersion)],
        ['DELETED', name, Number(uncordon.body.metadata?.resourceVersion)],
      ]);
    } finally {
      w.close();
      await client.request('DELETE', `${nodes}/${name}`);
    }
  });
});

describe('exactly once, in order, under concurrent writers', () => {
  const ns = 'watch-concurrent';
  const writers = 4;
  const updatesPerWriter = 200;
  /** Every write's answer; together, in revision order, the sequence every watcher must see. */
  const log: (Written & { n: string })[] = [];

  it(
    `${writers} writers × ${updatesPerWriter} updates; watchers from 3 revisions and one cut and resumed see exactly the etcd-ordered sequence`,
    { timeout: 300_000 },
    async () => {
      await createNamespace(ns);
      for (let i = 0; i < writers; i++) {
        const c = await createCm(ns, `w-${i}`, { n: '-1' });
        log.push({ ...c, n: '-1' });
      }
      const start = await listRevision(cms(ns));
      const watchers: { from: number; w: WatchConnection<WatchEvent> }[] = [];
      const open = async (from: number): Promise<void> => {
        watchers.push({ from, w: await watch(`${cms(ns)}?watch=1&resourceVersion=${from}`) });
      };
      // The resumed watcher: cut after some events, re-watched from the last resourceVersion it saw.
      const resumed: WatchEvent[] = [];
      let resumeFrom = 0;
      const cutAndResume = async (): Promise<WatchConnection<WatchEvent>> => {
        const first = await watch(`${cms(ns)}?watch=1&resourceVersion=${start}`);
        await first.waitFor((e) => e.length >= 150, '150 events before the cut');
        first.close();
        resumed.push(...first.events);
        resumeFrom = revisionOf(resumed[resumed.length - 1]!);
        return watch(`${cms(ns)}?watch=1&resourceVersion=${resumeFrom}`);
      };

      try {
        await open(log[0]?.rv ?? 0);
        await open(start);
        const total = writers * updatesPerWriter;
        let done = 0;
        const startedLater: Promise<void>[] = [];
        let resumedSecond: Promise<WatchConnection<WatchEvent>> | undefined;
        const write = async (i: number): Promise<void> => {
          for (let k = 0; k < updatesPerWriter; k++) {
            const w = await patchCm(ns, `w-${i}`, { data: { n: String(k) } });
            log.push({ ...w, n: String(k) });
            done++;
            // Watchers that join mid-way start from a revision some writer just got.
            if (done === Math.floor(total / 3) || done === Math.floor((2 * total) / 3)) startedLater.push(open(w.rv));
            if (done === 50) resumedSecond = cutAndResume();
          }
        };
        await Promise.all(Array.from({ length: writers }, (_, i) => write(i)));
        await Promise.all(startedLater);
        const second = await resumedSecond;
        assert.ok(second, 'the cut watcher was resumed');

        const ordered = [...log].sort((a, b) => a.rv - b.rv);
        assert.equal(new Set(ordered.map((w) => w.rv)).size, ordered.length, 'every write has its own revision');
        const expect = (from: number): [string, string, number, string][] => ordered.filter((w) => w.rv > from).map((w) => [w.type, w.name, w.rv, w.n]);
        const seen = (events: readonly WatchEvent[]): [string, string, number, string][] =>
          events.map((e) => [e.type, e.object.metadata.name ?? '', revisionOf(e), e.object.data?.n ?? '']);

        assert.equal(watchers.length, 4);
        for (const { from, w } of watchers) {
          const wanted = expect(from);
          await w.waitFor((e) => e.length >= wanted.length, `${wanted.length} events from ${from}`, WATCH_WAIT_MS * 2);
          assert.deepEqual(seen(w.events), wanted, `the watcher from ${from}`);
        }
        const rest = expect(resumeFrom);
        await second.waitFor((e) => e.length >= rest.length, `${rest.length} events after resuming from ${resumeFrom}`, WATCH_WAIT_MS * 2);
        second.close();
        assert.deepEqual(seen([...resumed, ...second.events]), expect(start), 'the cut watcher lost and repeated nothing');
      } finally {
        for (const { w } of watchers) w.close();
      }
    },
  );
});

describe('protobuf watch', () => {
  const ns = 'watch-protobuf';
  before(() => createNamespace(ns));

  it('Accept application/vnd.kubernetes.protobuf: length-prefixed WatchEvent frames that decode to the events', async () => {
    const start = await listRevision(cms(ns));
    const w = await openProtobufWatch(url, tls, `${cms(ns)}?watch=1&resourceVersion=${start}`);
    try {
      assert.equal(w.status, 200);
      assert.equal(w.headers['content-type'], 'application/vnd.kubernetes.protobuf;stream=watch');
      const created = await createCm(ns, 'pb', { k: 'v1' });
      const modified = await patchCm(ns, 'pb', { data: { k: 'v2' } });
      await deleteCm(ns, 'pb');
      await w.waitFor((e) => e.length >= 3, '3 frames');
      const decoded = w.events.map((e) => ({ type: e.type, object: decodeObject(e.object, configMapDefinition.schema) }));
      assert.deepEqual(
        decoded.map((e) => {
          const meta = e.object.metadata as { name?: string; namespace?: string; resourceVersion?: string };
          return [e.type, e.object.apiVersion, e.object.kind, meta.name, meta.namespace, e.object.data];
        }),
        [
          ['ADDED', 'v1', 'ConfigMap', 'pb', ns, { k: 'v1' }],
          ['MODIFIED', 'v1', 'ConfigMap', 'pb', ns, { k: 'v2' }],
          ['DELETED', 'v1', 'ConfigMap', 'pb', ns, { k: 'v2' }],
        ],
      );
      const revisions = decoded.map((e) => Number((e.object.metadata as { resourceVersion?: string }).resourceVersion));
      assert.deepEqual(revisions.slice(0, 2), [created.rv, modified.rv]);
      assert.ok((revisions[2] ?? 0) > modified.rv);
    } finally {
      w.close();
    }
  });
});

describe('kubectl', () => {
  const ns = 'watch-kubectl';
  before(() => createNamespace(ns));

  it('get cm -w --output-watch-events prints the existing rows, then ADDED and MODIFIED rows', async () => {
    await createCm(ns, 'pre-existing', { a: '1' });
    const child: ChildProcess = spawn('kubectl', ['get', 'cm', '-n', ns, '-w', '--output-watch-events'], {
      env: kubectlEnv(cluster.kubeconfigs[0] ?? '', cluster.dir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const until = (pattern: RegExp, what: string): Promise<boolean> =>
      waitFor(
        `the ${what} in kubectl's output`,
        () => {
          if (child.exitCode !== null) assert.fail(`kubectl exited before the ${what}:\n${stdout}\n${stderr}`);
          return pattern.test(stdout);
        },
        { intervalMs: 100, detail: () => `${stdout}\n${stderr}` },
      );
    try {
      await until(/^ADDED\s+pre-existing\s+1\s/m, 'row for the existing object');
      assert.match(stdout, /^EVENT\s+NAME\s+DATA\s+AGE/m);
      await createCm(ns, 'added-later', { a: '1' });
      await until(/^ADDED\s+added-later\s+1\s/m, 'ADDED row');
      await patchCm(ns, 'added-later', { data: { b: '2' } });
      await until(/^MODIFIED\s+added-later\s+2\s/m, 'MODIFIED row');
      await deleteCm(ns, 'added-later');
      await until(/^DELETED\s+added-later\s/m, 'DELETED row');
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('get cm --chunk-size=2 lists all 7 objects in pages of 2', async () => {
    const chunkNs = 'watch-chunks';
    await createNamespace(chunkNs);
    const names = Array.from({ length: 7 }, (_, i) => `chunk-${i}`);
    for (const name of names) await createCm(chunkNs, name);

    // The server's pages: 2, 2, 2, 1, one snapshot, remainingItemCount counting down.
    const pages: TestResponse[] = [];
    let path = `${cms(chunkNs)}?limit=2`;
    for (;;) {
      const page = await client.request('GET', path);
      expectCode(page, 200);
      pages.push(page);
      const next = page.body.metadata?.continue;
      if (!next) break;
      path = `${cms(chunkNs)}?limit=2&continue=${encodeURIComponent(next)}`;
      assert.ok(pages.length < 10);
    }
    assert.deepEqual(
      pages.map((p) => p.body.items?.length),
      [2, 2, 2, 1],
    );
    assert.deepEqual(
      pages.map((p) => p.body.metadata?.remainingItemCount),
      [5, 3, 1, undefined],
    );
    assert.equal(new Set(pages.map((p) => p.body.metadata?.resourceVersion)).size, 1);
    assert.deepEqual(
      pages.flatMap((p) => p.body.items?.map((i) => i.metadata.name)),
      names,
    );

    const res = await cluster.kubectl(['get', 'cm', '-n', chunkNs, '--chunk-size=2', '-o', 'name', '-v=6']);
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(
      res.stdout.trim().split('\n'),
      names.map((n) => `configmap/${n}`),
    );
    const requests = res.stderr.split('\n').filter((l) => /GET https:\S+\/namespaces\/watch-chunks\/configmaps\?\S*\blimit=2\b/.test(l));
    assert.equal(requests.length, 4, `kubectl's list requests:\n${requests.join('\n')}`);
    assert.equal(requests.filter((l) => /[?&]continue=/.test(l)).length, 3);
  });
});
