/**
 * Watches across etcd failures, end to end: an API server (the in-process app, as the storage
 * integration tests run it) whose etcd fails while writers keep updating ConfigMaps straight in
 * etcd, and watch clients that behave like informers: list, watch from the list's
 * resourceVersion, resume from the last resourceVersion seen whenever a stream ends, re-list on
 * 410. Next to them, a @kubernetes/client-node informer.
 *
 * Faults: (a) a proxy between API server and etcd cuts every connection, again and again;
 * (b) etcd is killed and restarted on its data dir; (c) the leader of a 3-member cluster, made to be
 * the member serving the API server's etcd watch, is killed (the API server knows all three
 * members) and later restarted; (d) etcd history is compacted past the watch cache's revision while
 * the API server is cut off from etcd; (e) a watch older than the cache's history, which the API
 * server serves straight from etcd, while connections are cut.
 *
 * The truth is etcd's own history, read once the faults are healed over a fresh, healthy
 * connection (so nothing under test is involved); for (d), whose history is compacted, it is the
 * writers' acknowledged writes (their connection to etcd never fails there). Each writer owns its
 * keys and writes with compare-and-swap, so a write whose answer got lost is harmless: the history
 * shows whether it happened.
 *
 * Checks per client: resourceVersions strictly increase within a stream and continue after the last
 * one seen when a stream is resumed (no duplicate); between two lists, the events are exactly
 * etcd's changes (no gap); every list is exactly etcd's state at its resourceVersion; at the end
 * the client holds exactly etcd's state. After the faults, `resourceVersion=0` lists catch up and a
 * new watch streams. Waits have generous deadlines that only turn a hang into a failure; sleeps
 * only pace the faults.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, makeInformer, type Informer, type V1ConfigMap } from '@kubernetes/client-node';
import type { Etcd3, IWatchResponse } from 'etcd3';
import { pino } from 'pino';
import { skipUnlessEtcd } from '../shared/etcd/availability.ts';
import { startApiServer, type RunningApiServer } from '../apiserver/app.ts';
import { pkiPaths } from '../apiserver/auth/pki-setup.ts';
import { configFromFlags, parseFlags } from '../apiserver/config.ts';
import { connectEtcd, prefixEnd } from '../apiserver/storage/etcd/store.ts';
import { createTestClient, type TestClient } from '../apiserver/testing/client.ts';
import { openWatch, revisionOf, WATCH_WAIT_MS, type WatchConnection, type WatchEvent, type WatchTls } from '../apiserver/testing/watch-stream.ts';
import { startEtcd, startEtcdCluster, type EtcdCluster, type EtcdProcess } from '../shared/etcd/process.ts';
import { startProxy, type TcpProxy } from '../shared/etcd/proxy.ts';
import { waitFor } from '../apiserver/testing/wait-for.ts';
import { kubeConfigFrom, registerCleanup } from './harness.ts';

/** How long a client waits before it retries a list or watch the server could not serve. */
const RETRY_MS = 200;
const SCENARIO_TIMEOUT_MS = 240_000;

type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';
interface Change {
  type: ChangeType;
  name: string;
  rv: number;
}

const cms = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`;
const etcdPrefix = (ns: string): string => `/registry/configmaps/${ns}/`;

async function currentRevision(etcd: Etcd3): Promise<number> {
  return Number((await etcd.kv.range({ key: Buffer.from('/registry/'), count_only: true })).header.revision);
}

/** [name, resourceVersion] of every configmap of `ns` in etcd now, by name. */
async function etcdState(etcd: Etcd3, ns: string): Promise<[string, number][]> {
  const prefix = etcdPrefix(ns);
  const res = await etcd.kv.range({ key: Buffer.from(prefix), range_end: prefixEnd(prefix) });
  return res.kvs.map((kv): [string, number] => [kv.key.toString('utf8').slice(prefix.length), Number(kv.mod_revision)]);
}

/** The state `changes` (from an empty namespace) leave at `revision`, by name. */
function stateAt(changes: readonly Change[], revision: number): [string, number][] {
  const state = new Map<string, number>();
  for (const c of changes) {
    if (c.rv > revision) break;
    if (c.type === 'DELETED') state.delete(c.name);
    else state.set(c.name, c.rv);
  }
  return [...state.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Every change etcd made to `ns` in (from, to], read from etcd's history over a fresh connection;
 * `to` must be the revision of a change in `ns`.
 */
async function etcdHistory(endpoints: string[], ns: string, from: number, to: number): Promise<Change[]> {
  const client = connectEtcd({ endpoints });
  const prefix = etcdPrefix(ns);
  const changes: Change[] = [];
  const watcher = client
    .watch()
    .prefix(prefix)
    .startRevision(String(from + 1))
    .watcher();
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`etcd's history up to ${to} did not arrive within ${WATCH_WAIT_MS} ms`)), WATCH_WAIT_MS);
      const fail = (err: Error): void => {
        clearTimeout(timer);
        reject(err);
      };
      watcher.on('error', fail);
      // A reference must never have resumed: a broken stream voids it.
      watcher.on('disconnected', fail);
      watcher.on('data', (res: IWatchResponse) => {
        for (const e of res.events) {
          const rv = Number(e.kv.mod_revision);
          if (rv > to) continue;
          const type: ChangeType = e.type === 'Delete' ? 'DELETED' : e.kv.version === '1' ? 'ADDED' : 'MODIFIED';
          changes.push({ type, name: e.kv.key.toString('utf8').slice(prefix.length), rv });
        }
        if ((changes[changes.length - 1]?.rv ?? 0) >= to) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  } finally {
    await watcher.cancel().catch(() => undefined);
    client.close();
  }
  return changes;
}

/** Compares change sequences, reporting the first difference (the sequences are long). */
function assertSameChanges(actual: readonly Change[], expected: readonly Change[], what: string): void {
  const show = (list: readonly Change[], i: number): string => JSON.stringify(list.slice(Math.max(0, i - 2), i + 3).map((c) => `${c.type} ${c.name}@${c.rv}`));
  const n = Math.max(actual.length, expected.length);
  for (let i = 0; i < n; i++) {
    const a = actual[i];
    const e = expected[i];
    if (a?.type === e?.type && a?.name === e?.name && a?.rv === e?.rv) continue;
    assert.fail(`${what}: first difference at #${i} of ${actual.length} (expected ${expected.length}): got ${show(actual, i)}, expected ${show(expected, i)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Writers: each owns a few keys of the namespace and cycles them through create, updates and
// delete with compare-and-swap on the mod revision it last saw.

class Writers {
  /** The writes etcd acknowledged, in revision order once stopped. */
  readonly acked: Change[] = [];
  /** Writes whose outcome the writer did not learn (etcd failed to answer). */
  unknown = 0;
  private stopped = false;
  private loops: Promise<void>[] = [];
  private readonly uids = new Map<string, string>();

  constructor(
    private readonly etcd: Etcd3,
    private readonly ns: string,
  ) {}

  start(writers = 3, keysEach = 5): void {
    for (let w = 0; w < writers; w++) this.loops.push(this.run(w, keysEach));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
    this.acked.sort((a, b) => a.rv - b.rv);
  }

  /** One compare-and-swap write of `name` expecting mod revision `mod`; its revision, or undefined when it did not happen or its outcome is unknown. */
  async write(name: string, type: ChangeType, mod: number, seq: number): Promise<number | undefined> {
    const key = Buffer.from(`${etcdPrefix(this.ns)}${name}`);
    if (type === 'ADDED') this.uids.set(name, randomUUID());
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: this.ns, uid: this.uids.get(name), creationTimestamp: '2024-01-01T00:00:00Z' },
      data: { seq: String(seq) },
    };
    try {
      const res = await this.etcd.kv.txn({
        compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: mod }],
        success: [type === 'DELETED' ? { request_delete_range: { key } } : { request_put: { key, value: Buffer.from(JSON.stringify(object)) } }],
      });
      // Not succeeded: an earlier attempt whose answer was lost (or retried by the client) did it.
      if (!res.succeeded) return undefined;
      const rv = Number(res.header.revision);
      this.acked.push({ type, name, rv });
      return rv;
    } catch {
      return undefined;
    }
  }

  /** The mod revision of `name` (0: absent), asking until etcd answers. */
  private async modRevision(name: string): Promise<number> {
    for (;;) {
      try {
        const res = await this.etcd.kv.range({ key: Buffer.from(`${etcdPrefix(this.ns)}${name}`) });
        return Number(res.kvs[0]?.mod_revision ?? 0);
      } catch {
        await sleep(100);
      }
    }
  }

  private async run(writer: number, keys: number): Promise<void> {
    const mods = new Map<string, number>();
    for (let seq = 0; !this.stopped; seq++) {
      const name = `w${writer}-${seq % keys}`;
      const mod = mods.get(name) ?? 0;
      const type: ChangeType = mod === 0 ? 'ADDED' : seq % 4 === 0 ? 'DELETED' : 'MODIFIED';
      const rv = await this.write(name, type, mod, seq);
      if (rv === undefined) {
        this.unknown++;
        mods.set(name, await this.modRevision(name));
      } else {
        mods.set(name, type === 'DELETED' ? 0 : rv);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// An informer-like client that records everything it receives.

interface Segment {
  /** The list that started the segment. */
  listRv: number;
  listed: [string, number][];
  /** Every event received after the list, across resumed streams, until the next list. */
  events: Change[];
}

class ResumingClient {
  readonly segments: Segment[] = [];
  /** Events that did not continue after the last resourceVersion seen (duplicates, reordering). */
  readonly violations: string[] = [];
  /** Lists and watches the server could not serve (retried), for failure messages. */
  readonly failures: string[] = [];
  /** 410 Expired answers (each followed by a re-list). */
  expired = 0;
  streams = 0;
  private state = new Map<string, number>();
  private lastRv = 0;
  private connection: WatchConnection<WatchEvent> | undefined;
  private processed = 0;
  private streamExpired = false;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly server: ServerEnv,
    private readonly ns: string,
    /** The first list's resourceVersion: '' (most recent) or '0' (any). */
    private readonly firstListRv: '' | '0',
  ) {}

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.connection?.close();
    await this.loop;
  }

  get eventCount(): number {
    this.sync();
    return this.segments.reduce((n, s) => n + s.events.length, 0);
  }

  /** [name, resourceVersion] of every object the client holds, by name. */
  current(): [string, number][] {
    this.sync();
    return [...this.state.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  describe(): string {
    return `${this.segments.length} lists, ${this.streams} streams, ${this.expired} × 410, last rv ${this.lastRv}, failures: ${this.failures.slice(-3).join(' | ')}`;
  }

  private async run(): Promise<void> {
    let listRv: string = this.firstListRv;
    while (!this.stopped) {
      const list = await this.server.client.request('GET', `${cms(this.ns)}?resourceVersion=${listRv}`).catch((err: unknown) => String(err));
      if (typeof list === 'string' || list.status !== 200) {
        this.failures.push(typeof list === 'string' ? list : `list ${list.status} ${list.text}`);
        await sleep(RETRY_MS);
        continue;
      }
      // After a 410 the next list must be at least as new as etcd (client-go re-lists with '').
      listRv = '';
      const listed = (list.body.items ?? []).map((i): [string, number] => [i.metadata.name ?? '', Number(i.metadata.resourceVersion)]);
      const listRevision = Number(list.body.metadata?.resourceVersion);
      this.segments.push({ listRv: listRevision, listed, events: [] });
      this.state = new Map(listed);
      this.lastRv = listRevision;
      await this.watchUntilExpired();
    }
  }

  /** Watches from the last resourceVersion seen, resuming whenever a stream ends, until a 410. */
  private async watchUntilExpired(): Promise<void> {
    while (!this.stopped) {
      let w: WatchConnection<WatchEvent>;
      try {
        w = await openWatch(this.server.url, this.server.tls, `${cms(this.ns)}?watch=1&resourceVersion=${this.lastRv}`);
      } catch (err) {
        this.failures.push(`watch: ${String(err)}`);
        await sleep(RETRY_MS);
        continue;
      }
      if (w.status !== 200) {
        this.failures.push(`watch ${w.status} ${w.text}`);
        await sleep(RETRY_MS);
        continue;
      }
      this.streams++;
      this.connection = w;
      this.processed = 0;
      this.streamExpired = false;
      await w.done;
      this.sync();
      this.connection = undefined;
      if (this.streamExpired) {
        this.expired++;
        return;
      }
    }
  }

  /** Applies the events of the current stream received so far. */
  private sync(): void {
    const w = this.connection;
    const segment = this.segments[this.segments.length - 1];
    if (!w || !segment) return;
    while (this.processed < w.events.length) {
      const e = w.events[this.processed++];
      if (!e) continue;
      if (e.type === 'ERROR') {
        if (e.object.code === 410) this.streamExpired = true;
        else this.failures.push(`ERROR ${e.object.code} ${e.object.message}`);
        continue;
      }
      const name = e.object.metadata.name ?? '';
      const rv = revisionOf(e);
      if (!(rv > this.lastRv)) this.violations.push(`stream ${this.streams}: ${e.type} ${name}@${rv} after ${this.lastRv}`);
      if (e.type === 'DELETED') this.state.delete(name);
      else this.state.set(name, rv);
      segment.events.push({ type: e.type as ChangeType, name, rv });
      this.lastRv = rv;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The API server and one run of a fault.

interface ServerEnv {
  server: RunningApiServer;
  url: string;
  tls: WatchTls;
  client: TestClient;
  close(): Promise<void>;
}

async function startServer(etcdServers: string[], dataDir: string): Promise<ServerEnv> {
  const server = await startApiServer(
    configFromFlags(
      parseFlags([
        `--etcd-servers=${etcdServers.join(',')}`,
        '--secure-port=0',
        '--bind-address=127.0.0.1',
        `--data-dir=${dataDir}`,
        '--etcd-compaction-interval=0',
      ]),
    ),
    pino({ level: 'silent' }),
  );
  const pki = pkiPaths(dataDir);
  const tls = { ca: readFileSync(pki.caCert, 'utf8'), cert: readFileSync(pki.adminCert, 'utf8'), key: readFileSync(pki.adminKey, 'utf8') };
  const client = createTestClient(server.url, dataDir);
  return {
    server,
    url: server.url,
    tls,
    client,
    async close() {
      client.close();
      await server.close();
    },
  };
}

interface InformerHandle {
  informer: Informer<V1ConfigMap>;
  errors: unknown[];
  current(): [string, number][];
  stop(): Promise<void>;
}

/** A client-node informer; it stops on errors other than 410, so it is restarted as controllers do. */
async function startInformer(env: ServerEnv, ns: string): Promise<InformerHandle> {
  const kc = kubeConfigFrom(env.server.kubeconfigPath);
  const api = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1ConfigMap>(kc, cms(ns), () => api.listNamespacedConfigMap({ namespace: ns }));
  const errors: unknown[] = [];
  let stopped = false;
  informer.on('error', (err) => {
    errors.push(err);
    if (!stopped) setTimeout(() => void informer.start().catch((e: unknown) => errors.push(e)), RETRY_MS);
  });
  await informer.start();
  return {
    informer,
    errors,
    current: () =>
      informer
        .list(ns)
        .map((i): [string, number] => [i.metadata?.name ?? '', Number(i.metadata?.resourceVersion)])
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    async stop() {
      stopped = true;
      await informer.stop();
    },
  };
}

interface FaultContext {
  writers: Writers;
}

interface ScenarioOptions {
  env: ServerEnv;
  /** Straight to etcd, never through a fault: the writers and the checks. */
  etcd: Etcd3;
  /** Where a fresh connection reads etcd's history once the faults are healed. */
  endpoints: () => string[];
  ns: string;
  /** Breaks etcd while the writers write and the clients watch; everything is healed when it resolves. */
  fault(ctx: FaultContext): Promise<void>;
  /** The truth: etcd's history, or (when the fault compacts it) the writers' acknowledged writes. */
  truth: 'history' | 'writers';
}

interface ScenarioResult {
  clients: ResumingClient[];
  writers: Writers;
  truth: Change[];
}

async function runScenario(opts: ScenarioOptions): Promise<ScenarioResult> {
  const { env, etcd, ns } = opts;
  const start = await currentRevision(etcd);
  const writers = new Writers(etcd, ns);
  writers.start();
  const clients = [new ResumingClient(env, ns, ''), new ResumingClient(env, ns, '0')];
  for (const c of clients) c.start();
  const informer = await startInformer(env, ns);
  try {
    // Every client streams before anything breaks.
    await waitFor('events at every client', () => clients.every((c) => c.eventCount >= 10));
    await opts.fault({ writers });
    // Writes after the faults healed reach everyone.
    const healed = writers.acked.length;
    await waitFor('100 writes after the fault', () => writers.acked.length >= healed + 100);
    await writers.stop();
    // The last write: everything converges to the state it leaves.
    const marker = await writers.write('marker', 'ADDED', 0, 0);
    assert.ok(marker, 'etcd takes writes again');

    // resourceVersion=0 lists are served from the cache: it catches up.
    await waitFor('a resourceVersion=0 list with the last write', async () => {
      const res = await env.client.request('GET', `${cms(ns)}?resourceVersion=0`);
      return res.status === 200 && Number(res.body.metadata?.resourceVersion) >= marker && (res.body.items ?? []).some((i) => i.metadata.name === 'marker');
    });

    const final = await etcdState(etcd, ns);
    await waitFor('every client at the stored state', () => clients.every((c) => JSON.stringify(c.current()) === JSON.stringify(final)), {
      detail: () => clients.map((c) => c.describe()).join('\n'),
    });
    await waitFor('the informer at the stored state', () => JSON.stringify(informer.current()) === JSON.stringify(final), {
      detail: () => `informer errors: ${informer.errors.map(String).join('; ')}`,
    });
    assert.deepEqual(informer.current(), final);

    const truth = opts.truth === 'history' ? await etcdHistory(opts.endpoints(), ns, start, marker) : writers.acked;
    if (opts.truth === 'history') {
      // What etcd acknowledged is in its history, at the acknowledged revision.
      const byRevision = new Map(truth.map((c) => [c.rv, c]));
      for (const w of writers.acked) assert.deepEqual(byRevision.get(w.rv), w);
    } else {
      assert.equal(writers.unknown, 0, 'every write was acknowledged');
    }
    assert.deepEqual(stateAt(truth, marker), final);

    for (const [i, c] of clients.entries()) {
      assert.deepEqual(c.violations, [], `client ${i}: every event follows the last resourceVersion seen`);
      for (const [s, segment] of c.segments.entries()) {
        const what = `client ${i}, list ${s} at ${segment.listRv}`;
        assert.deepEqual(
          [...segment.listed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
          stateAt(truth, segment.listRv),
          `${what}: the list is etcd's state at its resourceVersion`,
        );
        const end = segment.events[segment.events.length - 1]?.rv ?? segment.listRv;
        assertSameChanges(
          segment.events,
          truth.filter((t) => t.rv > segment.listRv && t.rv <= end),
          `${what}: events are exactly etcd's changes`,
        );
      }
      assert.deepEqual(c.current(), final);
    }

    // A new watch from a new list streams what follows.
    const list = await env.client.request('GET', cms(ns));
    assert.equal(list.status, 200, list.text);
    const w = await openWatch(env.url, env.tls, `${cms(ns)}?watch=1&resourceVersion=${list.body.metadata?.resourceVersion ?? ''}`);
    try {
      const next = await writers.write('after', 'ADDED', 0, 0);
      await w.waitFor((events) => events.length >= 1, 'an event on a new watch');
      assert.deepEqual(
        w.events.map((e) => [e.type, e.object.metadata.name, revisionOf(e)]),
        [['ADDED', 'after', next]],
      );
    } finally {
      w.close();
    }
    return { clients, writers, truth };
  } finally {
    await writers.stop();
    await informer.stop();
    for (const c of clients) await c.stop();
  }
}

// ---------------------------------------------------------------------------------------------

describe('one etcd, reached through a proxy that fails', { skip: skipUnlessEtcd() }, () => {
  let dir: string;
  let etcdDir: string;
  let etcdProcess: EtcdProcess;
  let proxy: TcpProxy;
  let direct: Etcd3;
  let env: ServerEnv;
  let unregister = (): void => {};

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'corral-etcd-faults-'));
    etcdDir = join(dir, 'etcd');
    unregister = registerCleanup(() => [etcdProcess?.child].filter((c) => c !== undefined), dir);
    etcdProcess = await startEtcd({ dataDir: etcdDir });
    proxy = await startProxy({ targetPort: etcdProcess.clientPort });
    direct = connectEtcd({ endpoints: etcdProcess.endpoints });
    env = await startServer([proxy.url], join(dir, 'data'));
  });
  after(async () => {
    await env?.close();
    direct?.close();
    await proxy?.close();
    await etcdProcess?.stop();
    rmSync(dir, { recursive: true, force: true });
    unregister();
  });

  const scenario = (ns: string, truth: ScenarioOptions['truth'], fault: ScenarioOptions['fault']): Promise<ScenarioResult> =>
    runScenario({ env, etcd: direct, endpoints: () => etcdProcess.endpoints, ns, truth, fault });

  it('(a) connections to etcd cut again and again: no gap, no duplicate, exact state', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
    const { clients } = await scenario('fault-cut', 'history', async () => {
      // Varied gaps, so that some cuts land while the cache's watch is still catching up after
      // the previous one (a reconnect waits for a back-off, then etcd replays what was missed).
      for (let i = 0; i < 12; i++) {
        await sleep(60 + (i % 4) * 80);
        proxy.cut();
      }
    });
    // The cache resumed its etcd watch each time: client streams never had to end.
    for (const c of clients) assert.equal(c.expired, 0, c.describe());
  });

  it('(b) etcd killed and restarted on its data dir: no gap, no duplicate, exact state', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
    const { writers } = await scenario('fault-restart', 'history', async () => {
      // Twice in a row: the second crash hits while clients are still reconnecting.
      for (let round = 0; round < 2; round++) {
        const port = etcdProcess.clientPort;
        await etcdProcess.kill();
        await sleep(300);
        etcdProcess = await startEtcd({ dataDir: etcdDir });
        assert.equal(etcdProcess.clientPort, port, 'etcd is back at its address');
      }
    });
    assert.ok(writers.unknown > 0, 'writes failed while etcd was down');
  });

  it('(d) history compacted past the cache while the API server is cut off: 410, re-list, exact state', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
    const { clients } = await scenario('fault-compact', 'writers', async ({ writers }) => {
      proxy.pause();
      const pausedAt = writers.acked.length;
      await waitFor('writes while the API server is cut off', () => writers.acked.length >= pausedAt + 100);
      await direct.kv.compact({ revision: await currentRevision(direct), physical: true });
      const compactedAt = writers.acked.length;
      await waitFor('writes after the compaction', () => writers.acked.length >= compactedAt + 50);
      proxy.cut();
      proxy.resume();
    });
    // Every client was behind the compaction: its stream ended, the resume got 410, it re-listed.
    for (const c of clients) {
      assert.ok(c.expired >= 1, c.describe());
      assert.ok(c.segments.length >= 2, c.describe());
    }
  });

  it('(e) a watch older than the cache history is served from etcd and survives cut connections', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
    const ns = 'fault-etcd-watch';
    const writers = new Writers(direct, ns);
    // Make the cache re-list past a compaction, so that its history starts after the compacted revision.
    proxy.pause();
    const compactedAt = await writers.write('before-list-0', 'ADDED', 0, 0);
    assert.ok(compactedAt);
    await direct.kv.compact({ revision: compactedAt, physical: true });
    const afterCompaction = await writers.write('before-list-1', 'ADDED', 0, 0);
    assert.ok(afterCompaction);
    proxy.cut();
    proxy.resume();
    await waitFor('the re-listed cache', async () => {
      const res = await env.client.request('GET', `${cms(ns)}?resourceVersion=0`);
      return res.status === 200 && Number(res.body.metadata?.resourceVersion) >= afterCompaction;
    });

    // From the compaction revision: only etcd still has what followed.
    const w = await openWatch(env.url, env.tls, `${cms(ns)}?watch=1&resourceVersion=${compactedAt}`);
    try {
      assert.equal(w.status, 200);
      writers.start();
      for (let i = 0; i < 12; i++) {
        await sleep(60 + (i % 4) * 80);
        proxy.cut();
      }
      const cutsDone = writers.acked.length;
      await waitFor('100 writes after the cuts', () => writers.acked.length >= cutsDone + 100);
      await writers.stop();
      const marker = await writers.write('marker', 'ADDED', 0, 0);
      assert.ok(marker);
      await w.waitFor((events) => events.some((e) => e.object.metadata?.name === 'marker'), 'the last write');
      const truth = await etcdHistory(etcdProcess.endpoints, ns, compactedAt, marker);
      assert.equal(truth[0]?.rv, afterCompaction);
      assertSameChanges(
        w.events.map((e) => ({ type: e.type as ChangeType, name: e.object.metadata.name ?? '', rv: revisionOf(e) })),
        truth,
        "a watch from etcd: events are exactly etcd's changes",
      );
    } finally {
      w.close();
      await writers.stop();
    }
  });
});

describe('a 3-member etcd cluster', { skip: skipUnlessEtcd() }, () => {
  let dir: string;
  let cluster: EtcdCluster;
  let direct: Etcd3;
  let env: ServerEnv;
  let unregister = (): void => {};

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'corral-etcd-cluster-'));
    unregister = registerCleanup(() => (cluster?.members ?? []).flatMap((m) => (m ? [m.child] : [])), dir);
    cluster = await startEtcdCluster({ dataDir: join(dir, 'etcd') });
    direct = connectEtcd({ endpoints: cluster.endpoints });
    env = await startServer(cluster.endpoints, join(dir, 'data'));
  });
  after(async () => {
    await env?.close();
    direct?.close();
    for (let i = 0; i < (cluster?.members.length ?? 0); i++) await cluster.kill(i);
    rmSync(dir, { recursive: true, force: true });
    unregister();
  });

  /** The member that serves the API server's etcd watch (etcd counts the watchers it serves). */
  async function watchHost(): Promise<number> {
    const counts = await Promise.all(
      cluster.endpoints.map(async (endpoint) => {
        const metrics = await (await fetch(`${endpoint}/metrics`)).text();
        return Number(/^etcd_debugging_mvcc_watcher_total (\d+)$/m.exec(metrics)?.[1] ?? 0);
      }),
    );
    const hosts = counts.flatMap((n, i) => (n > 0 ? [i] : []));
    assert.equal(hosts.length, 1, `one member serves the watch (watchers per member: ${counts.join(', ')})`);
    return hosts[0] ?? -1;
  }

  it('(c) the leader, serving the API server watch, killed and restarted: no gap, no duplicate, exact state', { timeout: SCENARIO_TIMEOUT_MS }, async () => {
    await runScenario({
      env,
      etcd: direct,
      endpoints: () => cluster.endpoints,
      ns: 'fault-leader',
      truth: 'history',
      fault: async ({ writers }) => {
        const host = await watchHost();
        await cluster.moveLeader(host);
        await cluster.kill(host);
        const killedAt = writers.acked.length;
        // A new leader takes writes, and the API server's watch moved to a surviving member.
        await waitFor('writes after the leader died', () => writers.acked.length >= killedAt + 100);
        await cluster.restart(host);
      },
    });
  });
});
