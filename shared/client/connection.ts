/**
 * The client's connection to the API server, as client-go's transport makes it: over HTTPS, one
 * HTTP/2 connection carries every request and watch of the client as its own stream; over plain
 * HTTP, or HTTPS to a server that does not choose HTTP/2 by ALPN (a TLS proxy speaking HTTP/1.1
 * only), a keep-alive HTTP/1.1 pool.
 *
 * One connection per client is what a kubelet or a controller manager costs the API server: one
 * TLS session, one socket. The HTTP/1.1 pool this replaces opened a socket for every request in
 * flight at once and another for each watch, three per node agent on average, and TLS sockets are
 * most of an idle replica's memory at scale.
 *
 * Contracts:
 * - The kubeconfig's credentials are applied once and again every few minutes, so that rotated
 *   ones (an exec plugin's token, a renewed certificate file) are picked up; a change of TLS
 *   material opens a new connection and lets the old one finish what it carries.
 * - A connection the server is closing (GOAWAY) takes no new streams; a stream it refused, which
 *   the server never saw, is sent once more on a fresh connection. Nothing else is retried here.
 * - A connection that has started no answer for 30 s is pinged, and closed if the ping goes
 *   unanswered for 15 s (client-go's ReadIdleTimeout and PingTimeout, counting answers' starts
 *   rather than every frame), so that a watch on a dead connection ends instead of waiting forever.
 * - Receive windows are Go's transport's (4 MiB per stream, 1 GiB per connection): Node's 64 KiB
 *   defaults would make the server stall on window updates while it streams a large list.
 * - An idle connection does not keep the process alive; one with streams open does.
 * - A request's timeout is a deadline for its whole answer, connecting included (client-go's
 *   Timeout), on a timer of ours that ends with its stream: Node's stream timeout outlives a stream
 *   destroyed before its end, and through the request's listeners held the whole connection (a
 *   node agent's bootstrap client, closed once the node has its certificate) for 30 s more. A
 *   stream its connection's close destroys before an answer fails its request.
 * - An answer's body that its connection's loss ended says so (`cutShort`): Node ends such an
 *   HTTP/2 stream without an error, and a protobuf body cut at a field boundary would decode.
 * - The protocol is chosen per TLS connection by ALPN, offering h2 then http/1.1, as Go's
 *   transport does: the connection that asked becomes the HTTP/2 connection, or, when the server
 *   chose HTTP/1.1 (or no protocol), the client uses the HTTP/1.1 pool until its TLS material
 *   changes.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect as connectHttp2, constants as http2, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import { isIP } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import type { Readable } from 'node:stream';
import type { KubeConfig } from '@kubernetes/client-node';

/** One request as the connection sends it. */
export interface ExchangeRequest {
  method: string;
  /** The path with its query string. */
  path: string;
  /** Lower-case names; the credentials' headers are added. */
  headers: Record<string, string | number>;
  body?: Buffer;
  /** Fails the exchange unless its answer arrived whole within this long, connecting included; unset for a watch. */
  timeoutMs?: number;
  /** Aborts the request, or the body being read. */
  signal?: AbortSignal;
}

/** An answer as it arrives: the status and headers, and the body as a stream to read. */
export interface Exchange {
  code: number;
  headers: IncomingHttpHeaders;
  body: Readable;
  /**
   * Asked once the body ended: true when it ended because its connection closed, not because the
   * server ended it. Node ends an HTTP/2 stream that its connection's loss destroys as if it were
   * whole (an 'end', no error); such a stream was destroyed with a reset code (CANCEL), while one
   * the server ended closed with NO_ERROR (and may be destroyed before its 'end' too).
   */
  cutShort(): boolean;
}

/** HTTP/2 flow-control windows a client advertises for what it receives, in bytes. */
export interface Http2Windows {
  /** Per stream (the SETTINGS_INITIAL_WINDOW_SIZE). */
  stream: number;
  /** The whole connection. */
  connection: number;
}

/**
 * The receive windows of Go's HTTP/2 transport (client-go's): 4 MiB per stream, 1 GiB per
 * connection. Node's defaults (64 KiB each) make a server stall on WINDOW_UPDATEs while it streams
 * a large list or one event to a hundred watch streams of one connection.
 */
export const clientGoWindows: Http2Windows = { stream: 4 << 20, connection: 1 << 30 };

/** How long applied credentials are reused before the kubeconfig is applied again. */
const credentialRefreshMs = 5 * 60_000;
/** client-go's HTTP/2 ReadIdleTimeout and PingTimeout. */
const readIdleTimeoutMs = 30_000;
const pingTimeoutMs = 15_000;

type TlsMaterial = Pick<RequestOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized' | 'servername'>;

/** The kubeconfig's credentials as applied: TLS material and the headers they add (a token, basic auth). */
interface Credentials {
  tls: TlsMaterial;
  headers: Record<string, string>;
}

/** The HTTP/1.1 pool, and for HTTPS the TLS material it was made for. */
interface Http1Pool {
  agent: HttpAgent;
  tls: TlsMaterial | undefined;
}

export class ApiConnection {
  private credentials: Promise<Credentials> | undefined;
  private credentialsAppliedAt = 0;
  private session: SessionEntry | undefined;
  /** A TLS connection being opened, whose ALPN answer decides between HTTP/2 and the pool. */
  private opening: { tls: TlsMaterial; transport: Promise<SessionEntry | Http1Pool> } | undefined;
  /** The HTTP/1.1 pool: for an `http:` server, or an HTTPS one that did not choose HTTP/2. */
  private pool: Http1Pool | undefined;

  constructor(
    private readonly kubeconfig: KubeConfig,
    private readonly server: URL,
  ) {}

  /** Sends `request`; resolves once the answer's headers arrived. */
  async exchange(request: ExchangeRequest): Promise<Exchange> {
    const expiresAt = request.timeoutMs === undefined ? undefined : Date.now() + request.timeoutMs;
    const credentials = await this.applyCredentials();
    const headers = { ...credentials.headers, ...request.headers };
    if (this.server.protocol !== 'https:') return this.exchangeHttp1(this.httpPool(), request, headers, expiresAt);
    try {
      return await this.exchangeOn(await whileConnecting(this.transportFor(credentials.tls), request, expiresAt), request, headers, expiresAt);
    } catch (err) {
      if (!neverReachedServer(err)) throw err;
      return this.exchangeOn(await whileConnecting(this.transportFor(credentials.tls), request, expiresAt), request, headers, expiresAt);
    }
  }

  private exchangeOn(
    transport: SessionEntry | Http1Pool,
    request: ExchangeRequest,
    headers: Record<string, string | number>,
    expiresAt: number | undefined,
  ): Promise<Exchange> {
    return transport instanceof SessionEntry
      ? this.exchangeHttp2(transport, request, headers, expiresAt)
      : this.exchangeHttp1(transport, request, headers, expiresAt);
  }

  /** Applies the kubeconfig's credentials again on the next request: its certificate files were renewed. */
  reloadCredentials(): void {
    this.credentialsAppliedAt = 0;
  }

  /** Closes the connection now, failing what it still carries (a shutdown); the next request opens a new one. */
  close(): void {
    this.session?.session.destroy();
    this.session = undefined;
    this.opening = undefined;
    this.pool?.agent.destroy();
    this.pool = undefined;
  }

  private applyCredentials(): Promise<Credentials> {
    const now = Date.now();
    if (this.credentials && now - this.credentialsAppliedAt < credentialRefreshMs) return this.credentials;
    this.credentialsAppliedAt = now;
    const applying = (async (): Promise<Credentials> => {
      const applied: RequestOptions = { headers: {} };
      await this.kubeconfig.applyToHTTPSOptions(applied);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(applied.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = String(value);
      if (applied.auth) headers['authorization'] = `Basic ${Buffer.from(applied.auth).toString('base64')}`;
      const tls: TlsMaterial = {
        ca: applied.ca,
        cert: applied.cert,
        key: applied.key,
        rejectUnauthorized: applied.rejectUnauthorized,
        servername: applied.servername,
      };
      return { tls: definedOnly(tls), headers };
    })();
    this.credentials = applying;
    applying.catch(() => {
      if (this.credentials === applying) this.credentials = undefined;
    });
    return applying;
  }

  /**
   * What carries a request with this TLS material: the open HTTP/2 connection while it takes
   * streams, the HTTP/1.1 pool when the server chose HTTP/1.1 for it, else a new TLS connection
   * (one for all the requests asking meanwhile) whose ALPN answer decides.
   */
  private transportFor(tls: TlsMaterial): Promise<SessionEntry | Http1Pool> {
    const current = this.session;
    if (current && current.usable() && sameTls(current.tls, tls)) return Promise.resolve(current);
    if (this.pool?.tls && sameTls(this.pool.tls, tls)) return Promise.resolve(this.pool);
    if (this.opening && sameTls(this.opening.tls, tls)) return this.opening.transport;
    const transport = this.open(tls);
    const opening = { tls, transport };
    this.opening = opening;
    const settled = (): void => {
      if (this.opening === opening) this.opening = undefined;
    };
    transport.then(settled, settled);
    return transport;
  }

  private async open(tls: TlsMaterial): Promise<SessionEntry | Http1Pool> {
    const socket = await connectOfferingH2(this.server, tls);
    if (socket.alpnProtocol === 'h2') {
      this.session?.close();
      const entry: SessionEntry = new SessionEntry(this.server, socket, tls, () => {
        if (this.session === entry) this.session = undefined;
      });
      this.session = entry;
      return entry;
    }
    // HTTP/1.1 (or no choice at all): the pool opens its own connections, offering HTTP/1.1 alone.
    socket.destroy();
    this.session?.close();
    this.pool?.agent.destroy();
    const pool: Http1Pool = { agent: new HttpsAgent({ keepAlive: true, maxSockets: 32, ...tls, ALPNProtocols: ['http/1.1'] }), tls };
    this.pool = pool;
    return pool;
  }

  private httpPool(): Http1Pool {
    this.pool ??= { agent: new HttpAgent({ keepAlive: true, maxSockets: 32 }), tls: undefined };
    return this.pool;
  }

  private exchangeHttp2(
    entry: SessionEntry,
    request: ExchangeRequest,
    headers: Record<string, string | number>,
    expiresAt: number | undefined,
  ): Promise<Exchange> {
    return new Promise((resolve, reject) => {
      const stream = entry.session.request(
        { ...headers, [http2.HTTP2_HEADER_METHOD]: request.method, [http2.HTTP2_HEADER_PATH]: request.path },
        { endStream: request.body === undefined, ...(request.signal ? { signal: request.signal } : {}) },
      );
      entry.opened();
      let answered = false;
      const deadline = expiresAt === undefined ? undefined : setTimeout(expire, msUntil(expiresAt), stream, request);
      stream.once('close', () => {
        clearTimeout(deadline);
        entry.closed();
        // Destroyed without an error (its connection closed under it): no 'error' came to fail it.
        if (!answered) reject(closedEarly(request));
      });
      stream.once('error', reject);
      stream.once('response', (answer) => {
        answered = true;
        // From here on a failure is the body's, for its reader to see; unread, it must not crash the process.
        stream.off('error', reject);
        stream.on('error', () => {});
        entry.heard();
        resolve({ code: Number(answer[http2.HTTP2_HEADER_STATUS]), headers: answer, body: stream, cutShort: () => cutShort(stream) });
      });
      if (request.body !== undefined) stream.end(request.body);
    });
  }

  private exchangeHttp1(pool: Http1Pool, request: ExchangeRequest, headers: Record<string, string | number>, expiresAt: number | undefined): Promise<Exchange> {
    return new Promise((resolve, reject) => {
      const options: RequestOptions = {
        method: request.method,
        hostname: hostOf(this.server),
        port: this.server.port,
        path: request.path,
        headers: request.body !== undefined ? { ...headers, 'content-length': request.body.length } : headers,
        agent: pool.agent,
        ...(pool.tls ?? {}),
        ...(request.signal ? { signal: request.signal } : {}),
      };
      let answer: IncomingMessage | undefined;
      const answered = (res: IncomingMessage): void => {
        answer = res;
        resolve({ code: res.statusCode ?? 0, headers: res.headers, body: res, cutShort: () => !res.complete });
      };
      const req: ClientRequest = pool.tls ? httpsRequest(options, answered) : httpRequest(options, answered);
      // Past the answer's headers the failure is its body's (destroying the request alone would fail the body with "aborted").
      const deadline = expiresAt === undefined ? undefined : setTimeout(() => expire(answer ?? req, request), msUntil(expiresAt));
      req.once('close', () => clearTimeout(deadline));
      req.on('error', reject);
      req.end(request.body);
    });
  }
}

/**
 * One HTTP/2 connection and its bookkeeping: whether it takes new streams, how many are open
 * (it holds the process only while some are), and when the server was last heard from (the
 * liveness ping).
 */
class SessionEntry {
  readonly session: ClientHttp2Session;
  private open = 0;
  private lastHeard = Date.now();
  private goingAway = false;
  private readonly pinger: NodeJS.Timeout;

  constructor(
    server: URL,
    /** A TLS connection on which the server chose h2. */
    socket: TLSSocket,
    readonly tls: TlsMaterial,
    onGone: () => void,
  ) {
    this.session = connectHttp2(server.origin, { createConnection: () => socket, settings: { initialWindowSize: clientGoWindows.stream } });
    this.session.once('connect', (session: ClientHttp2Session) => {
      this.heard();
      session.setLocalWindowSize(clientGoWindows.connection);
    });
    // A connection's failure fails its open streams, which report it to their requests.
    this.session.on('error', () => {});
    this.session.once('goaway', () => {
      this.goingAway = true;
      onGone();
    });
    this.session.once('close', () => {
      clearInterval(this.pinger);
      onGone();
    });
    this.session.unref();
    this.pinger = setInterval(() => this.checkAlive(), readIdleTimeoutMs / 2);
    this.pinger.unref();
  }

  usable(): boolean {
    return !this.goingAway && !this.session.closed && !this.session.destroyed;
  }

  opened(): void {
    if (this.open++ === 0) this.session.ref();
  }

  closed(): void {
    if (--this.open === 0) this.session.unref();
  }

  heard(): void {
    this.lastHeard = Date.now();
  }

  close(): void {
    this.goingAway = true;
    if (!this.session.closed) this.session.close();
  }

  /** Pings a connection that has been silent for the read-idle timeout; closes it if the ping goes unanswered. */
  private checkAlive(): void {
    if (this.session.destroyed || !this.session.socket || Date.now() - this.lastHeard < readIdleTimeoutMs) return;
    const deadline = setTimeout(() => this.session.destroy(new Error(`no answer to an HTTP/2 ping within ${pingTimeoutMs} ms`)), pingTimeoutMs);
    deadline.unref();
    const sent = this.session.ping((err) => {
      clearTimeout(deadline);
      if (!err) this.heard();
    });
    if (!sent) clearTimeout(deadline);
  }
}

/**
 * `connecting`, failed for the request that waits on it when the request's deadline passes or
 * its signal aborts first (the connection goes on for the others).
 */
function whileConnecting<T>(connecting: Promise<T>, request: ExchangeRequest, expiresAt: number | undefined): Promise<T> {
  const { signal } = request;
  if (expiresAt === undefined && !signal) return connecting;
  return new Promise((resolve, reject) => {
    const timer = expiresAt === undefined ? undefined : setTimeout(() => reject(noAnswer(request)), msUntil(expiresAt));
    const aborted = (): void => reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal?.aborted) aborted();
    signal?.addEventListener('abort', aborted, { once: true });
    connecting.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
    });
  });
}

/** Go's net/http dial plus TLS handshake timeouts (client-go's transport: 30 s and 10 s). */
const connectTimeoutMs = 40_000;

/** A TLS connection to `server` offering h2 then http/1.1 by ALPN; resolves once the handshake is done. */
function connectOfferingH2(server: URL, tls: TlsMaterial): Promise<TLSSocket> {
  const host = hostOf(server);
  return new Promise((resolve, reject) => {
    const socket = connectTls({
      host,
      port: Number(server.port || 443),
      // SNI carries a host name, never an address (as Go's transport does).
      ...(isIP(host) ? {} : { servername: host }),
      ...tls,
      ALPNProtocols: ['h2', 'http/1.1'],
    });
    const timer = setTimeout(() => socket.destroy(new Error(`${server.origin}: no TLS connection within ${connectTimeoutMs} ms`)), connectTimeoutMs);
    timer.unref();
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', (err: Error) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/**
 * True when a request failed before the server could have seen it: the connection was already
 * closing (Node refuses the stream) or the server refused the stream (REFUSED_STREAM, which HTTP/2
 * guarantees was not processed).
 */
function neverReachedServer(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ERR_HTTP2_GOAWAY_SESSION' || code === 'ERR_HTTP2_INVALID_SESSION') return true;
  return code === 'ERR_HTTP2_STREAM_ERROR' && err.message.includes('NGHTTP2_REFUSED_STREAM');
}

/** Whether an HTTP/2 stream whose body ended was destroyed under it rather than ended by the server (see `Exchange.cutShort`). */
function cutShort(stream: ClientHttp2Stream): boolean {
  return stream.destroyed && stream.rstCode !== http2.NGHTTP2_NO_ERROR;
}

/** Fails an exchange whose deadline passed (a timer's callback: no closure per request). */
function expire(exchange: { destroy(err: Error): unknown }, request: ExchangeRequest): void {
  exchange.destroy(noAnswer(request));
}

/** The failure of a request whose stream closed, without an error of its own, before its answer came. */
function closedEarly(request: ExchangeRequest): Error {
  return new Error(`${requestName(request)}: the connection closed before an answer`);
}

/** The failure of a request not answered whole within its timeout. */
function noAnswer(request: ExchangeRequest): Error {
  return new Error(`${requestName(request)}: no answer within ${request.timeoutMs ?? 0} ms`);
}

/** Milliseconds left until `expiresAt` (a Date.now() time), none once it passed. */
function msUntil(expiresAt: number): number {
  return Math.max(0, expiresAt - Date.now());
}

/** A request as errors name it: its method and path, without the query. */
function requestName(request: ExchangeRequest): string {
  const query = request.path.indexOf('?');
  return `${request.method} ${query < 0 ? request.path : request.path.slice(0, query)}`;
}

/** The host to connect to: a URL's hostname without the brackets of an IPv6 address. */
function hostOf(server: URL): string {
  return server.hostname.replace(/^\[|\]$/g, '');
}

function sameTls(a: TlsMaterial, b: TlsMaterial): boolean {
  // The material applied last is one object until the credentials are applied again: every request but those compares it with itself.
  if (a === b) return true;
  const same = (x: unknown, y: unknown): boolean =>
    Buffer.isBuffer(x) && Buffer.isBuffer(y) ? x.equals(y) : JSON.stringify(x ?? null) === JSON.stringify(y ?? null);
  return (['ca', 'cert', 'key', 'rejectUnauthorized', 'servername'] as const).every((k) => same(a[k], b[k]));
}

function definedOnly(tls: TlsMaterial): TlsMaterial {
  return Object.fromEntries(Object.entries(tls).filter(([, v]) => v !== undefined));
}
