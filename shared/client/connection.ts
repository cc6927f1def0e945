/**
 * The client's connection to the API server, as client-go's transport makes it: over HTTPS, one
 * HTTP/2 connection carries every request and watch of the client as its own stream; over plain
 * HTTP, a keep-alive HTTP/1.1 pool.
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
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { connect as connectHttp2, constants as http2, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import type { RequestOptions } from 'node:https';
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
  /** Fails the exchange when nothing arrives for this long (no limit for a watch). */
  idleTimeoutMs?: number;
  /** Aborts the request, or the body being read. */
  signal?: AbortSignal;
}

/** An answer as it arrives: the status and headers, and the body as a stream to read. */
export interface Exchange {
  code: number;
  headers: IncomingHttpHeaders;
  body: Readable;
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

export class ApiConnection {
  private credentials: Promise<Credentials> | undefined;
  private credentialsAppliedAt = 0;
  private session: SessionEntry | undefined;
  /** The HTTP/1.1 pool for an `http:` server. */
  private httpAgent: HttpAgent | undefined;

  constructor(
    private readonly kubeconfig: KubeConfig,
    private readonly server: URL,
  ) {}

  /** Sends `request`; resolves once the answer's headers arrived. */
  async exchange(request: ExchangeRequest): Promise<Exchange> {
    const credentials = await this.applyCredentials();
    const headers = { ...credentials.headers, ...request.headers };
    if (this.server.protocol !== 'https:') return this.exchangeHttp1(request, headers);
    try {
      return await this.exchangeHttp2(this.sessionFor(credentials.tls), request, headers);
    } catch (err) {
      if (!neverReachedServer(err)) throw err;
      return this.exchangeHttp2(this.sessionFor(credentials.tls), request, headers);
    }
  }

  /** Applies the kubeconfig's credentials again on the next request: its certificate files were renewed. */
  reloadCredentials(): void {
    this.credentialsAppliedAt = 0;
  }

  /** Closes the connection now, failing what it still carries (a shutdown); the next request opens a new one. */
  close(): void {
    this.session?.session.destroy();
    this.session = undefined;
    this.httpAgent?.destroy();
    this.httpAgent = undefined;
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

  /** The open connection when it still takes streams with this TLS material, else a new one. */
  private sessionFor(tls: TlsMaterial): SessionEntry {
    const current = this.session;
    if (current && current.usable() && sameTls(current.tls, tls)) return current;
    current?.close();
    const entry = new SessionEntry(this.server, tls, () => {
      if (this.session === entry) this.session = undefined;
    });
    this.session = entry;
    return entry;
  }

  private exchangeHttp2(entry: SessionEntry, request: ExchangeRequest, headers: Record<string, string | number>): Promise<Exchange> {
    return new Promise((resolve, reject) => {
      const stream = entry.session.request(
        { ...headers, [http2.HTTP2_HEADER_METHOD]: request.method, [http2.HTTP2_HEADER_PATH]: request.path },
        { endStream: request.body === undefined, ...(request.signal ? { signal: request.signal } : {}) },
      );
      entry.opened();
      stream.once('close', () => entry.closed());
      stream.once('error', reject);
      stream.once('response', (answer) => {
        // From here on a failure is the body's, for its reader to see; unread, it must not crash the process.
        stream.off('error', reject);
        stream.on('error', () => {});
        entry.heard();
        resolve({ code: Number(answer[http2.HTTP2_HEADER_STATUS]), headers: answer, body: stream });
      });
      if (request.idleTimeoutMs !== undefined) {
        const ms = request.idleTimeoutMs;
        stream.setTimeout(ms, () => stream.destroy(noAnswer(request, ms)));
      }
      if (request.body !== undefined) stream.end(request.body);
    });
  }

  private exchangeHttp1(request: ExchangeRequest, headers: Record<string, string | number>): Promise<Exchange> {
    this.httpAgent ??= new HttpAgent({ keepAlive: true, maxSockets: 32 });
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          method: request.method,
          hostname: this.server.hostname.replace(/^\[|\]$/g, ''),
          port: this.server.port,
          path: request.path,
          headers: request.body !== undefined ? { ...headers, 'content-length': request.body.length } : headers,
          agent: this.httpAgent,
          ...(request.idleTimeoutMs !== undefined ? { timeout: request.idleTimeoutMs } : {}),
          ...(request.signal ? { signal: request.signal } : {}),
        },
        (res) => resolve({ code: res.statusCode ?? 0, headers: res.headers, body: res }),
      );
      req.on('timeout', () => req.destroy(noAnswer(request, request.idleTimeoutMs ?? 0)));
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
    readonly tls: TlsMaterial,
    onGone: () => void,
  ) {
    this.session = connectHttp2(server.origin, { ...tls, settings: { initialWindowSize: clientGoWindows.stream } });
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

/** The failure of a request that heard nothing for `ms`, named by its method and path (without the query). */
function noAnswer(request: ExchangeRequest, ms: number): Error {
  const query = request.path.indexOf('?');
  return new Error(`${request.method} ${query < 0 ? request.path : request.path.slice(0, query)}: no answer within ${ms} ms`);
}

function sameTls(a: TlsMaterial, b: TlsMaterial): boolean {
  const text = (v: unknown): string => (Buffer.isBuffer(v) ? v.toString('base64') : JSON.stringify(v ?? null));
  return (['ca', 'cert', 'key', 'rejectUnauthorized', 'servername'] as const).every((k) => text(a[k]) === text(b[k]));
}

function definedOnly(tls: TlsMaterial): TlsMaterial {
  return Object.fromEntries(Object.entries(tls).filter(([, v]) => v !== undefined));
}
