/**
 * The spec's resource version tables (01-protocol.md, "Resource versions"), cell by cell, against a
 * real etcd and an in-process API server: get (unset / 0 / a version), list (resourceVersion ×
 * resourceVersionMatch × paging), watch (unset / 0 / a version), the Errors table's rows about
 * versions (400, 422, 410, 504 with Retry-After), chunked lists and compaction.
 *
 * Every semantic is checked against etcd itself, read directly through the etcd3 client: a list's
 * items must be exactly etcd's keys under the collection at the list's resourceVersion, so a cache
 * that is stale, mixed or ahead shows up as a mismatch. Writes made straight to etcd stand for another
 * replica's writes that this replica's watch cache may not have seen yet.
 *
 * Expectations are upstream kube-apiserver 1.32's (messages from k8s.io/apimachinery
 * pkg/apis/meta/internalversion/validation and k8s.io/apiserver pkg/storage). Differences of corral
 * run as todo with the request, the expected and the actual answer.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Etcd3 } from 'etcd3';
import { pino } from 'pino';
import type { KubeObject } from '../../shared/api/types.ts';
import { skipUnlessEtcd } from '../../shared/etcd/availability.ts';
import { startEtcd, type EtcdProcess } from '../../shared/etcd/process.ts';
import { startApiServer, type RunningApiServer } from '../app.ts';
import { pkiPaths } from '../auth/pki-setup.ts';
import { configFromFlags, parseFlags } from '../config.ts';
import { createTestClient, type TestClient, type TestResponse } from '../testing/client.ts';
import { openWatch, revisionOf, type WatchEvent, type WatchTls } from '../testing/watch-stream.ts';
import { connectEtcd, prefixEnd } from './etcd/store.ts';

// ---- one etcd and one API server for the file ----

interface Setup {
  dir: string;
  etcdProcess: EtcdProcess;
  etcd: Etcd3;
  server: RunningApiServer;
  client: TestClient;
  tls: WatchTls;
}

async function startServer(name: string, extraFlags: string[], seed?: (etcd: Etcd3) => Promise<void>): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), `corral-${name}-`));
  const etcdProcess = await startEtcd({ dataDir: join(dir, 'etcd') });
  const etcd = connectEtcd({ endpoints: etcdProcess.endpoints });
  try {
    await seed?.(etcd);
    const dataDir = join(dir, 'data');
    const server = await startApiServer(
      configFromFlags(
        parseFlags([
          `--etcd-servers=${etcdProcess.endpoints.join(',')}`,
          '--secure-port=0',
          '--bind-address=127.0.0.1',
          `--data-dir=${dataDir}`,
          ...extraFlags,
        ]),
      ),
      pino({ level: 'silent' }),
    );
    const pki = pkiPaths(dataDir);
    const tls = { ca: readFileSync(pki.caCert, 'utf8'), cert: readFileSync(pki.adminCert, 'utf8'), key: readFileSync(pki.adminKey, 'utf8') };
    return { dir, etcdProcess, etcd, server, client: createTestClient(server.url, dataDir), tls };
  } catch (err) {
    etcd.close();
    await etcdProcess.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

async function stopServer(s: Setup | undefined): Promise<void> {
  if (!s) return;
  s.client.close();
  await s.server.close();
  s.etcd.close();
  await s.etcdProcess.stop();
  rmSync(s.dir, { recursive: true, force: true });
}

/** A revision written before the server (and its watch cache) started, then compacted away. */
let compactedBeforeStart = 0;
/** A configmap written and deleted before the server started, in history etcd still has. */
const preStartCollection = '/api/v1/namespaces/rv-prestart/configmaps';
let preStartRevision = 0;
/** Every semantic is checked against etcd itself: the file skips without it. */
const skip = skipUnlessEtcd();
let main: Setup;
if (!skip)
  main = await startServer('resource-version', ['--etcd-compaction-interval=0'], async (etcd) => {
    let head = 0;
    for (let i = 0; i < 6; i++) head = Number((await etcd.kv.put({ key: Buffer.from(`/unrelated/seed-${i}`), value: Buffer.from('x') })).header.revision);
    await etcd.kv.compact({ revision: head, physical: true });
    compactedBeforeStart = head - 2;
    preStartRevision = head;
    const ghost = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'ghost', namespace: 'rv-prestart', uid: randomUUID(), creationTimestamp: '2024-01-01T00:00:00Z' },
    };
    await etcd.kv.put({ key: Buffer.from('/registry/configmaps/rv-prestart/ghost'), value: Buffer.from(JSON.stringify(ghost)) });
    await etcd.kv.deleteRange({ key: Buffer.from('/registry/configmaps/rv-prestart/ghost') });
  });
after(async () => {
  if (!skip) await stopServer(main);
});

const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse> =>
  main.client.request(method, path, body, headers);

// ---- the namespace under test and the log of every change made to it ----

const ns = 'rv-table';
const collection = `/api/v1/namespaces/${ns}/configmaps`;
const prefix = `/registry/configmaps/${ns}/`;

type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';
interface Change {
  type: ChangeType;
  name: string;
  rv: number;
}
/** Every change to the namespace's configmaps, in etcd (revision) order. */
const changes: Change[] = [];

function expectCode(res: TestResponse, code: number): void {
  assert.equal(res.status, code, `expected ${code}, got ${res.status}: ${res.text}`);
}

async function create(name: string, data: Record<string, string> = { v: '0' }): Promise<number> {
  const res = await api('POST', collection, { metadata: { name }, data });
  expectCode(res, 201);
  const rv = Number(res.body.metadata?.resourceVersion);
  changes.push({ type: 'ADDED', name, rv });
  return rv;
}

async function update(name: string, value: string): Promise<number> {
  const res = await api('PATCH', `${collection}/${name}`, { data: { v: value } }, { 'content-type': 'application/merge-patch+json' });
  expectCode(res, 200);
  const rv = Number(res.body.metadata?.resourceVersion);
  changes.push({ type: 'MODIFIED', name, rv });
  return rv;
}

/** A write straight to etcd: another replica's write, unseen by this one's cache until its watch delivers it. */
async function putDirect(name: string, value: string): Promise<number> {
  const existed = changes.filter((c) => c.name === name).at(-1);
  const obj = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns, uid: randomUUID(), creationTimestamp: '2024-01-01T00:00:00Z' },
    data: { v: value },
  };
  const res = await main.etcd.kv.put({ key: Buffer.from(prefix + name), value: Buffer.from(JSON.stringify(obj)) });
  const rv = Number(res.header.revision);
  changes.push({ type: existed && existed.type !== 'DELETED' ? 'MODIFIED' : 'ADDED', name, rv });
  return rv;
}

async function deleteDirect(name: string): Promise<number> {
  const res = await main.etcd.kv.deleteRange({ key: Buffer.from(prefix + name) });
  assert.equal(Number(res.deleted), 1);
  const rv = Number(res.header.revision);
  changes.push({ type: 'DELETED', name, rv });
  return rv;
}

async function etcdRevision(): Promise<number> {
  const res = await main.etcd.kv.range({ key: Buffer.from('/registry/'), count_only: true });
  return Number(res.header.revision);
}

interface Entry {
  name: string;
  rv: number;
}

/** The collection as etcd holds it at `revision`: names and mod revisions, in key order. */
async function etcdState(revision: number, keyPrefix = prefix): Promise<Entry[]> {
  const res = await main.etcd.kv.range({ key: Buffer.from(keyPrefix), range_end: prefixEnd(keyPrefix), revision });
  return res.kvs.map((kv) => ({ name: kv.key.toString('utf8').slice(keyPrefix.length), rv: Number(kv.mod_revision) }));
}

function entries(items: readonly KubeObject[] | undefined): Entry[] {
  assert.ok(Array.isArray(items), 'not a list');
  return items.map((i) => ({ name: i.metadata.name ?? '', rv: Number(i.metadata.resourceVersion) }));
}

function listRevision(res: TestResponse): number {
  const rv = res.body.metadata?.resourceVersion ?? '';
  assert.match(rv, /^\d+$/, `list resourceVersion: ${res.text}`);
  return Number(rv);
}

interface Walk {
  pages: TestResponse[];
  items: Entry[];
  revision: number;
}

/** Follows continue tokens from a first page to the end; every page must succeed. */
async function walk(first: TestResponse, limit: number): Promise<Walk> {
  expectCode(first, 200);
  const pages = [first];
  let page = first;
  while (page.body.metadata?.continue) {
    page = await api('GET', `${collection}?limit=${limit}&continue=${encodeURIComponent(page.body.metadata.continue)}`);
    expectCode(page, 200);
    pages.push(page);
    assert.ok(pages.length < 100, 'continue tokens never end');
  }
  const revision = listRevision(first);
  for (const p of pages) assert.equal(listRevision(p), revision, 'every page has the resourceVersion of the first');
  return { pages, items: pages.flatMap((p) => entries(p.body.items)), revision };
}

/** Each page but the last is full and counts what follows it; the last has neither continue nor count. */
function assertPaging(w: Walk, limit: number): void {
  let seen = 0;
  for (const [i, page] of w.pages.entries()) {
    const size = page.body.items?.length ?? 0;
    seen += size;
    const last = i === w.pages.length - 1;
    if (last) {
      assert.equal(page.body.metadata?.continue ?? '', '', 'the last page has no continue token');
      assert.equal(page.body.metadata?.remainingItemCount, undefined, 'the last page has no remainingItemCount');
    } else {
      assert.equal(size, limit, `page ${i} is full`);
      assert.equal(page.body.metadata?.remainingItemCount, w.items.length - seen, `page ${i} counts the items after it`);
    }
  }
}

function expectStatus(res: TestResponse, code: number, reason: string, message: string | RegExp): void {
  expectCode(res, code);
  assert.equal(res.body.kind, 'Status');
  assert.equal(res.body.status, 'Failure');
  assert.equal(res.body.reason, reason);
  assert.equal(res.body.code, code);
  if (typeof message === 'string') assert.equal(res.body.message, message);
  else assert.match(res.body.message ?? '', message);
}

/** upstream's NewInvalid of ListOptions: `ListOptions.meta.k8s.io "" is invalid: ...` with one cause per error. */
function expectInvalidOptions(res: TestResponse, causes: { reason: string; field: string; message: string }[]): void {
  const texts = causes.map((c) => `${c.field}: ${c.message}`);
  const aggregate = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
  expectStatus(res, 422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${aggregate}`);
  assert.equal(res.body.details?.group, 'meta.k8s.io');
  assert.equal(res.body.details?.kind, 'ListOptions');
  assert.deepEqual(res.body.details?.causes, causes);
}

const forbidden = (field: string, detail: string): { reason: string; field: string; message: string } => ({
  reason: 'FieldValueForbidden',
  field,
  message: `Forbidden: ${detail}`,
});
const unsupported = (field: string, value: string, supported: string[]): { reason: string; field: string; message: string } => ({
  reason: 'FieldValueNotSupported',
  field,
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
});

/** The 504 of a read at a version the server has not reached (upstream NewTooLargeResourceVersionError). */
function expectTooLarge(res: TestResponse, requested: number): void {
  expectStatus(res, 504, 'Timeout', new RegExp(`^Timeout: Too large resource version: ${requested}, current: \\d+$`));
  assert.equal(res.headers['retry-after'], '1');
  assert.equal(res.body.details?.retryAfterSeconds, 1);
  assert.deepEqual(res.body.details?.causes, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
}

const tooOldList = 'The resourceVersion for the provided list is too old.';
const inconsistentContinue =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** A version no server has handed out yet (etcd's revision plus a margin no test reaches). */
async function futureRevision(): Promise<number> {
  return (await etcdRevision()) + 1000;
}

// ---- fixture: a collection with history ----

/** The revision after the first three creates and one update; the current state differs from it. */
let oldRevision = 0;
/** State at oldRevision, read from etcd. */
let oldState: Entry[] = [];

before(async () => {
  if (skip) return;
  expectCode(await api('POST', '/api/v1/namespaces', { metadata: { name: ns } }), 201);
  await create('cm-0');
  await create('cm-1');
  await create('cm-2');
  oldRevision = await update('cm-0', 'a');
  await create('cm-3');
  await create('cm-4');
  await deleteDirect('cm-1');
  await update('cm-2', 'b');
  await create('cm-5');
  oldState = await etcdState(oldRevision);
  assert.deepEqual(
    oldState.map((e) => e.name),
    ['cm-0', 'cm-1', 'cm-2'],
  );
});

// ---- get ----

describe('get: resourceVersion semantics', { skip }, () => {
  it('unset: Most Recent — a quorum read sees a write the cache may not have seen yet', async () => {
    const rv = await putDirect('cm-0', 'direct-get');
    const res = await api('GET', `${collection}/cm-0`);
    expectCode(res, 200);
    assert.equal(res.body.metadata?.resourceVersion, String(rv));
    assert.deepEqual(res.body.data, { v: 'direct-get' });
  });

  it('0: Any — some stored version of the object, consistent with its resourceVersion', async () => {
    const res = await api('GET', `${collection}/cm-0?resourceVersion=0`);
    expectCode(res, 200);
    const rv = Number(res.body.metadata?.resourceVersion);
    assert.ok(rv <= (await etcdRevision()));
    const stored = await main.etcd.kv.range({ key: Buffer.from(`${prefix}cm-0`), revision: rv });
    assert.equal(Number(stored.kvs[0]?.mod_revision), rv, 'the object existed with that resourceVersion');
    assert.deepEqual(res.body.data, (JSON.parse(stored.kvs[0]?.value.toString('utf8') ?? '{}') as { data?: unknown }).data);
  });

  it('a version: Not older than — right after a write, the read waits for it', async () => {
    const rv = await update('cm-2', 'get-not-older');
    const res = await api('GET', `${collection}/cm-2?resourceVersion=${rv}`);
    expectCode(res, 200);
    assert.ok(Number(res.body.metadata?.resourceVersion) >= rv);
    assert.deepEqual(res.body.data, { v: 'get-not-older' });
  });

  it('a version: Not older than — also after a direct etcd write (another replica)', async () => {
    const rv = await putDirect('cm-3', 'direct-not-older');
    const res = await api('GET', `${collection}/cm-3?resourceVersion=${rv}`);
    expectCode(res, 200);
    assert.equal(res.body.metadata?.resourceVersion, String(rv));
    assert.deepEqual(res.body.data, { v: 'direct-not-older' });
  });

  it("a version from another resource's write is as good as one of this resource", async () => {
    const secret = await api('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'other-resource' }, stringData: { k: 'v' } });
    expectCode(secret, 201);
    const rv = Number(secret.body.metadata?.resourceVersion);
    const res = await api('GET', `${collection}/cm-4?resourceVersion=${rv}`);
    expectCode(res, 200);
    const stored = await main.etcd.kv.range({ key: Buffer.from(`${prefix}cm-4`), revision: rv });
    assert.equal(res.body.metadata?.resourceVersion, String(stored.kvs[0]?.mod_revision));
  });

  it('a version of a deleted object: 404 once the read is at least that new', async () => {
    const rv = await deleteDirect('cm-4');
    const res = await api('GET', `${collection}/cm-4?resourceVersion=${rv}`);
    expectStatus(res, 404, 'NotFound', 'configmaps "cm-4" not found');
  });
});

// ---- list ----

type RvColumn = 'unset' | '0' | 'version';
type Paging = 'none' | 'limit' | 'continue';
type Rvm = '' | 'Exact' | 'NotOlderThan';

interface ListCell {
  rvm: Rvm;
  paging: Paging;
  rv: RvColumn;
  semantic: 'Most Recent' | 'Any' | 'Not older than' | 'Exact' | 'Continue Token, Exact' | 'Invalid, HTTP 400' | 'Invalid';
  todo?: string;
}

/** The spec's list table, one entry per cell. */
const listTable: ListCell[] = [
  { rvm: '', paging: 'none', rv: 'unset', semantic: 'Most Recent' },
  { rvm: '', paging: 'none', rv: '0', semantic: 'Any' },
  { rvm: '', paging: 'none', rv: 'version', semantic: 'Not older than' },
  { rvm: '', paging: 'limit', rv: 'unset', semantic: 'Most Recent' },
  { rvm: '', paging: 'limit', rv: '0', semantic: 'Any' },
  { rvm: '', paging: 'limit', rv: 'version', semantic: 'Exact' },
  { rvm: '', paging: 'continue', rv: 'unset', semantic: 'Continue Token, Exact' },
  { rvm: '', paging: 'continue', rv: '0', semantic: 'Continue Token, Exact' },
  { rvm: '', paging: 'continue', rv: 'version', semantic: 'Invalid, HTTP 400' },
  { rvm: 'Exact', paging: 'none', rv: 'unset', semantic: 'Invalid' },
  { rvm: 'Exact', paging: 'none', rv: '0', semantic: 'Invalid' },
  { rvm: 'Exact', paging: 'none', rv: 'version', semantic: 'Exact' },
  { rvm: 'Exact', paging: 'limit', rv: 'unset', semantic: 'Invalid' },
  { rvm: 'Exact', paging: 'limit', rv: '0', semantic: 'Invalid' },
  { rvm: 'Exact', paging: 'limit', rv: 'version', semantic: 'Exact' },
  { rvm: 'NotOlderThan', paging: 'none', rv: 'unset', semantic: 'Invalid' },
  { rvm: 'NotOlderThan', paging: 'none', rv: '0', semantic: 'Any' },
  { rvm: 'NotOlderThan', paging: 'none', rv: 'version', semantic: 'Not older than' },
  { rvm: 'NotOlderThan', paging: 'limit', rv: 'unset', semantic: 'Invalid' },
  { rvm: 'NotOlderThan', paging: 'limit', rv: '0', semantic: 'Any' },
  { rvm: 'NotOlderThan', paging: 'limit', rv: 'version', semantic: 'Not older than' },
];

const pageSize = 2;

function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** The validation errors upstream's ValidateListOptions reports for a cell marked Invalid. */
function invalidCauses(cell: ListCell): { reason: string; field: string; message: string }[] {
  if (cell.rv === 'unset') return [forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided')];
  return [forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"')];
}

describe('list: the resource version table, cell by cell', { skip }, () => {
  for (const cell of listTable) {
    const title = `resourceVersionMatch ${cell.rvm || 'unset'}, ${cell.paging === 'none' ? 'limit unset' : cell.paging === 'limit' ? 'limit=n' : 'limit=n + continue'}, resourceVersion ${cell.rv}: ${cell.semantic}`;
    it(title, cell.todo ? { todo: cell.todo } : {}, async () => {
      // A write through the server right before the request: Not older than must wait for it.
      const fresh = await update('cm-0', `cell-${randomUUID().slice(0, 8)}`);
      // A write straight to etcd: Most Recent must see it even before this replica's cache does.
      const direct = await putDirect('cm-2', `direct-${randomUUID().slice(0, 8)}`);
      const rv = cell.rv === 'unset' ? undefined : cell.rv === '0' ? '0' : cell.semantic === 'Not older than' ? String(fresh) : String(oldRevision);
      const limit = cell.paging === 'none' ? undefined : String(pageSize);

      let token: string | undefined;
      let tokenPage: TestResponse | undefined;
      if (cell.paging === 'continue') {
        tokenPage = await api('GET', `${collection}${query({ limit })}`);
        expectCode(tokenPage, 200);
        token = tokenPage.body.metadata?.continue;
        assert.ok(token, 'the first page has a continue token');
        // Changes after the first page must not show up in the following ones.
        await update('cm-3', `after-first-page-${randomUUID().slice(0, 8)}`);
        await deleteDirect('cm-5');
        await create('cm-5');
      }
      const before = await etcdRevision();
      const res = await api('GET', `${collection}${query({ resourceVersion: rv, resourceVersionMatch: cell.rvm || undefined, limit, continue: token })}`);

      switch (cell.semantic) {
        case 'Invalid':
          expectInvalidOptions(res, invalidCauses(cell));
          return;
        case 'Invalid, HTTP 400':
          expectStatus(res, 400, 'BadRequest', 'specifying resource version is not allowed when using continue');
          return;
        case 'Continue Token, Exact': {
          assert.ok(tokenPage);
          const w = await walk(res, pageSize);
          const snapshot = listRevision(tokenPage);
          assert.equal(w.revision, snapshot, 'the pages after the first carry the revision of the first');
          assert.deepEqual([...entries(tokenPage.body.items), ...w.items], await etcdState(snapshot), 'the pages together are the snapshot at the first page');
          return;
        }
        case 'Most Recent': {
          const w = cell.paging === 'limit' ? await walk(res, pageSize) : { items: entries(res.body.items), revision: listRevision(res), pages: [res] };
          expectCode(res, 200);
          assert.ok(w.revision >= before, `a quorum read is at least at etcd's revision when it started (${w.revision} < ${before})`);
          assert.ok(w.revision >= direct);
          assert.deepEqual(w.items, await etcdState(w.revision));
          if (cell.paging === 'limit') assertPaging(w, pageSize);
          return;
        }
        case 'Any': {
          expectCode(res, 200);
          const revision = listRevision(res);
          assert.ok(revision <= (await etcdRevision()));
          assert.deepEqual(entries(res.body.items), await etcdState(revision), 'the items are the collection at the list resourceVersion');
          // Upstream's watch cache ignores the limit of resourceVersion=0 lists: one complete page.
          assert.equal(res.body.metadata?.continue ?? '', '', 'no continue token');
          assert.equal(res.body.metadata?.remainingItemCount, undefined);
          return;
        }
        case 'Not older than': {
          const w = cell.paging === 'limit' ? await walk(res, pageSize) : { items: entries(res.body.items), revision: listRevision(res), pages: [res] };
          assert.ok(w.revision >= fresh, `list resourceVersion ${w.revision} is not older than ${fresh}`);
          assert.deepEqual(w.items, await etcdState(w.revision), 'the items are the collection at the list resourceVersion');
          if (cell.paging === 'limit') assertPaging(w, pageSize);
          return;
        }
        case 'Exact': {
          const w = cell.paging === 'limit' ? await walk(res, pageSize) : { items: entries(res.body.items), revision: listRevision(res), pages: [res] };
          assert.equal(w.revision, oldRevision, 'the list resourceVersion is the requested one');
          assert.deepEqual(w.items, oldState, 'the items are the collection at the requested version');
          if (cell.paging === 'limit') assertPaging(w, pageSize);
          return;
        }
      }
    });
  }
});

describe('list: validation of resourceVersion, resourceVersionMatch and continue', { skip }, () => {
  let token = '';
  before(async () => {
    const first = await api('GET', `${collection}?limit=1`);
    expectCode(first, 200);
    token = first.body.metadata?.continue ?? '';
    assert.ok(token);
  });

  it('resourceVersionMatch Exact with continue (and a version) is forbidden', async () => {
    const res = await api('GET', `${collection}${query({ limit: '1', continue: token, resourceVersion: String(oldRevision), resourceVersionMatch: 'Exact' })}`);
    expectInvalidOptions(res, [forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided')]);
  });

  it('resourceVersionMatch NotOlderThan with continue (and a version) is forbidden', async () => {
    const res = await api(
      'GET',
      `${collection}${query({ limit: '1', continue: token, resourceVersion: String(oldRevision), resourceVersionMatch: 'NotOlderThan' })}`,
    );
    expectInvalidOptions(res, [forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided')]);
  });

  it('resourceVersionMatch with continue and without resourceVersion reports both errors', {}, async () => {
    const res = await api('GET', `${collection}${query({ limit: '1', continue: token, resourceVersionMatch: 'NotOlderThan' })}`);
    expectInvalidOptions(res, [
      forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'),
      forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
    ]);
  });

  it('an unknown resourceVersionMatch is not supported (supported values include "")', {}, async () => {
    const res = await api('GET', `${collection}${query({ resourceVersion: '1', resourceVersionMatch: 'Newest' })}`);
    expectInvalidOptions(res, [unsupported('resourceVersionMatch', 'Newest', ['Exact', 'NotOlderThan', ''])]);
  });

  it('an unknown resourceVersionMatch without resourceVersion reports both errors', {}, async () => {
    const res = await api('GET', `${collection}${query({ resourceVersionMatch: 'Newest' })}`);
    expectInvalidOptions(res, [
      forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'),
      unsupported('resourceVersionMatch', 'Newest', ['Exact', 'NotOlderThan', '']),
    ]);
  });

  it('sendInitialEvents is forbidden for list', {}, async () => {
    const res = await api('GET', `${collection}?sendInitialEvents=true`);
    expectInvalidOptions(res, [forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list')]);
  });

  it('a validation error wins over the continue + resourceVersion 400', async () => {
    const res = await api('GET', `${collection}${query({ continue: token, resourceVersion: '5', resourceVersionMatch: 'Exact' })}`);
    expectCode(res, 422);
  });
});

describe('chunked lists', { skip }, () => {
  it('a label selector fills every page but the last, and omits remainingItemCount', async () => {
    const selected = ['sel-a', 'sel-b', 'sel-c'];
    for (const name of ['sel-x', 'sel-a', 'sel-y', 'sel-b', 'sel-z', 'sel-c']) {
      const res = await api('POST', collection, { metadata: { name, labels: { chunk: selected.includes(name) ? 'yes' : 'no' } } });
      expectCode(res, 201);
      changes.push({ type: 'ADDED', name, rv: Number(res.body.metadata?.resourceVersion) });
    }
    const pages: TestResponse[] = [];
    let path = `${collection}?limit=2&labelSelector=chunk%3Dyes`;
    for (;;) {
      const page = await api('GET', path);
      expectCode(page, 200);
      pages.push(page);
      assert.equal(page.body.metadata?.remainingItemCount, undefined, 'no remainingItemCount with a selector');
      const next = page.body.metadata?.continue;
      if (!next) break;
      path = `${collection}?limit=2&labelSelector=chunk%3Dyes&continue=${encodeURIComponent(next)}`;
      assert.ok(pages.length < 10);
    }
    assert.deepEqual(
      pages.flatMap((p) => (p.body.items ?? []).map((i) => i.metadata.name)),
      selected,
    );
    for (const page of pages.slice(0, -1)) assert.equal(page.body.items?.length, 2, 'a page before the last is full');
  });

  it('a complete first page has neither continue nor remainingItemCount', async () => {
    const res = await api('GET', `${collection}?limit=500`);
    expectCode(res, 200);
    assert.equal(res.body.metadata?.continue, undefined);
    assert.equal(res.body.metadata?.remainingItemCount, undefined);
  });

  it("a malformed continue token is a 400 with upstream's message", {}, async () => {
    const res = await api('GET', `${collection}?limit=1&continue=${encodeURIComponent('not a token')}`);
    expectStatus(res, 400, 'BadRequest', /^invalid continue token: continue key is not valid: /);
  });
});

// ---- watch ----

describe('watch: resourceVersion semantics', { skip }, () => {
  const watchPath = (params: Record<string, string | undefined>): string => `${collection}${query({ watch: '1', ...params })}`;

  it('unset: Get State and Start at Most Recent — synthetic ADDED for the current state, then changes', async () => {
    const direct = await putDirect('cm-3', 'watch-unset');
    const w = await openWatch(main.server.url, main.tls, watchPath({}));
    try {
      expectCode({ status: w.status, text: w.text } as TestResponse, 200);
      const state = await etcdState(await etcdRevision());
      await w.waitFor((events) => events.length >= state.length, `${state.length} ADDED events`);
      const initial = w.events.slice(0, state.length);
      assert.ok(initial.every((e) => e.type === 'ADDED'));
      assert.deepEqual(
        initial.map((e) => ({ name: e.object.metadata.name, rv: revisionOf(e) })).sort((a, b) => a.name!.localeCompare(b.name!)),
        [...state].sort((a, b) => a.name.localeCompare(b.name)),
      );
      assert.ok(
        initial.some((e) => e.object.metadata.name === 'cm-3' && revisionOf(e) === direct),
        'the state is at least as new as the request',
      );
      const rv = await update('cm-0', 'after-watch-unset');
      await w.waitFor((events) => events.some((e) => revisionOf(e) === rv), 'the MODIFIED event');
      assert.deepEqual(
        w.events.slice(state.length).map((e) => [e.type, e.object.metadata.name, revisionOf(e)]),
        [['MODIFIED', 'cm-0', rv]],
      );
    } finally {
      w.close();
    }
  });

  it('0: Get State and Start at Any — synthetic ADDED for a consistent state, then changes', async () => {
    const w = await openWatch(main.server.url, main.tls, watchPath({ resourceVersion: '0' }));
    try {
      const state = await etcdState(await etcdRevision());
      await w.waitFor((events) => events.length >= state.length, `${state.length} ADDED events`);
      assert.ok(w.events.every((e) => e.type === 'ADDED'));
      assert.deepEqual(
        w.events.map((e) => ({ name: e.object.metadata.name, rv: revisionOf(e) })).sort((a, b) => a.name!.localeCompare(b.name!)),
        [...state].sort((a, b) => a.name.localeCompare(b.name)),
      );
      const rv = await update('cm-0', 'after-watch-0');
      await w.waitFor((events) => events.some((e) => revisionOf(e) === rv), 'the MODIFIED event');
      assert.deepEqual(w.events.at(-1)?.type, 'MODIFIED');
    } finally {
      w.close();
    }
  });

  it('a version: Start at Exact — every change after it, in order, without synthetic events', async () => {
    const expected = changes.filter((c) => c.rv > oldRevision);
    const w = await openWatch(main.server.url, main.tls, watchPath({ resourceVersion: String(oldRevision) }));
    try {
      await w.waitFor((events) => events.length >= expected.length, `${expected.length} events`);
      assert.deepEqual(
        w.events.map((e) => ({ type: e.type, name: e.object.metadata.name, rv: revisionOf(e) })),
        expected,
      );
    } finally {
      w.close();
    }
  });

  it('a version from a direct etcd write: the watch starts right after it', async () => {
    const start = await putDirect('cm-3', 'watch-start');
    const w = await openWatch(main.server.url, main.tls, watchPath({ resourceVersion: String(start) }));
    try {
      const rv = await putDirect('cm-3', 'watch-next');
      await w.waitFor((events) => events.length >= 1, 'one event');
      assert.deepEqual(
        w.events.map((e) => [e.type, e.object.metadata.name, revisionOf(e), e.object.data]),
        [['MODIFIED', 'cm-3', rv, { v: 'watch-next' }]],
      );
    } finally {
      w.close();
    }
  });

  it('a version the server has not reached: the watch waits for it rather than failing', {}, async () => {
    const future = (await etcdRevision()) + 3;
    const w = await openWatch(main.server.url, main.tls, watchPath({ resourceVersion: String(future), timeoutSeconds: '30' }));
    try {
      // Longer than the 3 s a read waits for the cache: the watch must still be there afterwards.
      await sleep(4000);
      const revisions: number[] = [];
      for (let i = 0; i < 5; i++) revisions.push(await update('cm-0', `future-${i}`));
      const wanted = revisions.filter((r) => r > future);
      await w.waitFor((events) => events.some((e) => e.type === 'ERROR') || events.length >= wanted.length, `${wanted.length} events`);
      assert.deepEqual(
        w.events.map((e) => [e.type, revisionOf(e)]),
        wanted.map((r) => ['MODIFIED', r]),
      );
    } finally {
      w.close();
    }
  });
});

describe('watch: validation of its options', { skip }, () => {
  const watchPath = (params: Record<string, string>): string => `${collection}${query({ watch: '1', ...params })}`;

  it('resourceVersionMatch without sendInitialEvents is forbidden', async () => {
    const res = await api('GET', watchPath({ resourceVersion: '1', resourceVersionMatch: 'NotOlderThan' }));
    expectInvalidOptions(res, [forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided')]);
  });

  it('resourceVersionMatch Exact on a watch: forbidden and not supported', {}, async () => {
    const res = await api('GET', watchPath({ resourceVersion: '1', resourceVersionMatch: 'Exact' }));
    expectInvalidOptions(res, [
      forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'),
      unsupported('resourceVersionMatch', 'Exact', ['NotOlderThan']),
    ]);
  });

  it('sendInitialEvents without resourceVersionMatch NotOlderThan is forbidden', async () => {
    const res = await api('GET', watchPath({ sendInitialEvents: 'true', allowWatchBookmarks: 'true' }));
    expectInvalidOptions(res, [forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan')]);
  });

  it('sendInitialEvents with resourceVersionMatch Exact: forbidden and not supported', {}, async () => {
    const res = await api('GET', watchPath({ sendInitialEvents: 'true', allowWatchBookmarks: 'true', resourceVersion: '1', resourceVersionMatch: 'Exact' }));
    expectInvalidOptions(res, [
      forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'),
      unsupported('resourceVersionMatch', 'Exact', ['NotOlderThan']),
    ]);
  });
});

// ---- too large resource versions (each waits for the cache first, so they run side by side) ----

describe('a version the server has not reached: 504 Too large resource version with Retry-After', { concurrency: true, skip }, () => {
  it('get', async () => {
    const future = await futureRevision();
    expectTooLarge(await api('GET', `${collection}/cm-0?resourceVersion=${future}`), future);
  });

  it('list, resourceVersionMatch unset, limit unset (Not older than)', async () => {
    const future = await futureRevision();
    expectTooLarge(await api('GET', `${collection}?resourceVersion=${future}`), future);
  });

  it('list, NotOlderThan, limit unset', async () => {
    const future = await futureRevision();
    expectTooLarge(await api('GET', `${collection}?resourceVersion=${future}&resourceVersionMatch=NotOlderThan`), future);
  });

  it('list, NotOlderThan, limit=n', {}, async () => {
    const future = await futureRevision();
    expectTooLarge(await api('GET', `${collection}?resourceVersion=${future}&resourceVersionMatch=NotOlderThan&limit=2`), future);
  });

  it("list, Exact (the spec's Errors row: a version the server does not recognize)", async () => {
    const future = await futureRevision();
    expectTooLarge(await api('GET', `${collection}?resourceVersion=${future}&resourceVersionMatch=Exact`), future);
  });
});

// ---- compaction (last: it removes the history the tests above read) ----

describe('compacted history: 410 Gone', { skip }, () => {
  let token = '';
  let tokenRevision = 0;
  let compactedAt = 0;
  let firstPageNames: string[] = [];

  before(async () => {
    const first = await api('GET', `${collection}?limit=2`);
    expectCode(first, 200);
    token = first.body.metadata?.continue ?? '';
    tokenRevision = listRevision(first);
    firstPageNames = (first.body.items ?? []).map((i) => i.metadata.name ?? '');
    assert.ok(token);
    await update('cm-0', 'before-compaction');
    compactedAt = await etcdRevision();
    await main.etcd.kv.compact({ revision: compactedAt, physical: true });
  });

  it("a continue token whose revision is compacted: 410 Expired with upstream's message", async () => {
    const res = await api('GET', `${collection}?limit=2&continue=${encodeURIComponent(token)}`);
    expectStatus(res, 410, 'Expired', inconsistentContinue);
  });

  it('that 410 carries a continue token that resumes the list at the newest revision', async () => {
    const res = await api('GET', `${collection}?limit=2&continue=${encodeURIComponent(token)}`);
    expectCode(res, 410);
    const resume = res.body.metadata?.continue;
    assert.ok(resume, `no continue token in ${res.text}`);
    const next = await api('GET', `${collection}?limit=100&continue=${encodeURIComponent(resume)}`);
    expectCode(next, 200);
    const revision = listRevision(next);
    assert.ok(revision >= compactedAt);
    const rest = (await etcdState(revision)).filter((e) => e.name > (firstPageNames.at(-1) ?? ''));
    assert.deepEqual(entries(next.body.items), rest);
  });

  it('an Exact list at a compacted revision: 410 Expired', async () => {
    const res = await api('GET', `${collection}?resourceVersion=${tokenRevision}&resourceVersionMatch=Exact`);
    expectStatus(res, 410, 'Expired', tooOldList);
  });

  it('an Exact list with a limit at a compacted revision: 410 Expired', async () => {
    const res = await api('GET', `${collection}?resourceVersion=${tokenRevision}&resourceVersionMatch=Exact&limit=2`);
    expectStatus(res, 410, 'Expired', tooOldList);
  });

  it('a list with a limit and a compacted version (legacy Exact): 410 Expired', async () => {
    const res = await api('GET', `${collection}?resourceVersion=${tokenRevision}&limit=2`);
    expectStatus(res, 410, 'Expired', tooOldList);
  });

  it('a Not older than list at a compacted version is still served', async () => {
    const res = await api('GET', `${collection}?resourceVersion=${tokenRevision}&resourceVersionMatch=NotOlderThan`);
    expectCode(res, 200);
    assert.ok(listRevision(res) >= tokenRevision);
  });

  it('a Not older than list with a limit at a compacted version is still served', {}, async () => {
    const res = await api('GET', `${collection}?resourceVersion=${tokenRevision}&resourceVersionMatch=NotOlderThan&limit=2`);
    expectCode(res, 200);
    assert.ok(listRevision(res) >= tokenRevision);
  });

  it('a get at a compacted version is still served', async () => {
    const res = await api('GET', `${collection}/cm-0?resourceVersion=${tokenRevision}`);
    expectCode(res, 200);
    assert.deepEqual(res.body.data, { v: 'before-compaction' });
  });

  /** Opens a watch from `rv`, then writes an object: a watch that cannot replay what it missed must fail before that write shows up. */
  async function firstEventAfterProbe(path: string, rv: number, probe: () => Promise<unknown>): Promise<WatchEvent[]> {
    const w = await openWatch(main.server.url, main.tls, `${path}?watch=1&resourceVersion=${rv}`);
    try {
      expectCode({ status: w.status, text: w.text } as TestResponse, 200);
      await probe();
      await w.waitFor((events) => events.length >= 1, 'an event');
      if (w.events[0]?.type === 'ERROR') await w.done;
      return [...w.events];
    } finally {
      w.close();
    }
  }

  it('a watch from a compacted version older than the watch cache: ERROR event, 410 Expired', {}, async () => {
    const events = await firstEventAfterProbe(collection, compactedBeforeStart, () => create('probe-compacted'));
    assert.equal(events.length, 1, `nothing follows the ERROR event: ${JSON.stringify(events.map((e) => e.type))}`);
    const [event] = events as [WatchEvent];
    assert.equal(event.type, 'ERROR', JSON.stringify(event));
    assert.equal(event.object.kind, 'Status');
    assert.equal(event.object.code, 410);
    assert.equal(event.object.reason, 'Expired');
    // Upstream 1.32 serves every watch with a resourceVersion from its watch cache, whose message this is.
    assert.match(event.object.message ?? '', new RegExp(`^too old resource version: ${compactedBeforeStart} \\(\\d+\\)$`));
  });

  it('a watch from before the watch cache started, on history etcd still has: every change since, or 410 — never a gap', {}, async () => {
    const events = await firstEventAfterProbe(preStartCollection, preStartRevision, async () => {
      expectCode(await api('POST', '/api/v1/namespaces', { metadata: { name: 'rv-prestart' } }), 201);
      expectCode(await api('POST', preStartCollection, { metadata: { name: 'probe' } }), 201);
    });
    if (events[0]?.type === 'ERROR') {
      assert.equal(events[0].object.code, 410);
      assert.equal(events[0].object.reason, 'Expired');
      return;
    }
    assert.deepEqual(
      events.slice(0, 2).map((e) => [e.type, e.object.metadata.name]),
      [
        ['ADDED', 'ghost'],
        ['DELETED', 'ghost'],
      ],
    );
  });
});

// ---- the compactor itself (its own etcd and server: it compacts every second) ----

describe('--etcd-compaction-interval=1s', { skip }, () => {
  let s: Setup | undefined;
  const cms = '/api/v1/namespaces/default/configmaps';

  before(async () => {
    s = await startServer('compactor', ['--etcd-compaction-interval=1s']);
  });
  after(async () => {
    await stopServer(s);
  });

  it('compacts history: an old continue token and an old Exact list become 410 Expired', async () => {
    assert.ok(s);
    const setup = s;
    for (const name of ['a', 'b', 'c']) expectCode(await setup.client.request('POST', cms, { metadata: { name } }), 201);
    const first = await setup.client.request('GET', `${cms}?limit=1`);
    expectCode(first, 200);
    const token = first.body.metadata?.continue ?? '';
    const revision = listRevision(first);
    const deadline = Date.now() + 60_000;
    let res: TestResponse;
    // Keep the cluster's revision moving so that every compaction round has something to compact.
    for (let i = 0; ; i++) {
      expectCode(await setup.client.request('PATCH', `${cms}/a`, { data: { i: String(i) } }, { 'content-type': 'application/merge-patch+json' }), 200);
      res = await setup.client.request('GET', `${cms}?limit=1&continue=${encodeURIComponent(token)}`);
      if (res.status !== 200 || Date.now() > deadline) break;
      await sleep(250);
    }
    expectStatus(res, 410, 'Expired', inconsistentContinue);
    expectStatus(await setup.client.request('GET', `${cms}?resourceVersion=${revision}&resourceVersionMatch=Exact`), 410, 'Expired', tooOldList);
  });
});
