/**
 * The store's own KV calls against a real etcd: what they write is what etcd3's client reads back
 * (leases with IDs beyond 2^53, values whose lengths take three bytes, UTF-8 keys), what they read
 * is etcd's, and their failures are the ones errors.ts classifies as before.
 */
import assert from 'node:assert/strict';
import { createServer as createHttp2Server } from 'node:http2';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { describe, it } from 'node:test';
import { isBrokenCircuitError } from 'cockatiel';
import { skipUnlessEtcd } from '../../../shared/etcd/availability.ts';
import { useProxiedEtcd } from '../../testing/etcd.ts';
import { waitFor } from '../../testing/wait-for.ts';
import { classifyEtcdError, isEtcdUnreachable, isUndelivered } from './errors.ts';
import { EtcdKvClient, GrpcMessageReader, type KvClientOptions } from './kv-client.ts';
import { prefixEnd } from './store.ts';

const options = (endpoints: string[], requestTimeoutMs = 5_000): KvClientOptions => ({
  endpoints,
  requestTimeoutMs,
  windowBytes: 1024 * 1024,
  maxSendBytes: 16 * 1024 * 1024,
  maxReceiveBytes: 64 * 1024 * 1024,
});

/** A port nothing listens on (taken and released). */
async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('EtcdKvClient (real etcd)', { skip: skipUnlessEtcd() }, () => {
  const etcd = useProxiedEtcd('kv-client');
  const kv = (): EtcdKvClient => etcd().client.kvCalls;

  it('writes what etcd3 reads back: a lease ID beyond 2^53, a value of 200 KiB of two-byte characters, a UTF-8 key; and reads it back alike', async () => {
    const { ID: lease } = await etcd().client.leaseClient.leaseGrant({ TTL: 600 });
    assert.ok(BigInt(lease) > BigInt(Number.MAX_SAFE_INTEGER), `etcd's lease IDs use all 64 bits (${lease})`);
    const key = Buffer.from('/registry/configmaps/ns/größe');
    const value = `{"data":"${'é'.repeat(100 * 1024)}"}`;
    const res = await kv().txn({ compare: [{ key, modRevision: 0 }], success: [{ put: { key, value, lease } }] });
    assert.equal(res.succeeded, true);
    const [read] = (await etcd().client.kv.range({ key })).kvs;
    assert.equal(read?.lease, lease);
    assert.equal(read?.mod_revision, String(res.revision));
    assert.equal(read?.value.toString('utf8'), value);
    const mine = await kv().range({ key });
    assert.deepEqual(mine.kvs, [{ key: key.toString('utf8'), text: value, modRevision: res.revision }]);
    assert.equal(mine.count, 1);
    assert.equal(mine.more, false);
  });

  it('a failed compare answers with the failure branch: the current value', async () => {
    const key = Buffer.from('/registry/configmaps/ns/cas');
    const first = await kv().txn({ compare: [{ key, modRevision: 0 }], success: [{ put: { key, value: '{"v":1}' } }] });
    const lost = await kv().txn({
      compare: [{ key, modRevision: first.revision - 1 }],
      success: [{ deleteRange: { key } }],
      failure: [{ range: { key } }],
    });
    assert.equal(lost.succeeded, false);
    const [answer] = lost.responses;
    assert.ok(answer && 'range' in answer);
    assert.deepEqual(answer.range.kvs, [{ key: key.toString('utf8'), text: '{"v":1}', modRevision: first.revision }]);
    const deleted = await kv().txn({ compare: [{ key, modRevision: first.revision }], success: [{ deleteRange: { key } }] });
    assert.equal(deleted.succeeded, true);
    assert.deepEqual(deleted.responses, [{ deleteRange: true }]);
    assert.equal((await kv().range({ key })).kvs.length, 0);
  });

  it('ranges with a limit, a past revision and counts only, as etcd3 reads them', async () => {
    const prefix = '/registry/secrets/range/';
    let revision = 0;
    for (const name of ['a', 'b', 'c']) {
      const key = Buffer.from(prefix + name);
      revision = (await kv().txn({ compare: [{ key, modRevision: 0 }], success: [{ put: { key, value: `"${name}"` } }] })).revision;
    }
    const page = await kv().range({ key: Buffer.from(prefix), rangeEnd: prefixEnd(prefix), limit: 2 });
    assert.deepEqual(
      page.kvs.map((kv) => kv.text),
      ['"a"', '"b"'],
    );
    assert.equal(page.more, true);
    assert.equal(page.count, 3);
    const before = await kv().range({ key: Buffer.from(prefix), rangeEnd: prefixEnd(prefix), revision: revision - 1 });
    assert.equal(before.kvs.length, 2);
    const counted = await kv().range({ key: Buffer.from(prefix), rangeEnd: prefixEnd(prefix), countOnly: true });
    const theirs = await etcd().client.kv.range({ key: Buffer.from(prefix), range_end: prefixEnd(prefix), count_only: true });
    assert.equal(counted.count, 3);
    assert.equal(counted.kvs.length, 0);
    assert.ok(counted.revision >= revision);
    assert.equal(String(counted.revision), theirs.header.revision);
  });

  it("etcd's refusals keep their codes: too large, compacted, a future revision", async () => {
    const key = Buffer.from('/registry/configmaps/ns/large');
    const tooLarge = await kv()
      .txn({ compare: [{ key, modRevision: 0 }], success: [{ put: { key, value: 'x'.repeat(2 * 1024 * 1024) } }] })
      .catch((err: unknown) => err);
    assert.equal(classifyEtcdError(tooLarge, 'k').code, 'TooLarge', String(tooLarge));
    const written = await kv().txn({ compare: [{ key, modRevision: 0 }], success: [{ put: { key, value: '{}' } }] });
    await etcd().client.kv.compact({ revision: written.revision });
    const compacted = await kv()
      .range({ key, revision: written.revision - 1 })
      .catch((err: unknown) => err);
    assert.equal(classifyEtcdError(compacted, 'k').code, 'Compacted', String(compacted));
    const future = await kv()
      .range({ key, revision: written.revision + 1000 })
      .catch((err: unknown) => err);
    assert.equal(classifyEtcdError(future, 'k').code, 'FutureRevision', String(future));
    // None of that counted as etcd being unreachable.
    assert.equal((await kv().range({ key })).kvs.length, 1);
  });

  it('a call that cannot connect is undelivered; three in a row open the breaker, which fails calls at once', async () => {
    const client = new EtcdKvClient(options([`http://127.0.0.1:${await closedPort()}`]));
    try {
      const first = await client.range({ key: Buffer.from('/x') }).catch((err: unknown) => err);
      assert.equal(isUndelivered(first), true, String(first));
      assert.equal(classifyEtcdError(first, 'k').code, 'Unavailable');
      const broken = await client.range({ key: Buffer.from('/x') }).catch((err: unknown) => err);
      assert.equal(isBrokenCircuitError(broken), true, String(broken));
      assert.equal(classifyEtcdError(broken, 'k').code, 'Unavailable');
    } finally {
      client.close();
    }
  });

  it('a call goes to a member that answers when another cannot be reached', async () => {
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const client = new EtcdKvClient(options([dead, ...etcd().process.endpoints]));
    try {
      for (let i = 0; i < 10; i++) assert.ok((await client.range({ key: Buffer.from('/x'), countOnly: true })).revision > 0);
    } finally {
      client.close();
    }
  });

  it('a call etcd does not answer ends at its deadline (Timeout); calls after the stall go through', async () => {
    const client = new EtcdKvClient(options([etcd().proxy.url], 300));
    try {
      assert.ok((await client.range({ key: Buffer.from('/x'), countOnly: true })).revision > 0);
      etcd().proxy.pause();
      const started = Date.now();
      const stalled = await client.range({ key: Buffer.from('/x') }).catch((err: unknown) => err);
      assert.equal(classifyEtcdError(stalled, 'k').code, 'Timeout', String(stalled));
      assert.ok(Date.now() - started < 5_000);
      etcd().proxy.resume();
      assert.ok((await client.range({ key: Buffer.from('/x'), countOnly: true })).revision > 0);
    } finally {
      etcd().proxy.resume();
      client.close();
    }
  });

  it('a connection cut under it: the call in flight fails as not undelivered, the next one connects afresh', async () => {
    const client = new EtcdKvClient(options([etcd().proxy.url]));
    try {
      assert.ok((await client.range({ key: Buffer.from('/x'), countOnly: true })).revision > 0);
      etcd().proxy.pause();
      const inFlight = client.range({ key: Buffer.from('/x') }).catch((err: unknown) => err);
      await new Promise((resolve) => setTimeout(resolve, 100));
      etcd().proxy.cut();
      etcd().proxy.resume();
      const failed = await inFlight;
      assert.equal(classifyEtcdError(failed, 'k').code, 'Unavailable', String(failed));
      assert.equal(isUndelivered(failed), false, 'it may have reached etcd');
      assert.ok((await client.range({ key: Buffer.from('/x'), countOnly: true })).revision > 0);
    } finally {
      etcd().proxy.resume();
      client.close();
    }
  });
});

describe('GrpcMessageReader', () => {
  const frame = (body: string, flag = 0): Buffer => {
    const bytes = Buffer.from(body);
    const prefix = Buffer.alloc(5);
    prefix[0] = flag;
    prefix.writeUInt32BE(bytes.length, 1);
    return Buffer.concat([prefix, bytes]);
  };

  it('reads several messages from one chunk and one message from several, byte by byte too', () => {
    const stream = Buffer.concat([frame('first'), frame(''), frame('a longer third message'), frame('4')]);
    for (const cut of [stream.length, 7, 1]) {
      const reader = new GrpcMessageReader(1024);
      const seen: string[] = [];
      for (let at = 0; at < stream.length; at += cut) reader.push(stream.subarray(at, at + cut), (m) => void seen.push(m.toString()));
      assert.deepEqual(seen, ['first', '', 'a longer third message', '4'], `chunks of ${cut} bytes`);
    }
  });

  it('refuses a compressed message and one beyond its limit, before reading it whole', () => {
    assert.throws(() => new GrpcMessageReader(1024).push(frame('x', 1), () => {}), /compressed/);
    const big = frame('y'.repeat(2000));
    assert.throws(() => new GrpcMessageReader(1024).push(big.subarray(0, 10), () => {}), /larger than max \(2000 vs\. 1024\)/);
  });
});

describe('EtcdKvClient.stream (an HTTP/2 server in etcd’s place)', () => {
  const framed = (body: string): Buffer => {
    const bytes = Buffer.from(body);
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(bytes.length, 1);
    return Buffer.concat([prefix, bytes]);
  };

  /** A server answering every stream with `answer`'s bytes in one DATA frame, then `status` in the trailers (or holding it open). */
  async function server(
    answer: Buffer,
    status: { code: number; message: string } | undefined,
  ): Promise<{ url: string; headers: Record<string, string | string[] | undefined>[]; close(): void }> {
    const seen: Record<string, string | string[] | undefined>[] = [];
    const h2 = createHttp2Server();
    h2.on('stream', (stream, headers) => {
      seen.push(headers);
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: status !== undefined });
      if (status)
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': String(status.code), 'grpc-message': encodeURIComponent(status.message) }));
      stream.write(answer);
      if (status) stream.end();
    });
    await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(h2.address() as AddressInfo).port}`, headers: seen, close: () => h2.close() };
  }

  it("sends the first message with the call's metadata, hands on each message, and stops at once when closed by one of them", async () => {
    const etcd = await server(Buffer.concat([framed('one'), framed('two'), framed('three')]), undefined);
    const client = new EtcdKvClient(options([etcd.url]));
    try {
      const got: string[] = [];
      const ended: Error[] = [];
      const stream = client.stream(
        '/etcdserverpb.Watch/Watch',
        framed('create'),
        { hasleader: 'true' },
        {
          onMessage: (m) => {
            got.push(m.toString());
            if (got.length === 2) stream.close();
          },
          onEnd: (err) => void ended.push(err),
        },
      );
      await waitFor('two messages', () => got.length === 2);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(got, ['one', 'two']);
      assert.deepEqual(ended, []);
      assert.equal(etcd.headers[0]?.[':path'], '/etcdserverpb.Watch/Watch');
      assert.equal(etcd.headers[0]?.['hasleader'], 'true');
    } finally {
      client.close();
      etcd.close();
    }
  });

  it("ends with etcd's status as etcd3's error, or as Unavailable when nothing answers", async () => {
    const etcd = await server(framed('x'), { code: 14, message: 'etcdserver: no leader' });
    const client = new EtcdKvClient(options([etcd.url]));
    const refused = new EtcdKvClient(options([`http://127.0.0.1:${await closedPort()}`]));
    try {
      const ends: Error[] = [];
      const handlers = { onMessage: () => {}, onEnd: (err: Error) => void ends.push(err) };
      client.stream('/etcdserverpb.Watch/Watch', framed('create'), {}, handlers);
      refused.stream('/etcdserverpb.Watch/Watch', framed('create'), {}, handlers);
      await waitFor('both ended', () => ends.length === 2);
      const answered = ends.find((e) => e.message.includes('no leader'));
      const unanswered = ends.find((e) => e !== answered);
      assert.equal(answered?.message, '14 UNAVAILABLE: etcdserver: no leader');
      assert.ok(isEtcdUnreachable(answered));
      assert.match(unanswered?.message ?? '', /^14 UNAVAILABLE: No connection established/);
      assert.ok(isUndelivered(unanswered));
    } finally {
      client.close();
      refused.close();
      etcd.close();
    }
  });
});
