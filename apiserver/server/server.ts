/**
 * The API server: a TLS listener speaking HTTP/2 with HTTP/1.1 fallback, and the request
 * pipeline, which reads top to bottom in `serve`: request info and deadline → public endpoints →
 * authentication → audit → priority and fairness (or the in-flight limit) → authorization → metrics, discovery, OpenAPI or the
 * verb handler (where admission runs). Every failure leaves as a Status; every request leaves one
 * log line, its metrics and (per the audit policy) its audit events when its response closes.
 */
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Level, Logger } from 'pino';
import { pathNotFound, requestEntityTooLarge, toStatusError, unauthorized, type StatusError } from '../../shared/api/errors.ts';
import type { Status } from '../../shared/api/types.ts';
import type { Authenticator } from '../auth/authenticate.ts';
import { clientCertificateOf } from '../auth/authenticate.ts';
import { impersonate } from '../auth/impersonation.ts';
import { discovery } from '../endpoints/discovery.ts';
import { serveOpenApi } from '../endpoints/openapi/serve.ts';
import { negotiate } from '../endpoints/negotiation.ts';
import { serializeStatus, type WireFormat } from '../endpoints/serialize.ts';
import { handleResource, type ApiResponse } from '../endpoints/resource.ts';
import type { WatchResponse } from '../endpoints/watch.ts';
import type { Registry, ServedResource } from '../registry/registry.ts';
import type { UserInfo } from '../registry/definition.ts';
import { healthResponse, type HealthCheck } from './health.ts';
import { authorizationAttributes, parseRequestInfo, type RequestInfo } from './requestinfo.ts';
import { parseRequestTarget } from './request-target.ts';
import { warningHeaderValues } from './warning-header.ts';
import { answerProtocolErrors, maxHeaderBytes } from './protocol-errors.ts';
import { requireAllowed, type Authorizer } from '../authorization/authorizer.ts';
import { apiServerComponent, type ApiServerMetrics, type RequestLabels } from './metrics.ts';
import { sourceIPs, type Auditor, type RequestAudit } from './audit.ts';
import { InflightLimiter, isLongRunning, requestDeadlineMs, requestKind, requestTimeoutError, tooManyRequestsBody, type RequestKind } from './limits.ts';
import { FlowControl, queueWaitLimitMs } from './flowcontrol/flow-control.ts';
import { ConnectionTracker } from './shutdown.ts';
import { WatchBudget } from './watch-budget.ts';
import { append } from '../../shared/api/append.ts';

export interface ServerOptions {
  registry: Registry;
  authenticator: Authenticator;
  authorizer: Authorizer;
  tls: { cert: string; key: string; clientCA: string };
  livez: readonly HealthCheck[];
  readyz: readonly HealthCheck[];
  maxRequestBodyBytes: number;
  version: Record<string, string>;
  logger: Logger;
  metrics: ApiServerMetrics;
  /** Absent without an audit policy. */
  auditor?: Auditor | undefined;
  /**
   * --max-requests-inflight and --max-mutating-requests-inflight: the limits of each kind (0:
   * unlimited), or together the concurrency limit that Priority and Fairness divides.
   */
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** --enable-priority-and-fairness: requests queue per priority level instead of meeting the in-flight limits. */
  enablePriorityAndFairness: boolean;
  /** --request-timeout, for every request that is not long-running. */
  requestTimeoutMs: number;
  /** The level of the one log line per request. */
  requestLogLevel: Level;
}

type AnyRequest = IncomingMessage | Http2ServerRequest;
type AnyResponse = ServerResponse | Http2ServerResponse;

/**
 * The TLS connection of a request. HTTP/2's compatibility `req.socket` is a fresh proxy per
 * request, so per-connection caches key on the session's socket instead.
 */
function tlsSocketOf(req: AnyRequest): TLSSocket {
  if ('stream' in req) {
    const socket = req.stream.session?.socket;
    if (socket) return socket as TLSSocket;
  }
  return req.socket as TLSSocket;
}

/** Streams an HTTP/2 client may have open on one connection (kube-apiserver's default). */
const http2MaxStreamsPerConnection = 1000;
/** Node's per-session memory limit in MB, high enough never to be reached (see its use). */
const http2MaxSessionMemoryMb = 1_000_000;

/** The largest oversized body read and dropped before its 413 is sent (see discardBody). */
const maxDiscardedBodyBytes = 8 * 1024 * 1024;
/** How long a body being dropped may take before its 413 is sent anyway. */
const discardBodyTimeoutMs = 5_000;

/**
 * Reads and drops a body declared too large before the 413 is sent. A client still sending when
 * the answer comes and the connection closes gets a broken pipe instead of the 413 (an HTTP/1.1
 * race), so a moderately oversized body is let in first; a body beyond maxDiscardedBodyBytes, or
 * one that takes too long, is not waited for.
 */
function discardBody(req: AnyRequest, declared: number): Promise<void> {
  if (declared > maxDiscardedBodyBytes || req.readableEnded) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      req.off('end', done);
      req.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, discardBodyTimeoutMs);
    req.once('end', done);
    req.once('error', done);
    req.resume();
  });
}

/** Health and version endpoints: authorized like any path (the default policy lets everyone read them) but never queued. */
const probePaths = /^\/(livez|readyz|healthz)(\/.*)?$|^\/version\/?$/;

/** The Warning of /healthz, deprecated since 1.16 in favour of /livez and /readyz. */
export const healthzDeprecationWarning = '/healthz is deprecated in v1.16+, use /livez and /readyz';

/** Upstream's audit annotations of deprecated APIs. */
const deprecatedAnnotation = 'k8s.io/deprecated';
const removedReleaseAnnotation = 'k8s.io/removed-release';

/** Non-resource paths upstream counts in apiserver_request_total, with the component it reports. */
const instrumentedPaths: ReadonlyMap<string, string> = new Map([
  ['/healthz', ''],
  ['/livez', ''],
  ['/readyz', ''],
  ['/api', apiServerComponent],
  ['/apis', apiServerComponent],
]);

/** The removal release in an upstream deprecation warning (`..., unavailable in v1.25+`), or ''. */
export function removedReleaseOf(warning: string): string {
  return /unavailable in v(\d+\.\d+)\+/.exec(warning)?.[1] ?? '';
}

/** What the pipeline learns about one request, read when its response closes. */
interface Exchange {
  readonly info: RequestInfo;
  readonly url: URL;
  readonly requestId: string;
  readonly started: bigint;
  readonly longRunning: boolean;
  /** The Content-Type of a PATCH (an apply is reported as verb APPLY). */
  readonly contentTypeOfPatch: string | undefined;
  served: ServedResource | undefined;
  username: string;
  audit: RequestAudit | undefined;
  /** Set once a seat of the in-flight limit is held. */
  seat: RequestKind | undefined;
  /** Gives back the request's seat of its priority level, once it holds one. */
  releaseFlowSeat: (() => void) | undefined;
  /** Takes the request out of its priority level's queue while it waits there. */
  cancelWait: (() => void) | undefined;
  /** The Status answered, when the request failed. */
  failure: Status | undefined;
  contentType: string | undefined;
  body: string | Uint8Array | undefined;
  bytes: number;
  terminated: boolean;
  /** The response closed (answered, or the client left). */
  closed: boolean;
}

/** Upstream's reported verb: LIST and GET told apart by scope, WATCH, APPLY for apply patches. */
function reportedVerb(info: RequestInfo, contentType: string | undefined): string {
  switch (info.verb) {
    case 'get':
      return 'GET';
    case 'list':
      return 'LIST';
    case 'watch':
      return 'WATCH';
    case 'create':
      return 'POST';
    case 'update':
      return 'PUT';
    case 'patch':
      return contentType?.split(';')[0]?.trim() === 'application/apply-patch+yaml' ? 'APPLY' : 'PATCH';
    case 'delete':
    case 'deletecollection':
      return 'DELETE';
    default:
      return info.verb === 'head' ? 'GET' : info.verb.toUpperCase();
  }
}

/** Upstream's CleanScope. */
function scopeOf(info: RequestInfo): string {
  if (info.name || info.verb === 'create') return 'resource';
  if (info.namespace) return 'namespace';
  return info.isResourceRequest ? 'cluster' : '';
}

/** Upstream's dry_run label: '' without the parameter, the sorted distinct values, or `invalid`. */
function dryRunLabel(url: URL): string {
  if (!url.search.includes('dryRun')) return '';
  const values = url.searchParams.getAll('dryRun');
  if (values.some((v) => v !== 'All')) return 'invalid';
  return values.length ? 'All' : '';
}

export class ApiServer {
  readonly server: Http2SecureServer;
  private readonly connections: ConnectionTracker;
  private readonly limiter: InflightLimiter;
  /** Undefined when Priority and Fairness is off; the in-flight limits apply then. */
  private readonly flowControl: FlowControl | undefined;
  private readonly watches = new Set<() => void>();
  /**
   * The unsent watch bytes of this server, per watcher and in total: a watcher that does not keep
   * up is closed (see watch-budget.ts). Tests read its accounting and may narrow its limits.
   */
  readonly watchBudget = new WatchBudget();
  /** Undefined when the request log level is off, so that disabled lines cost nothing. */
  private readonly logRequest: ((obj: object, msg: string) => void) | undefined;

  constructor(private readonly opts: ServerOptions) {
    this.server = createSecureServer(
      {
        allowHTTP1: true,
        cert: opts.tls.cert,
        key: opts.tls.key,
        ca: opts.tls.clientCA,
        requestCert: true,
        rejectUnauthorized: false,
        // kube-apiserver's --http2-max-streams-per-connection default; Node's own is unbounded.
        // Go's limit on a request's headers is 1 MiB on HTTP/2 too (Node's own: 64 KiB).
        settings: { maxConcurrentStreams: http2MaxStreamsPerConnection, maxHeaderListSize: maxHeaderBytes },
        // Node's per-session memory account grows with the traffic a session carries (as in
        // nodejs/node#27416): past its limit, by default 10 MB, every new stream is refused
        // (ENHANCE_YOUR_CALM) and after 100 refusals the connection dies. A fuzz run's session
        // reached a limit of 128 MB after ~15,000 requests while the whole process held ~340 MB,
        // so a long-lived kubectl or informer connection would die the same way. What a session
        // holds is bounded otherwise: streams per connection, flow-control windows, bodies by
        // --max-request-bytes, unsent watch bytes by the watch budget.
        maxSessionMemory: http2MaxSessionMemoryMb,
      },
      (req, res) => this.serve(req, res),
    );
    this.connections = new ConnectionTracker(this.server);
    // With Priority and Fairness on, the in-flight limiter only counts (apiserver_current_inflight_requests).
    const fair = opts.enablePriorityAndFairness;
    this.flowControl = fair
      ? new FlowControl({ serverConcurrencyLimit: opts.maxRequestsInflight + opts.maxMutatingRequestsInflight, registry: opts.metrics.registry })
      : undefined;
    this.limiter = new InflightLimiter(fair ? 0 : opts.maxRequestsInflight, fair ? 0 : opts.maxMutatingRequestsInflight);
    opts.metrics.setInflightSource(() => this.limiter.takeWatermarks());
    const logger = opts.logger;
    this.logRequest = logger.isLevelEnabled(opts.requestLogLevel) ? logger[opts.requestLogLevel].bind(logger) : undefined;
    // A client that breaks the TLS handshake or the HTTP/2 session is that client's problem.
    this.server.on('tlsClientError', () => {});
    // Logged, as Go's server logs its connection errors: a connection that dies takes every
    // stream on it along (ERR_HTTP2_TOO_MANY_INVALID_FRAMES, say, after a client's 1,000th
    // invalid frame), which its client sees as resets without an answer.
    this.server.on('sessionError', (err: NodeJS.ErrnoException) => logger.info({ err: err.message, code: err.code }, 'HTTP/2 connection error'));
    answerProtocolErrors(this.server);
  }

  async listen(port: number, host: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  /** The replica is leaving (its /readyz fails): HTTP/1.1 answers close their connections from now on. */
  closeConnectionsAfterAnswers(): void {
    this.connections.closeAfterAnswers();
  }

  /**
   * Stops taking new connections and requests: HTTP/2 sessions get a GOAWAY, idle connections
   * close, and every watch ends cleanly (its client re-watches elsewhere).
   */
  stopAccepting(): void {
    this.connections.stopAccepting();
    for (const end of [...this.watches]) end();
  }

  /** Resolves true once the requests in flight (watches aside) finished, false after `timeoutMs`. */
  drain(timeoutMs: number): Promise<boolean> {
    return this.connections.drain(timeoutMs);
  }

  /** Closes everything at once, requests in flight included. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const end of [...this.watches]) end();
    this.connections.destroyAll();
    await closed;
  }

  /**
   * The error boundary of every request: whatever escapes the pipeline (it should be nothing: the
   * pipeline answers its own failures) is logged with its stack and answered as a 500 Status for
   * this request alone, or ends its stream when the answer had started.
   */
  private serve(req: AnyRequest, res: AnyResponse): void {
    let pipeline: Promise<void>;
    try {
      pipeline = this.handle(req, res);
    } catch (err) {
      pipeline = Promise.reject(err);
    }
    pipeline.catch((err: unknown) => {
      this.opts.logger.error({ err, method: req.method, target: req.url }, 'request escaped the pipeline');
      try {
        if (res.headersSent) res.destroy();
        else {
          const body = serializeStatus(toStatusError(err).status, 'json');
          (res as ServerResponse).writeHead(500, { 'content-type': body.contentType });
          res.end(body.body);
        }
      } catch {
        res.destroy();
      }
    });
  }

  private async handle(req: AnyRequest, res: AnyResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const received = this.opts.auditor ? new Date() : undefined;
    const method = req.method ?? 'GET';
    // A target that is no URL is answered in the pipeline below, as a root path request that failed.
    let url: URL;
    let badTarget: StatusError | undefined;
    try {
      url = parseRequestTarget(req.url ?? '/');
    } catch (err) {
      badTarget = toStatusError(err);
      url = parseRequestTarget('/');
    }
    const info = parseRequestInfo(method, url.pathname, url.searchParams);
    const warnings: string[] = [];
    // Upstream returns the audit ID of every request; it ties a response to its log and audit lines.
    const requestId = randomUUID();
    res.setHeader('audit-id', requestId);
    const longRunning = isLongRunning(info);
    const ex: Exchange = {
      info,
      url,
      requestId,
      started,
      longRunning,
      contentTypeOfPatch: info.verb === 'patch' ? req.headers['content-type'] : undefined,
      served: undefined,
      username: '',
      audit: undefined,
      seat: undefined,
      releaseFlowSeat: undefined,
      cancelWait: undefined,
      failure: undefined,
      contentType: undefined,
      body: undefined,
      bytes: 0,
      terminated: false,
      closed: false,
    };
    this.connections.track(req, res, longRunning);
    let deadline: NodeJS.Timeout | undefined;
    // A body the pipeline did not read (a request refused before it needed its body) is read and
    // dropped once the answer is out: over HTTP/2 unread data holds the connection's flow-control
    // window and the session's memory, which would stall every other stream of that client.
    res.once('finish', () => {
      if (!req.readableEnded) req.resume();
    });
    res.once('close', () => {
      ex.closed = true;
      ex.cancelWait?.();
      if (deadline) clearTimeout(deadline);
      try {
        this.finish(res, ex);
      } catch (err) {
        this.opts.logger.error({ err, requestId }, 'finishing a request failed');
      }
    });
    try {
      if (badTarget) throw badTarget;
      let deadlineMs = 0;
      if (!longRunning) {
        deadlineMs = requestDeadlineMs(url.searchParams, this.opts.requestTimeoutMs);
        deadline = setTimeout(() => this.timeOut(req, res, ex), deadlineMs);
      }
      const clientCertificate = clientCertificateOf(tlsSocketOf(req));
      const authorization = req.headers.authorization;
      const authn = await this.opts.authenticator.authenticate({
        ...(clientCertificate ? { clientCertificate } : {}),
        ...(authorization ? { authorization } : {}),
      });
      append(warnings, authn.warnings);
      if (!authn.user) {
        this.beginAudit(req, ex, undefined, received);
        throw unauthorized();
      }
      const authenticated: UserInfo = authn.user;
      ex.username = authenticated.username;
      this.beginAudit(req, ex, authenticated, received);
      ex.audit?.requestReceived();
      // From here on the request acts as the impersonated user, when it asks for one and may.
      const user = await impersonate(req.rawHeaders, authenticated, this.opts.authorizer);
      if (user !== authenticated) ex.audit?.impersonated(user);

      const probe = probePaths.test(url.pathname);
      if (!longRunning && !(await this.takeSeat(res, ex, user, probe, deadlineMs))) return;

      const asked = authorizationAttributes(info);
      const decision = await this.opts.authorizer.authorize(user, asked);
      ex.audit?.annotate('authorization.k8s.io/decision', decision.decision === 'allow' ? 'allow' : 'forbid');
      ex.audit?.annotate('authorization.k8s.io/reason', decision.reason);
      requireAllowed(decision, user, asked);
      if (probe) return await this.serveProbe(url, res, ex);

      if (info.isResourceRequest) {
        ex.served = this.opts.registry.lookup(info.apiGroup, info.apiVersion, info.resource);
        const deprecation = ex.served?.definition.deprecationWarning;
        if (deprecation) this.deprecatedApiRequested(ex, deprecation);
        const response = await handleResource(this.opts.registry, {
          info,
          query: url.searchParams,
          headers: req.headers,
          readBody: () => this.readBody(req, ex),
          context: { user, now: new Date() },
        });
        if ('kind' in response) return await this.stream(res, response, warnings, ex, req.method === 'HEAD');
        response.warnings.unshift(...warnings);
        return this.write(res, response, ex);
      }
      if (url.pathname === '/metrics') {
        return this.send(res, ex, 200, this.opts.metrics.contentType, await this.opts.metrics.text(), warnings);
      }
      const openapi = serveOpenApi(this.opts.registry, url, { accept: req.headers.accept, ifNoneMatch: req.headers['if-none-match'] });
      if (openapi) {
        // OpenAPI answers carry their own caching headers (ETag, max-age for hashed URLs).
        if (res.headersSent || res.destroyed) return;
        const payload = bodyBytes(openapi.body);
        (res as ServerResponse).writeHead(
          openapi.status,
          openapi.status === 304 ? openapi.headers : { ...openapi.headers, 'content-length': String(payload.byteLength) },
        );
        ex.bytes = payload.byteLength;
        res.end(payload);
        return;
      }
      const found = discovery(this.opts.registry, url.pathname, req.headers.accept, `${req.headers.host ?? ''}`);
      if (found) {
        return this.send(res, ex, 200, found.contentType, JSON.stringify(found.body), warnings);
      }
      throw pathNotFound();
    } catch (err) {
      const status = toStatusError(err);
      if (status.code >= 500) this.opts.logger.error({ err, requestId, path: url.pathname, verb: info.verb }, 'request failed');
      this.writeError(res, ex, status, req.headers.accept, warnings);
    }
  }

  /** Starts the request's audit (after authentication, as upstream's audit filter sits after it). */
  private beginAudit(req: AnyRequest, ex: Exchange, user: UserInfo | undefined, received: Date | undefined): void {
    const auditor = this.opts.auditor;
    if (!auditor || !received) return;
    const { info } = ex;
    const agent = req.headers['user-agent'];
    ex.audit = auditor.begin(
      {
        user,
        verb: info.verb,
        isResourceRequest: info.isResourceRequest,
        path: info.path,
        namespace: info.namespace,
        apiGroup: info.apiGroup,
        apiVersion: info.apiVersion,
        resource: info.resource,
        subresource: info.subresource,
        name: info.name,
      },
      {
        auditID: ex.requestId,
        requestURI: `${ex.url.pathname}${ex.url.search}`,
        userAgent: typeof agent === 'string' ? agent : agent?.[0],
        sourceIPs: sourceIPs(req.headers, tlsSocketOf(req).remoteAddress),
        received,
      },
    );
  }

  /** The three signals of a deprecated API: the Warning (added by the handler), the audit annotations and the metric. */
  private deprecatedApiRequested(ex: Exchange, warning: string): void {
    const removedRelease = removedReleaseOf(warning);
    ex.audit?.annotate(deprecatedAnnotation, 'true');
    if (removedRelease) ex.audit?.annotate(removedReleaseAnnotation, removedRelease);
    const { info } = ex;
    this.opts.metrics.deprecatedApiRequested({
      group: info.apiGroup,
      version: info.apiVersion,
      resource: info.resource,
      subresource: info.subresource,
      removed_release: removedRelease,
    });
  }

  /** /version, and the health checks of /livez, /readyz and /healthz (with their `/<check>` paths). */
  private async serveProbe(url: URL, res: AnyResponse, ex: Exchange): Promise<void> {
    const [, endpoint = '', ...rest] = url.pathname.split('/');
    if (endpoint === 'version') return this.send(res, ex, 200, 'application/json', JSON.stringify(this.opts.version, null, 2), []);
    const checks = endpoint === 'readyz' ? this.opts.readyz : this.opts.livez;
    const result = await healthResponse(endpoint, checks, rest.join('/'), url.searchParams);
    if (!result) throw pathNotFound();
    // Only the whole verdict (what a load balancer checks) says whether clients should move.
    if (endpoint === 'readyz' && rest.length === 0 && !url.searchParams.has('exclude')) this.connections.readinessObserved(result.status === 200);
    const warnings: string[] = [];
    if (endpoint === 'healthz') {
      warnings.push(healthzDeprecationWarning);
      ex.audit?.annotate(deprecatedAnnotation, 'true');
    }
    return this.send(res, ex, result.status, 'text/plain; charset=utf-8', result.body, warnings, { 'x-content-type-options': 'nosniff' });
  }

  /**
   * Streams a watch: headers at once, then one frame per event until either side or a shutdown
   * ends it. A HEAD request gets the headers alone and no watch: its answer has no body to carry
   * events (and Node, which drops the writes, would never send the headers of an HTTP/1.1 one).
   */
  private async stream(res: AnyResponse, watch: WatchResponse, warnings: string[], ex: Exchange, headOnly: boolean): Promise<void> {
    if (res.headersSent || res.destroyed) return;
    // The headers go out once the watch has its starting point (below): a client that sees the 200
    // and then writes must see its write in the stream, as upstream establishes the watch first.
    res.statusCode = 200;
    res.setHeader('content-type', watch.contentType);
    res.setHeader('cache-control', 'no-cache, private');
    if (warnings.length) res.setHeader('warning', warningHeaderValues(warnings));
    ex.audit?.responseStarted(200);
    if (headOnly) return void res.end();
    const def = ex.served?.definition;
    const gvk = { group: def?.group ?? ex.info.apiGroup, version: def?.version ?? ex.info.apiVersion, kind: def?.kind ?? '' };
    const stopWatching = this.opts.metrics.watchStarted(this.requestLabels(ex), gvk);
    const recordEvent = this.opts.metrics.watchEventRecorder(gvk);
    const end = (): void => {
      if (!res.destroyed && !res.writableEnded) res.end();
    };
    // A watcher closed by the budget is destroyed rather than ended: what it holds unsent (HTTP/1.1
    // socket and TLS queues, an HTTP/2 stream waiting for window) is dropped at once. Like
    // upstream's terminated watchers, its client re-watches from its last version.
    const account = this.watchBudget.open((reason) => {
      this.opts.logger.info({ requestId: ex.requestId, resource: ex.info.resource, reason }, 'forcing watcher close due to unresponsiveness');
      res.destroy();
    });
    let closed = false;
    this.watches.add(end);
    res.once('close', () => {
      closed = true;
      account.close();
      this.watches.delete(end);
      stopWatching();
    });
    if (this.connections.draining) end();
    await watch.start({
      write: (frame) => {
        if (closed || res.writableEnded || !account.charge(frame.length)) return false;
        recordEvent(frame.length);
        // The callback runs once the transport handed the frame to the network, or dropped it.
        (res as ServerResponse).write(frame, () => account.release(frame.length));
        return true;
      },
      end,
      onClose: (handler) => {
        res.once('close', handler);
      },
    });
    // Send the headers now if no event did: clients wait for them before they read events.
    if (!res.headersSent && !res.destroyed && !res.writableEnded) (res as ServerResponse).flushHeaders();
  }

  /** Reads the request body, refusing more than the configured limit with a 413. */
  private readBody(req: AnyRequest, ex: Exchange): Promise<Buffer> {
    const limit = this.opts.maxRequestBodyBytes;
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) return discardBody(req, declared).then(() => Promise.reject(requestEntityTooLarge(limit)));
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          reject(requestEntityTooLarge(limit));
          req.removeAllListeners('data');
          req.resume();
          return;
        }
        chunks.push(chunk);
      });
      req.once('end', () => {
        const body = Buffer.concat(chunks);
        ex.audit?.requestBody(req.headers['content-type'], body);
        resolve(body);
      });
      req.once('error', reject);
    });
  }

  private write(res: AnyResponse, response: ApiResponse, ex: Exchange): void {
    this.send(res, ex, response.status, response.body.contentType, response.body.body, response.warnings);
  }

  /** A failure as a Status in the format the client asked for (JSON when it asked for none we have). */
  private writeError(res: AnyResponse, ex: Exchange, err: StatusError, accept: string | undefined, warnings: string[]): void {
    let format: WireFormat = 'json';
    try {
      format = negotiate(accept, false).format;
    } catch {
      // An unacceptable Accept still gets its Status, as JSON.
    }
    const headers: Record<string, string> = err.retryAfterSeconds ? { 'retry-after': String(err.retryAfterSeconds) } : {};
    const body = serializeStatus(err.status, format);
    if (!res.headersSent) ex.failure = err.status;
    this.send(res, ex, err.code, body.contentType, body.body, warnings, headers);
  }

  /**
   * Holds the request until it may run: a seat of its priority level, waited for in its queue
   * (Priority and Fairness), or a seat of its kind's in-flight limit. False when it may not run:
   * it was turned away (answered 429 here) or its client left.
   */
  private async takeSeat(res: AnyResponse, ex: Exchange, user: UserInfo, probe: boolean, deadlineMs: number): Promise<boolean> {
    // A client that left during authentication gets no seat and no place in a queue.
    if (ex.closed) return false;
    const flowControl = this.flowControl;
    const classification = flowControl?.classify(user, ex.info);
    if (flowControl && classification) {
      res.setHeader('x-kubernetes-pf-flowschema-uid', classification.flowSchemaUid);
      res.setHeader('x-kubernetes-pf-prioritylevel-uid', classification.priorityLevelUid);
      const waitedMs = Number(process.hrtime.bigint() - ex.started) / 1e6;
      let admission = flowControl.admit(classification, queueWaitLimitMs(deadlineMs) - waitedMs);
      if ('cancel' in admission) {
        ex.cancelWait = admission.cancel;
        admission = await admission.admission;
        ex.cancelWait = undefined;
      }
      if (!admission.admitted) {
        if (admission.reason !== 'cancelled') this.tooManyRequests(res, ex, admission.retryAfterSeconds);
        return false;
      }
      ex.releaseFlowSeat = admission.release;
    } else if (probe) {
      // Without Priority and Fairness, probes and /version skip the in-flight limit, so that a
      // saturated server still answers its supervisor.
      return true;
    }
    const kind = requestKind(ex.info);
    if (!this.limiter.admit(kind, user)) {
      this.tooManyRequests(res, ex, 1);
      return false;
    }
    ex.seat = kind;
    // A client that left while the request waited must not keep its seats: finish() has run already.
    if (ex.closed) {
      this.releaseSeats(ex);
      return false;
    }
    return true;
  }

  private releaseSeats(ex: Exchange): void {
    if (ex.seat) this.limiter.release(ex.seat);
    ex.seat = undefined;
    ex.releaseFlowSeat?.();
    ex.releaseFlowSeat = undefined;
  }

  /** Upstream's answer to a request turned away by the in-flight limit or its priority level: plain text, with Retry-After. */
  private tooManyRequests(res: AnyResponse, ex: Exchange, retryAfterSeconds: number): void {
    ex.terminated = true;
    this.opts.metrics.observeTermination(this.requestLabels(ex), 429);
    this.send(res, ex, 429, 'text/plain; charset=utf-8', tooManyRequestsBody, [], {
      'retry-after': String(retryAfterSeconds),
      'x-content-type-options': 'nosniff',
    });
  }

  /** The request outlived its deadline: the client gets the 504 now; the handler's late answer is dropped. */
  private timeOut(req: AnyRequest, res: AnyResponse, ex: Exchange): void {
    if (res.headersSent || res.destroyed) return;
    ex.terminated = true;
    this.opts.metrics.observeTermination(this.requestLabels(ex), 504);
    this.writeError(res, ex, requestTimeoutError(), req.headers.accept, []);
  }

  private send(
    res: AnyResponse,
    ex: Exchange,
    status: number,
    contentType: string,
    body: string | Uint8Array,
    warnings: string[],
    extra: Record<string, string> = {},
  ): void {
    if (res.headersSent || res.destroyed) return;
    const payload = bodyBytes(body);
    const length = payload.byteLength;
    // The length lets a client tell an answer its connection's loss cut short from a whole one
    // (Go's server declares it for the small answers it buffers), and spares HTTP/1.1 the chunking.
    const headers: Record<string, string | string[]> = {
      'content-type': contentType,
      'cache-control': 'no-cache, private',
      ...(status === 204 || status === 304 ? {} : { 'content-length': String(length) }),
      ...extra,
    };
    if (warnings.length) headers.warning = warningHeaderValues(warnings);
    try {
      (res as ServerResponse).writeHead(status, headers);
    } catch (err) {
      // The answer may report a committed write: it goes out, without the header that could not be written.
      this.opts.logger.error({ err, requestId: ex.requestId }, 'response headers refused; sending without warnings');
      delete headers.warning;
      (res as ServerResponse).writeHead(status, headers);
    }
    ex.bytes = length;
    if (ex.audit?.level === 'RequestResponse') {
      ex.contentType = contentType;
      ex.body = body;
    }
    res.end(payload);
  }

  private requestLabels(ex: Exchange): RequestLabels {
    const { info } = ex;
    return {
      verb: reportedVerb(info, ex.contentTypeOfPatch),
      dry_run: dryRunLabel(ex.url),
      group: info.apiGroup,
      version: info.apiVersion,
      resource: info.resource,
      subresource: info.isResourceRequest ? info.subresource : info.path,
      scope: scopeOf(info),
      component: info.isResourceRequest ? apiServerComponent : (instrumentedPaths.get(info.path) ?? apiServerComponent),
    };
  }

  /** Once the response closed: the seat, the log line, the metrics and the last audit event. */
  private finish(res: AnyResponse, ex: Exchange): void {
    this.releaseSeats(ex);
    const seconds = Number(process.hrtime.bigint() - ex.started) / 1e9;
    const code = res.statusCode;
    this.logRequest?.({ requestId: ex.requestId, verb: ex.info.verb, path: ex.info.path, user: ex.username, code, latencyMs: seconds * 1000 }, 'request');
    // As upstream: requests that reached a route (authentication and authorization passed), and those the server turned away itself.
    const routed = ex.info.isResourceRequest ? ex.served !== undefined : instrumentedPaths.has(ex.info.path) && code !== 401 && code !== 403;
    const counted = routed || ex.terminated;
    if (counted) this.opts.metrics.observeRequest(this.requestLabels(ex), code, seconds, ex.bytes);
    ex.audit?.complete(code, ex.failure, ex.contentType, ex.body);
  }
}

/**
 * An answer's body as bytes. Node writes a string body together with the HTTP/1.1 header block,
 * both as UTF-8 once the answer has a content-length (it is not chunked), which re-encoded the
 * Warning header's UTF-8 bytes, each carried by one latin1 character (warning-header.ts); bytes go
 * out after the header block, which Node writes as latin1.
 */
function bodyBytes(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? Buffer.from(body) : body;
}
