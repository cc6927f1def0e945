/**
 * The store's calls to etcd as gRPC over node:http2, one HTTP/2 connection per member: the unary
 * KV calls (Range and Txn: every read and write of an object, messages in kv-messages.ts) and the
 * streams of its watches (`stream`; watch.ts drives them, messages in watch-messages.ts).
 * Everything else (leases, compaction, the migration tool) goes through the etcd3 library.
 *
 * Why hand-written: through etcd3 and grpc-js, one compare-and-swap cost its caller about 190 µs of
 * CPU (etcd3's pool and cockatiel policies, grpc-js's interceptors, resolving, load-balancing and
 * subchannel calls, protobufjs objects with every 64-bit number turned into a string); the same
 * Txn as one HTTP/2 request costs about 70 µs (a lab on this project's 2-core machine, 32 writers).
 * Through the store, a Lease update costs 135-150 µs of CPU instead of 190-210 µs, and one replica
 * writes about a fifth more per second. gRPC's unary protocol is small: a POST of one
 * length-prefixed message, one message back, the status in the trailers.
 *
 * Contracts, the same as etcd3 gave the store (store.ts, errors.ts rely on them):
 * - Failures are etcd3's error classes with grpc-js's messages (`14 UNAVAILABLE: ...`), made by
 *   etcd3's own castGrpcError, so that errors.ts classifies them as before.
 * - A call that never reached etcd (no connection could be made) is Unavailable with "No
 *   connection established": only such a call may be repeated (isUndelivered). The policy repeats
 *   it up to three times, on another member when there are several.
 * - Each member has a circuit breaker: after three calls in a row find it unreachable (Unavailable,
 *   DeadlineExceeded) its calls fail at once for a second; a call goes to the next member whose
 *   breaker lets it through. A request etcd refuses for its content never counts (errors.ts).
 * - A call has a deadline (sent to etcd as grpc-timeout too); past it, it is cancelled and fails
 *   with DeadlineExceeded.
 * - A connection that failed (or that etcd is closing) is dropped; the next call connects afresh.
 * - A stream is opened on the members in turn (each one after the last one tried) and reports its
 *   end once, as the same errors; it is never repeated here: its caller resumes it (watch.ts).
 */
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { isBrokenCircuitError } from 'cockatiel';
import { castGrpcError, ClientClosedError, isRecoverableError } from 'etcd3';
import { memberPolicy, undeliveredRetry } from './policies.ts';
import {
  decodeRangeResponse,
  decodeTxnResponse,
  encodeRangeRequest,
  encodeTxnRequest,
  grpcPrefixBytes,
  type RangeRequest,
  type RangeResponse,
  type TxnRequest,
  type TxnResponse,
} from './kv-messages.ts';

export interface KvClientOptions {
  /** The members' client URLs (http:// or https://). */
  endpoints: string[];
  /** Deadline of one call. */
  requestTimeoutMs: number;
  /** The HTTP/2 window of each connection and stream (see connectEtcd). */
  windowBytes: number;
  /** The largest message sent and received (gRPC's limits, as etcd3 was configured). */
  maxSendBytes: number;
  maxReceiveBytes: number;
}

/** gRPC's status codes used here, and grpc-js's names for all of them (its messages read `<code> <NAME>: <details>`). */
const UNAVAILABLE = 14;
const DEADLINE_EXCEEDED = 4;
const RESOURCE_EXHAUSTED = 8;
const INTERNAL = 13;
const statusNames = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];

/** grpc-message's text (percent-encoded, as gRPC sends it); as it came when it is not valid encoding. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The gRPC status of a call, once its stream brought one. */
class GrpcStatus {
  code: number | undefined;
  details = '';

  constructor(stream: ClientHttp2Stream) {
    const read = (headers: IncomingHttpHeaders): void => {
      const code = headers['grpc-status'];
      if (typeof code !== 'string') return;
      this.code = Number(code);
      const text = headers['grpc-message'];
      this.details = typeof text === 'string' ? percentDecoded(text) : '';
    };
    // A call etcd answers at once with its status (a trailers-only answer) has it in the headers.
    stream.on('response', read);
    stream.on('trailers', read);
  }
}

/** A failed call as etcd3 reports it: its typed error for the gRPC status. */
function grpcError(code: number, details: string): Error {
  return castGrpcError(Object.assign(new Error(`${code} ${statusNames[code] ?? 'UNKNOWN'}: ${details}`), { code }));
}

/** A call that never reached etcd, as grpc-js words it (isUndelivered: it may be repeated). */
function unconnected(cause: string): Error {
  return grpcError(UNAVAILABLE, `No connection established. Last error: ${cause}`);
}

class Member {
  private session: ClientHttp2Session | undefined;
  /** The connections that were made (their 'connect' came): calls on them may have reached etcd. */
  private readonly established = new WeakSet<ClientHttp2Session>();
  readonly policy = memberPolicy();

  constructor(
    readonly url: string,
    private readonly options: KvClientOptions,
  ) {}

  /** The member's connection, made when there is none (or it is closing). */
  connection(): ClientHttp2Session {
    const current = this.session;
    if (current && !current.closed && !current.destroyed) return current;
    const { windowBytes } = this.options;
    const session = connect(this.url, { settings: { initialWindowSize: windowBytes }, maxSessionMemory: 64 });
    this.session = session;
    session.once('connect', () => {
      this.established.add(session);
      session.setLocalWindowSize(windowBytes);
    });
    const forget = (): void => {
      if (this.session === session) this.session = undefined;
    };
    // A failed connection fails its calls (each stream reports it); the next call connects afresh.
    session.on('error', forget);
    session.once('close', forget);
    // etcd is going away (a restart): calls in flight finish on this connection, new ones take a new one.
    session.once('goaway', forget);
    session.unref();
    return session;
  }

  /**
   * A call's stream on the member's connection (made when there is none), with `metadata` beside
   * gRPC's own headers; throws `unconnected` when none can be opened.
   */
  request(path: string, metadata: Record<string, string>): { stream: ClientHttp2Stream; session: ClientHttp2Session } {
    const session = this.connection();
    try {
      const stream = session.request(
        {
          [constants.HTTP2_HEADER_METHOD]: 'POST',
          [constants.HTTP2_HEADER_PATH]: path,
          [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
          [constants.HTTP2_HEADER_TE]: 'trailers',
          ...metadata,
        },
        { endStream: false },
      );
      return { stream, session };
    } catch (err) {
      this.reset();
      throw unconnected(err instanceof Error ? err.message : String(err));
    }
  }

  /**
   * Why a call's stream on `session` closed without a gRPC status: its connection dropped, or was
   * never made, and then nothing of the call can have reached etcd.
   */
  lost(session: ClientHttp2Session, stream: ClientHttp2Stream, failure: Error | undefined): Error {
    const cause = failure?.message ?? `the stream closed with code ${stream.rstCode ?? 0}`;
    return this.established.has(session) ? grpcError(UNAVAILABLE, `Connection dropped: ${cause}`) : unconnected(cause);
  }

  /** Drops the connection (after a failure etcd3 would have reset its connections for). */
  reset(): void {
    const session = this.session;
    this.session = undefined;
    session?.destroy();
  }
}

/** What a stream's owner is told: each message, then its end (once; not after `close`). */
export interface GrpcStreamHandlers {
  /** One message, without its gRPC prefix: a view of the stream's chunk, to be read before returning. */
  onMessage(message: Buffer): void;
  /** The stream ended: etcd's status when it sent one (etcd3's typed error), or the failed connection's. */
  onEnd(err: Error): void;
}

export interface GrpcStream {
  /** Ends the stream at once (RST_STREAM CANCEL); no handler is called afterwards. */
  close(): void;
}

export class EtcdKvClient {
  private readonly members: Member[];
  private closed = false;
  /** The member the next stream is opened on (they take turns). */
  private nextStreamMember = 0;

  constructor(private readonly options: KvClientOptions) {
    this.members = options.endpoints.map((url) => new Member(url, options));
  }

  async range(req: RangeRequest): Promise<RangeResponse> {
    return decodeRangeResponse(await this.call('/etcdserverpb.KV/Range', encodeRangeRequest(req)));
  }

  async txn(req: TxnRequest): Promise<TxnResponse> {
    return decodeTxnResponse(await this.call('/etcdserverpb.KV/Txn', encodeTxnRequest(req)));
  }

  close(): void {
    this.closed = true;
    for (const member of this.members) member.reset();
  }

  /**
   * A streaming call (`framed`: its first message, framed; `headers`: gRPC metadata) on the next
   * member's connection, kept open for etcd's messages. A failure to open it is reported through
   * `onEnd`, asynchronously, as a failure later would be.
   */
  stream(path: string, framed: Buffer, headers: Record<string, string>, handlers: GrpcStreamHandlers): GrpcStream {
    const member = this.members[this.nextStreamMember++ % this.members.length]!;
    let ended = false;
    const end = (err: Error): void => {
      if (ended) return;
      ended = true;
      handlers.onEnd(err);
    };
    if (this.closed) {
      queueMicrotask(() => end(new ClientClosedError('Watch')));
      return { close: () => void (ended = true) };
    }
    let opened: { stream: ClientHttp2Stream; session: ClientHttp2Session };
    try {
      opened = member.request(path, headers);
    } catch (err) {
      queueMicrotask(() => end(err instanceof Error ? err : new Error(String(err))));
      return { close: () => void (ended = true) };
    }
    const { stream, session } = opened;
    const { maxReceiveBytes } = this.options;
    const reader = new GrpcMessageReader(maxReceiveBytes);
    // A chunk may hold several messages: none is handed on once the stream was closed by one before it.
    const onMessage = (message: Buffer): void => {
      if (!ended) handlers.onMessage(message);
    };
    const status = new GrpcStatus(stream);
    let failure: Error | undefined;
    stream.on('data', (chunk: Buffer) => {
      if (ended) return;
      try {
        reader.push(chunk, onMessage);
      } catch (err) {
        end(err instanceof Error ? err : new Error(String(err)));
        stream.close(constants.NGHTTP2_CANCEL);
      }
    });
    stream.on('error', (err: Error) => void (failure ??= err));
    stream.on('close', () => {
      if (status.code !== undefined && status.code !== 0) end(grpcError(status.code, status.details));
      else if (status.code === 0) end(grpcError(UNAVAILABLE, 'the stream ended'));
      else end(member.lost(session, stream, failure));
    });
    stream.write(framed);
    return {
      close: () => {
        ended = true;
        if (!stream.closed && !stream.destroyed) stream.close(constants.NGHTTP2_CANCEL);
      },
    };
  }

  /**
   * One unary call: to the members in turn from a random one, past those whose breaker is open,
   * repeated while it never left, each attempt on the member after the last one tried (see the
   * module's contracts).
   */
  private call(path: string, framed: Buffer): Promise<Buffer> {
    const count = this.members.length;
    let next = count > 1 ? Math.floor(Math.random() * count) : 0;
    /** The last failure of a call that went through: reported instead of a breaker that its failures opened. */
    let lastFailure: Error | undefined;
    return undeliveredRetry
      .execute(async () => {
        if (this.closed) throw new ClientClosedError('KV');
        let refused: Error | undefined;
        for (let i = 0; i < count; i++) {
          const member = this.members[next++ % count]!;
          let called = false;
          try {
            return await member.policy.execute(() => {
              called = true;
              return this.send(member, path, framed);
            });
          } catch (err) {
            if (called) {
              if (err instanceof Error && isRecoverableError(err)) member.reset();
              if (err instanceof Error) lastFailure = err;
              throw err;
            }
            // The breaker refused the call: the next member may take it.
            if (!isBrokenCircuitError(err)) throw err;
            refused = err;
          }
        }
        throw refused ?? unconnected('no etcd endpoints');
      })
      .catch((err: unknown) => {
        throw isBrokenCircuitError(err) && lastFailure ? lastFailure : err;
      });
  }

  /**
   * The call on one member's connection (`framed`: the message behind its gRPC prefix): the message
   * back, or the gRPC failure as etcd3's error.
   */
  private send(member: Member, path: string, framed: Buffer): Promise<Buffer> {
    const { requestTimeoutMs, maxSendBytes, maxReceiveBytes } = this.options;
    const size = framed.length - grpcPrefixBytes;
    if (size > maxSendBytes) {
      return Promise.reject(grpcError(RESOURCE_EXHAUSTED, `trying to send message larger than max (${size} vs. ${maxSendBytes})`));
    }
    return new Promise<Buffer>((resolve, reject) => {
      let opened: { stream: ClientHttp2Stream; session: ClientHttp2Session };
      try {
        opened = member.request(path, { 'grpc-timeout': `${requestTimeoutMs}m` });
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      const { stream, session } = opened;
      const chunks: Buffer[] = [];
      let received = 0;
      const status = new GrpcStatus(stream);
      let failure: Error | undefined;
      let settled = false;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        clearTimeout(timer);
        return true;
      };
      const fail = (err: Error): void => {
        if (settle()) reject(err);
      };
      const timer = setTimeout(() => {
        fail(grpcError(DEADLINE_EXCEEDED, 'Deadline exceeded'));
        stream.close(constants.NGHTTP2_CANCEL);
      }, requestTimeoutMs);
      stream.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxReceiveBytes + grpcPrefixBytes) {
          fail(grpcError(RESOURCE_EXHAUSTED, `Received message larger than max (${received - grpcPrefixBytes} vs. ${maxReceiveBytes})`));
          stream.close(constants.NGHTTP2_CANCEL);
          return;
        }
        chunks.push(chunk);
      });
      stream.on('error', (err: Error) => void (failure ??= err));
      stream.on('close', () => {
        if (settled) return;
        if (status.code === undefined) {
          fail(member.lost(session, stream, failure));
          return;
        }
        if (status.code !== 0) {
          fail(grpcError(status.code, status.details));
          return;
        }
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        // One message: a compression flag (never set: no compression is offered), its length, its bytes.
        if (body.length < grpcPrefixBytes || body[0] !== 0 || body.readUInt32BE(1) !== body.length - grpcPrefixBytes) {
          fail(grpcError(INTERNAL, `malformed answer of ${body.length} bytes`));
          return;
        }
        if (settle()) resolve(body.subarray(grpcPrefixBytes));
      });
      // One write, one DATA frame that ends the stream: the message comes framed (kv-messages.ts).
      stream.end(framed);
    });
  }
}

/**
 * gRPC's messages out of a stream's chunks: each a compression flag (never set: no compression is
 * offered), a 4-byte big-endian length and the message. A chunk may hold several messages and a
 * message may span several chunks; those are kept as they came and joined once, when the last
 * one is there (a catch-up response of 1,000 events is hundreds of KiB in 16 KiB chunks).
 */
export class GrpcMessageReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The length of the message begun in `pending`, prefix included, once its prefix is there; 0 before. */
  private wanted = 0;

  constructor(private readonly maxMessageBytes: number) {}

  /** Hands every message `chunk` completes to `onMessage`; throws (etcd3's error) on a malformed or oversized one. */
  push(chunk: Buffer, onMessage: (message: Buffer) => void): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes < grpcPrefixBytes || this.pendingBytes < this.wanted) return;
    const buf = this.pending.length === 1 ? chunk : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.wanted = 0;
    let at = 0;
    while (buf.length - at >= grpcPrefixBytes) {
      const stop = at + grpcPrefixBytes + this.messageLength(buf, at);
      if (stop > buf.length) {
        this.wanted = stop - at;
        break;
      }
      onMessage(buf.subarray(at + grpcPrefixBytes, stop));
      at = stop;
    }
    if (at < buf.length) {
      this.pending.push(buf.subarray(at));
      this.pendingBytes = buf.length - at;
    }
  }

  /** The length of the message whose prefix is at `at`. */
  private messageLength(buf: Buffer, at: number): number {
    if (buf[at] !== 0) throw grpcError(INTERNAL, 'a compressed message, which was not asked for');
    const size = buf.readUInt32BE(at + 1);
    if (size > this.maxMessageBytes) throw grpcError(RESOURCE_EXHAUSTED, `Received message larger than max (${size} vs. ${this.maxMessageBytes})`);
    return size;
  }
}
