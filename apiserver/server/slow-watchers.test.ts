/**
 * Slow and hostile watchers against an in-process API server on the embedded store (issue 10, finding 2,
 * at a bounded scale): watches that never read (HTTP/1.1 sockets left unread, HTTP/2 streams never
 * consumed, so their flow-control window closes) in every representation, most of them Tables
 * carrying the whole object as in the finding, while 100 KB ConfigMaps change. The server must stay
 * up, its unsent watch bytes must stay within the replica's budget (asserted on the budget's own
 * accounting), every stalled watcher must be closed, and watchers that read must receive every
 * event, in order.
 *
 * The budget's limits are narrowed so that a few watchers reach them; nothing here depends on
 * timing: the blocked timeout is either out of reach (budget test) or zero (timeout test).
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import type { ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type RunningApiServer } from '../app.ts';
import { pkiPaths } from '../auth/pki-setup.ts';
import { configFromFlags, parseFlags } from '../config.ts';
import { createTestClient, type TestClient } from '../testing/client.ts';
import { openWatch, type WatchConnection, type WatchEvent } from '../testing/watch-stream.ts';
import { waitFor } from '../testing/wait-for.ts';
import { createLogger } from './logging.ts';
import { defaultWatchBudgetLimits } from './watch-budget.ts';

const workDir = mkdtempSync(join(tmpdir(), 'corral-slow-watchers-'));
const dataDir = join(workDir, 'data');
let server: RunningApiServer;
let client: TestClient;

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const accepts = {
  table: tableAccept,
  json: 'application/json',
  protobuf: 'application/vnd.kubernetes.protobuf',
  metadata: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
} as const;
const configMaps = '/api/v1/namespaces/default/configmaps';
const objectBytes = 100 * 1024;
/** Updates after which a test gives up: far more than any stalled watcher needs to be closed. */
const maxUpdates = 400;

before(async () => {
  const config = configFromFlags(parseFlags(['--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dataDir}`, '--etcd-compaction-interval=0']));
  server = await startApiServer(config, createLogger('warn', 'apiserver'));
  client = createTestClient(server.url, dataDir);
});

after(async () => {
  client?.close();
  await server?.close();
  rmSync(workDir, { recursive: true, force: true });
});

afterEach(() => {
  server.watchBudget.limits = defaultWatchBudgetLimits;
});

function tls() {
  const pki = pkiPaths(dataDir);
  return { ca: readFileSync(pki.caCert, 'utf8'), cert: readFileSync(pki.adminCert, 'utf8'), key: readFileSync(pki.adminKey, 'utf8') };
}

/** Creates a ConfigMap of about 100 KB; its resourceVersion, where the watches start. */
async function createConfigMap(name: string): Promise<number> {
  const res = await client.request('POST', configMaps, { metadata: { name }, data: { big: 'x'.repeat(objectBytes) } });
  assert.equal(res.status, 201, res.text);
  return Number(res.body.metadata?.resourceVersion);
}

/** Rewrites the ConfigMap's 100 KB; the new resourceVersion. */
async function update(name: string, round: number): Promise<number> {
  const value = `${round}-`.padEnd(objectBytes, String.fromCharCode(97 + (round % 26)));
  const res = await client.request('PATCH', `${configMaps}/${name}`, { data: { big: value } }, { 'content-type': 'application/merge-patch+json' });
  assert.equal(res.status, 200, res.text);
  return Number(res.body.metadata?.resourceVersion);
}

const watchPath = (name: string, from: number): string =>
  `${configMaps}?watch=1&includeObject=Object&resourceVersion=${from}&fieldSelector=metadata.name%3D${name}`;

/** An HTTP/1.1 watch whose body is never read: once Node's buffers fill, the socket is not read either. */
function unreadHttp1Watch(path: string, accept: string): Promise<ClientRequest> {
  const { ca, cert, key } = tls();
  const target = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, headers: { accept }, ca, cert, key, agent: false },
      (res) => {
        assert.equal(res.statusCode, 200);
        resolve(req);
      },
    );
    req.once('error', reject);
    req.end();
  });
}

interface Http2Watch {
  /**
   * Reads whatever is left and resolves with the stream's RST_STREAM code once it is closed (a
   * closed stream's 'close' waits until its data has been read).
   */
  closed(): Promise<number>;
  /** The JSON lines received (only when reading). */
  lines: string[];
}

/** An HTTP/2 watch; when `read` is false its data is never consumed, so its window never reopens. */
function http2Watch(session: ClientHttp2Session, path: string, accept: string, read: boolean): Promise<Http2Watch> {
  const stream = session.request({ ':path': path, accept });
  const lines: string[] = [];
  let pending = '';
  if (read) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      pending += chunk;
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      lines.push(...parts);
    });
  }
  stream.on('error', () => {});
  const ended = new Promise<number>((resolve) => stream.once('close', () => resolve(stream.rstCode ?? -1)));
  const closed = (): Promise<number> => {
    stream.resume();
    return ended;
  };
  return new Promise((resolve, reject) => {
    stream.once('response', (headers) => {
      if (headers[':status'] === 200) resolve({ closed, lines });
      else reject(new Error(`watch answered ${String(headers[':status'])}`));
    });
  });
}

/** A Table watch event's object: one row, carrying the whole object (includeObject=Object). */
type TableEventObject = WatchEvent['object'] & { rows?: { object?: { metadata?: { resourceVersion?: string } } }[] };

/** The resourceVersions of a Table watch's rows, in arrival order. */
function tableRevisions(events: readonly WatchEvent[]): number[] {
  return events.map((e) => Number((e.object as TableEventObject).rows?.[0]?.object?.metadata?.resourceVersion));
}

function jsonTableRevisions(lines: readonly string[]): number[] {
  return tableRevisions(lines.map((line) => JSON.parse(line) as WatchEvent));
}

/** Keeps updating until `done` holds, at most `maxUpdates` times; the resourceVersions written. */
async function updateUntil(name: string, done: () => boolean): Promise<number[]> {
  const written: number[] = [];
  for (let round = 0; !done(); round++) {
    assert.ok(round < maxUpdates, `still ${server.watchBudget.watchers} watchers open after ${maxUpdates} updates`);
    written.push(await update(name, round));
  }
  return written;
}

describe('watchers that do not read', () => {
  it('are evicted to keep the replica within its budget; readers get every event', async () => {
    const limits = { totalBytes: 4 * 1024 * 1024, watcherBytes: 128 * 1024, watcherFrames: 100, blockedTimeoutMs: 60 * 60 * 1000 };
    server.watchBudget.limits = limits;
    const from = await createConfigMap('budget');
    const path = watchPath('budget', from);
    const session = http2Connect(server.url, tls());
    const baseline = server.watchBudget.watchers;
    try {
      const reader = await openWatch(server.url, tls(), path, { accept: tableAccept });
      const http2Reader = await http2Watch(session, path, tableAccept, true);
      const stalledHttp2 = await Promise.all(
        [accepts.table, accepts.table, accepts.json, accepts.protobuf].map((accept) => http2Watch(session, path, accept, false)),
      );
      const stalledHttp1 = await Promise.all([unreadHttp1Watch(path, accepts.table), unreadHttp1Watch(path, accepts.protobuf)]);
      const readers = 2;
      assert.equal(server.watchBudget.watchers, baseline + readers + stalledHttp2.length + stalledHttp1.length);
      server.watchBudget.resetPeak();
      const closedBefore = server.watchBudget.closed.budget;

      const written = await updateUntil('budget', () => server.watchBudget.watchers === baseline + readers);

      assert.ok(server.watchBudget.peakBufferedBytes <= limits.totalBytes, `peak ${server.watchBudget.peakBufferedBytes} over the budget`);
      assert.ok(server.watchBudget.peakBufferedBytes > limits.totalBytes / 2, 'the stalled watchers did fill the budget');
      assert.equal(server.watchBudget.closed.budget - closedBefore, stalledHttp2.length + stalledHttp1.length);
      // The evicted HTTP/2 streams are reset; their session, which the readers share, lives on.
      await Promise.all(stalledHttp2.map((w) => w.closed()));
      assert.equal(session.closed, false);

      const last = written.at(-1) ?? 0;
      await reader.waitFor((events) => tableRevisions(events).includes(last), `revision ${last}`);
      assert.deepEqual(tableRevisions(reader.events), written);
      assert.equal(reader.ended, false);
      await waitFor(`revision ${last} at the HTTP/2 reader`, () => jsonTableRevisions(http2Reader.lines).includes(last));
      assert.deepEqual(jsonTableRevisions(http2Reader.lines), written);

      const live = await client.request('GET', '/livez');
      assert.equal(live.status, 200);
      reader.close();
      for (const req of stalledHttp1) req.destroy();
    } finally {
      session.destroy();
    }
  });

  it('are closed once they stay over their own limit (bytes or frames) past the timeout', async () => {
    server.watchBudget.limits = { ...defaultWatchBudgetLimits, watcherBytes: 1024 * 1024, watcherFrames: 20, blockedTimeoutMs: 0 };
    const from = await createConfigMap('timeout');
    const path = watchPath('timeout', from);
    const session = http2Connect(server.url, tls());
    const baseline = server.watchBudget.watchers;
    try {
      const reader: WatchConnection<WatchEvent> = await openWatch(server.url, tls(), path, { accept: tableAccept });
      // Large Table frames reach the byte limit; small PartialObjectMetadata frames the frame limit.
      const stalled = await Promise.all([accepts.table, accepts.metadata].map((accept) => http2Watch(session, path, accept, false)));
      const closedBefore = server.watchBudget.closed.blocked;

      const written = await updateUntil('timeout', () => server.watchBudget.watchers === baseline + 1);

      assert.equal(server.watchBudget.closed.blocked - closedBefore, stalled.length);
      await Promise.all(stalled.map((w) => w.closed()));
      const last = written.at(-1) ?? 0;
      await reader.waitFor((events) => tableRevisions(events).includes(last), `revision ${last}`);
      assert.deepEqual(tableRevisions(reader.events), written);
      reader.close();
    } finally {
      session.destroy();
    }
  });
});
