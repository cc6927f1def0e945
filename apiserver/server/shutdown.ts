/**
 * Graceful shutdown, in upstream's order: on SIGTERM /readyz fails at once (its `shutdown` check),
 * so that load balancers take the replica out, and every answer from then on closes its connection
 * (HTTP/1.1: `Connection: close`; HTTP/2: a GOAWAY once the answer is sent, what Go's server does
 * for that header), so that busy keep-alive clients reconnect (through the balancer, to a ready
 * replica) before the listener closes instead of finding their connection cut under their next
 * request;
 * after --shutdown-delay-duration the listener closes
 * (HTTP/2 sessions get a GOAWAY, idle HTTP/1.1 connections are closed, busy ones close after their
 * last answer) and watches end cleanly, so clients re-watch elsewhere; requests in flight finish
 * (for at most the request timeout); then storage is released and the process may exit 0.
 */
import type { Http2SecureServer, Http2ServerRequest, Http2ServerResponse, ServerHttp2Session } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';

type AnyRequest = IncomingMessage | Http2ServerRequest;
type AnyResponse = ServerResponse | Http2ServerResponse;

/**
 * Knows every connection of a server and the requests in flight on each, so that the server can
 * stop accepting without cutting an answer short.
 */
export class ConnectionTracker {
  private readonly http1 = new Map<Socket, number>();
  private readonly sessions = new Set<ServerHttp2Session>();
  private readonly sockets = new Set<Socket>();
  /** Requests in flight that are not long-running. */
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private stopping = false;
  /** Answers close their connection (the replica is leaving, still serving). */
  private leaving = false;
  /** The last full /readyz failed: answers close their connection until one passes. */
  private unready = false;

  constructor(private readonly server: Http2SecureServer) {
    server.on('secureConnection', (socket: Socket & { alpnProtocol?: string | false }) => {
      this.sockets.add(socket);
      if (socket.alpnProtocol !== 'h2') this.http1.set(socket, 0);
      socket.once('close', () => {
        this.sockets.delete(socket);
        this.http1.delete(socket);
      });
    });
    server.on('session', (session: ServerHttp2Session) => {
      this.sessions.add(session);
      session.once('close', () => this.sessions.delete(session));
      if (this.stopping) session.close();
    });
  }

  /** True once the server stopped accepting. */
  get draining(): boolean {
    return this.stopping;
  }

  /**
   * Counts a request until its response closes. An answer sent while the replica is draining,
   * leaving or unready closes its connection: HTTP/1.1 with `Connection: close`, HTTP/2 with a
   * GOAWAY once the answer is out (the session's other streams finish; the client opens its next
   * request on a new connection).
   */
  track(req: AnyRequest, res: AnyResponse, longRunning: boolean): void {
    const socket = 'stream' in req ? undefined : req.socket;
    const session = 'stream' in req ? req.stream.session : undefined;
    const count = socket ? this.http1.get(socket) : undefined;
    if (socket && count !== undefined) this.http1.set(socket, count + 1);
    if (!longRunning) this.inFlight++;
    if (socket && (this.stopping || this.leaving || this.unready)) (res as ServerResponse).setHeader('connection', 'close');
    res.once('close', () => {
      if (!longRunning && --this.inFlight === 0) this.releaseIdleWaiters();
      if (session && (this.leaving || this.unready) && !session.closed && !session.destroyed) session.close();
      if (!socket) return;
      const left = (this.http1.get(socket) ?? 1) - 1;
      if (this.http1.has(socket)) this.http1.set(socket, left);
      if (this.stopping && left === 0) socket.end();
    });
  }

  /** From now on every answer closes its connection; the listener still accepts. */
  closeAfterAnswers(): void {
    this.leaving = true;
  }

  /**
   * The verdict of the last full /readyz. While it fails (storage unreachable, still starting),
   * answers close their connection, so that keep-alive clients behind a TCP load balancer
   * reconnect and reach a ready replica once the balancer took this one out, instead of staying
   * pinned to it. Each client moves at its next answer, HTTP/2 ones included (a GOAWAY after the
   * answer, as kube-apiserver's --goaway-chance does at random): never all of them at once on one
   * failed check, which would send every client of the replica reconnecting together.
   */
  readinessObserved(ready: boolean): void {
    this.unready = !ready;
  }

  /** Closes the listener and every connection that has nothing in flight; the others close once answered. */
  stopAccepting(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.server.close();
    for (const session of this.sessions) session.close();
    for (const [socket, count] of this.http1) if (count === 0) socket.end();
  }

  /** Resolves true once no short request is in flight, or false after `timeoutMs`. */
  async drain(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return true;
    const ac = new AbortController();
    const idle = new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true)));
    const timeout = sleep(timeoutMs, false, { signal: ac.signal }).catch(() => false);
    const drained = await Promise.race([idle, timeout]);
    ac.abort();
    return drained;
  }

  /** Ends every connection at once (after draining, or when no grace is wanted). */
  destroyAll(): void {
    this.stopping = true;
    this.server.close();
    for (const session of this.sessions) session.destroy();
    for (const socket of this.sockets) socket.destroy();
  }

  private releaseIdleWaiters(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

/** The steps of a graceful shutdown, supplied by the server assembly. */
export interface ShutdownSteps {
  /** --shutdown-delay-duration. */
  delayMs: number;
  /** Longest wait for requests in flight (upstream: the request timeout). */
  drainTimeoutMs: number;
  /** /readyz starts failing. */
  markNotReady(): void;
  /** The listener closes and watches end. */
  stopAccepting(): void;
  /** Resolves true when the requests in flight finished in time. */
  drain(timeoutMs: number): Promise<boolean>;
  /** Connections, caches, the etcd client. */
  release(): Promise<void>;
  logger: Logger;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
}

export async function gracefulShutdown(steps: ShutdownSteps): Promise<void> {
  const wait = steps.sleep ?? ((ms: number) => sleep(ms).then(() => undefined));
  steps.logger.info({ shutdownDelayMs: steps.delayMs }, 'shutdown initiated: /readyz fails from now on');
  steps.markNotReady();
  if (steps.delayMs > 0) await wait(steps.delayMs);
  steps.logger.info('no longer accepting new connections; ending watches');
  steps.stopAccepting();
  const drained = await steps.drain(steps.drainTimeoutMs);
  if (drained) steps.logger.info('requests in flight drained');
  else steps.logger.warn({ timeoutMs: steps.drainTimeoutMs }, 'requests still in flight after the drain timeout; closing their connections');
  await steps.release();
  steps.logger.info('shutdown complete');
}
