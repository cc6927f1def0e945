/**
 * Sends one fuzz request to a real API server over HTTP/1.1 (node:https, keep-alive) or HTTP/2
 * (node:http2, one session per credential set, re-opened when the server ends it), with the admin
 * client certificate or none, and reads the answer within bounds: a body that has not ended
 * `streamCutMs` after its headers (a watch) is cut off, and a request without headers after
 * `replyDeadlineMs` counts as stalled. Nothing here judges the answer (see properties.ts).
 */
import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { dechunk } from './raw-socket.ts';
import { connect as http2Connect, constants as h2, type ClientHttp2Session, type Http2Session, type OutgoingHttpHeaders } from 'node:http2';

/** What one HTTP/2 session of the fuzzer may buffer, in MB: every lane's largest bodies at once. */
const clientSessionMemoryMb = 1024;

export type Protocol = 'http1' | 'http2';
export type Credentials = 'admin' | 'none';

export interface WireRequest {
  protocol: Protocol;
  credentials: Credentials;
  method: string;
  /**
   * The request target exactly as sent: a path with its query, or an absolute URL. Over HTTP/1.1
   * each character is one byte (Latin-1), so only U+0021..U+00FF belong here; callers
   * percent-encode anything else.
   */
  target: string;
  headers: Readonly<Record<string, string>>;
  body?: Buffer | undefined;
}

/** The server answered with a status line (or `:status`). */
export interface WireReply {
  kind: 'reply';
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body was still streaming when the client stopped reading (a watch). */
  cut: boolean;
}

/** No answer: the connection or stream failed, or the request stalled. */
export interface WireFailure {
  kind: 'no-reply';
  /** The client's error code or message (ECONNRESET, ERR_HTTP2_STREAM_ERROR, stalled ...). */
  error: string;
  /** The error was raised by the client before anything was sent (an invalid header, say). */
  clientSide: boolean;
  /** HTTP/2: the RST_STREAM code the stream ended with. */
  rstCode?: number;
}

export type WireOutcome = WireReply | WireFailure;

export interface TransportOptions {
  /** `https://127.0.0.1:<port>` */
  url: string;
  ca: string;
  cert: string;
  key: string;
  /** How long a streaming body is read before the client stops (bounds watches). */
  streamCutMs?: number;
  /** How long a request may wait for its answer's headers before it counts as stalled. */
  replyDeadlineMs?: number;
  /** Concurrent HTTP/1.1 connections per credential set. */
  maxSockets?: number;
}

export interface Transport {
  send(req: WireRequest): Promise<WireOutcome>;
  close(): void;
}

/** Beyond this a reply body is no longer kept (the largest answers, OpenAPI v2, are a few MiB). */
const maxKeptBodyBytes = 64 * 1024 * 1024;

function errorCode(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

/** Collects a body, keeping at most `maxKeptBodyBytes` of it. */
class BodyReader {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  add(chunk: Buffer): boolean {
    if (this.size >= maxKeptBodyBytes) return false;
    this.chunks.push(chunk);
    this.size += chunk.length;
    return true;
  }

  get body(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/**
 * nghttp2 decodes no header field whose name and value together pass 64 KiB (NGHTTP2_HD_MAX_NV)
 * and ends the whole connection with COMPRESSION_ERROR instead; Go accepts up to 1 MiB.
 */
const nghttp2MaxHeaderField = 65_536;

/** Whether an HTTP/2 request holds a header field (`:path` included) the server's nghttp2 cannot decode. */
export function exceedsNghttp2FieldLimit(req: { target: string; headers: Readonly<Record<string, string>> }): boolean {
  if (':path'.length + Buffer.byteLength(req.target) > nghttp2MaxHeaderField) return true;
  return Object.entries(req.headers).some(([name, value]) => name.length + Buffer.byteLength(value) > nghttp2MaxHeaderField);
}

export function createTransport(opts: TransportOptions): Transport {
  const base = new URL(opts.url);
  const streamCutMs = opts.streamCutMs ?? 3_000;
  // The server's --request-timeout (60 s) answers a slow request with a 504 first.
  const replyDeadlineMs = opts.replyDeadlineMs ?? 65_000;
  // Only a success can be an endless watch stream; a failure is a Status, which must end, however
  // long a loaded machine takes to send it.
  const cutAfterMs = (status: number): number => (status >= 200 && status < 300 ? streamCutMs : replyDeadlineMs);
  const tlsOf = (credentials: Credentials) => (credentials === 'admin' ? { ca: opts.ca, cert: opts.cert, key: opts.key } : { ca: opts.ca });
  const agents: Record<Credentials, Agent> = {
    admin: new Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 8, ...tlsOf('admin') }),
    none: new Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 8, ...tlsOf('none') }),
  };
  const sessions = new Map<Credentials, ClientHttp2Session>();
  /**
   * How each session ended (a GOAWAY's code, an error), for the report of a stream that closed
   * without an answer: a dying connection takes every stream on it along, and those streams show
   * RST_STREAM CANCEL although no RST_STREAM frame was sent for them.
   */
  const sessionEnds = new WeakMap<Http2Session, string>();

  /**
   * A new HTTP/2 connection. Node's client refuses new streams once 10 MB wait to be sent (several
   * 3 MiB bodies at once); Go's client, like kubectl's, has no such limit, so neither has this one;
   * nor one of 64 KiB on the headers it sends (the server's 1 MiB applies).
   */
  function connectSession(credentials: Credentials): ClientHttp2Session {
    const fresh = http2Connect(opts.url, { ...tlsOf(credentials), maxSessionMemory: clientSessionMemoryMb, maxSendHeaderBlockLength: 4 << 20 });
    // A session error also fails its streams, which report it.
    fresh.on('error', (err: Error) => sessionEnds.set(fresh, `session error ${errorCode(err)}`));
    fresh.once('goaway', (code: number) => sessionEnds.set(fresh, `GOAWAY ${code}`));
    return fresh;
  }

  /**
   * Streams of each session the server reset as protocol errors. Node's server ends a connection
   * at its 1,000th invalid frame (maxSessionInvalidFrames: ERR_HTTP2_TOO_MANY_INVALID_FRAMES,
   * the socket aborted without a GOAWAY), and the well-formed requests in flight on it die along
   * with it, unanswered. A fuzzer sends many such frames; a real client sends none. So this one
   * moves to a new connection well before that limit (not every invalid frame comes back as a
   * reset), and a connection the server aborts stays a failure of the run.
   */
  const protocolErrors = new WeakMap<ClientHttp2Session, number>();
  const protocolErrorsPerSession = 400;

  function countProtocolError(on: ClientHttp2Session, credentials: Credentials): void {
    const count = (protocolErrors.get(on) ?? 0) + 1;
    protocolErrors.set(on, count);
    if (count < protocolErrorsPerSession || sessions.get(credentials) !== on) return;
    sessions.delete(credentials);
    // Streams in flight finish; new ones go to a fresh connection.
    on.close();
  }

  function session(credentials: Credentials): ClientHttp2Session {
    const open = sessions.get(credentials);
    if (open && !open.closed && !open.destroyed) return open;
    // The session is replaced on next use once it closes.
    const fresh = connectSession(credentials);
    fresh.once('close', () => {
      if (sessions.get(credentials) === fresh) sessions.delete(credentials);
    });
    fresh.once('goaway', () => {
      if (sessions.get(credentials) === fresh) sessions.delete(credentials);
    });
    sessions.set(credentials, fresh);
    return fresh;
  }

  function sendHttp1(req: WireRequest): Promise<WireOutcome> {
    return new Promise((resolve) => {
      const headers: Record<string, string> = { ...req.headers };
      if (req.body !== undefined && !Object.keys(headers).some((h) => /^(content-length|transfer-encoding)$/i.test(h)))
        headers['content-length'] = String(req.body.length);
      let settled = false;
      const settle = (outcome: WireOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(stall);
        resolve(outcome);
      };
      const stall = setTimeout(() => {
        settle({ kind: 'no-reply', error: `stalled: no answer within ${replyDeadlineMs} ms`, clientSide: false });
        r.destroy();
      }, replyDeadlineMs);
      let r: ReturnType<typeof httpsRequest>;
      try {
        // A CONNECT takes its connection over (as a tunnel): never one of the pool's.
        const connection = req.method === 'CONNECT' ? { agent: false as const, ...tlsOf(req.credentials) } : { agent: agents[req.credentials] };
        r = httpsRequest({ host: base.hostname, port: base.port, method: req.method, path: req.target, headers, ...connection }, (res) => {
          clearTimeout(stall);
          const reader = new BodyReader();
          const cut = setTimeout(
            () => {
              settle({ kind: 'reply', status: res.statusCode ?? 0, headers: res.headers, body: reader.body, cut: true });
              res.destroy();
            },
            cutAfterMs(res.statusCode ?? 0),
          );
          res.on('data', (c: Buffer) => reader.add(c));
          res.once('end', () => {
            clearTimeout(cut);
            settle({ kind: 'reply', status: res.statusCode ?? 0, headers: res.headers, body: reader.body, cut: false });
          });
          // A body that breaks off after the headers is reported as cut, with what arrived.
          res.on('error', () => {
            clearTimeout(cut);
            settle({ kind: 'reply', status: res.statusCode ?? 0, headers: res.headers, body: reader.body, cut: true });
          });
        });
      } catch (err) {
        settle({ kind: 'no-reply', error: errorCode(err), clientSide: true });
        return;
      }
      // A request line the server's parser refuses gets its 400 or 431 Status with a body even for
      // HEAD (as Go answers: the method is no longer known), which node:http cannot parse.
      r.on('error', (err) =>
        settle({
          kind: 'no-reply',
          error: errorCode(err),
          clientSide: req.method === 'HEAD' && (err as NodeJS.ErrnoException).code === 'HPE_CLOSED_CONNECTION',
        }),
      );
      // A CONNECT answer is reported by node:http as 'connect' (a tunnel), never as 'response': its
      // body is what follows on the socket, read here by Content-Length, chunks or the socket's end.
      r.on('connect', (res, socket, head) => {
        clearTimeout(stall);
        const data: Buffer[] = [head];
        const length = Number(res.headers['content-length'] ?? NaN);
        const chunked = /chunked/i.test(String(res.headers['transfer-encoding'] ?? ''));
        const finish = (cut: boolean): void => {
          clearTimeout(cutTimer);
          const raw = Buffer.concat(data);
          settle({
            kind: 'reply',
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: chunked ? dechunk(raw) : Number.isFinite(length) ? raw.subarray(0, length) : raw,
            cut,
          });
          socket.destroy();
        };
        const complete = (): boolean => {
          const raw = Buffer.concat(data);
          return Number.isFinite(length) ? raw.length >= length : chunked && raw.includes('\r\n0\r\n\r\n');
        };
        const cutTimer = setTimeout(() => finish(true), streamCutMs);
        if (complete()) return finish(false);
        socket.on('data', (c: Buffer) => {
          data.push(c);
          if (complete()) finish(false);
        });
        socket.once('close', () => finish(false));
        socket.on('error', () => finish(true));
      });
      // The server may answer (413, 400) and close before the whole body is sent; the answer still counts.
      r.end(req.body);
    });
  }

  function sendHttp2(req: WireRequest): Promise<WireOutcome> {
    return new Promise((resolve) => {
      const headers: OutgoingHttpHeaders = { ...req.headers, [h2.HTTP2_HEADER_METHOD]: req.method, [h2.HTTP2_HEADER_PATH]: req.target };
      if (req.body !== undefined && !Object.keys(req.headers).some((h) => h.toLowerCase() === 'content-length'))
        headers['content-length'] = String(req.body.length);
      // The server's nghttp2 ends the whole connection over such a field: it goes on one of its own.
      const own = exceedsNghttp2FieldLimit(req) ? connectSession(req.credentials) : undefined;
      let settled = false;
      const settle = (outcome: WireOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(stall);
        own?.destroy();
        resolve(outcome);
      };
      let stream: ReturnType<ClientHttp2Session['request']>;
      const stall = setTimeout(() => {
        settle({ kind: 'no-reply', error: `stalled: no answer within ${replyDeadlineMs} ms`, clientSide: false });
        stream?.close(h2.NGHTTP2_CANCEL);
      }, replyDeadlineMs);
      // Kept for the report: a closed stream no longer names its session.
      let on: ClientHttp2Session | undefined;
      try {
        on = own ?? session(req.credentials);
        stream = on.request(headers, { endStream: req.body === undefined });
      } catch (err) {
        settle({ kind: 'no-reply', error: errorCode(err), clientSide: true });
        return;
      }
      const reader = new BodyReader();
      stream.once('response', (responseHeaders) => {
        clearTimeout(stall);
        const status = Number(responseHeaders[h2.HTTP2_HEADER_STATUS] ?? 0);
        const { [h2.HTTP2_HEADER_STATUS]: _status, ...rest } = responseHeaders;
        const replyHeaders = rest as IncomingHttpHeaders;
        const cut = setTimeout(() => {
          settle({ kind: 'reply', status, headers: replyHeaders, body: reader.body, cut: true });
          stream.close(h2.NGHTTP2_CANCEL);
        }, cutAfterMs(status));
        stream.on('data', (c: Buffer) => reader.add(c));
        stream.once('end', () => {
          clearTimeout(cut);
          settle({ kind: 'reply', status, headers: replyHeaders, body: reader.body, cut: false });
        });
        stream.once('close', () => {
          clearTimeout(cut);
          settle({ kind: 'reply', status, headers: replyHeaders, body: reader.body, cut: stream.rstCode !== h2.NGHTTP2_NO_ERROR });
        });
      });
      stream.on('error', (err) => settle({ kind: 'no-reply', error: errorCode(err), clientSide: false, rstCode: stream.rstCode }));
      stream.once('close', () => {
        if (on && stream.rstCode === h2.NGHTTP2_PROTOCOL_ERROR) countProtocolError(on, req.credentials);
        const ended = on ? (sessionEnds.get(on) ?? (on.destroyed ? 'session destroyed' : on.closed ? 'session closing' : undefined)) : 'no session';
        const cause = ended ? `; its connection: ${ended}` : '';
        settle({
          kind: 'no-reply',
          error: `stream closed without an answer (RST_STREAM ${stream.rstCode})${cause}`,
          clientSide: false,
          rstCode: stream.rstCode,
        });
      });
      if (req.body !== undefined) stream.end(req.body);
    });
  }

  return {
    send: (req) => (req.protocol === 'http2' ? sendHttp2(req) : sendHttp1(req)),
    close() {
      agents.admin.destroy();
      agents.none.destroy();
      for (const s of sessions.values()) s.destroy();
      sessions.clear();
    },
  };
}
