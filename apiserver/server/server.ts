/**
 * The API server: a TLS listener speaking HTTP/2 with HTTP/1.1 fallback, and the request
 * pipeline, which reads top to bottom in `serve`: request info → public endpoints → authentication
 * → authorization → discovery, health or the verb handler (where admission runs). Every failure
 * leaves as a Status.
 */
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { stringify as toYaml } from 'yaml';
import type { Logger } from 'pino';
import { pathNotFound, requestEntityTooLarge, toStatusError, unauthorized, type StatusError } from '../../shared/api/errors.ts';
import type { Authenticator } from '../auth/authenticate.ts';
import { clientCertificateOf } from '../auth/authenticate.ts';
import { discovery } from '../endpoints/discovery.ts';
import { serveOpenApi } from '../endpoints/openapi.ts';
import { negotiate } from '../endpoints/negotiation.ts';
import { serializeStatus, type WireFormat } from '../endpoints/serialize.ts';
import { handleResource, type ApiResponse } from '../endpoints/resource.ts';
import type { WatchResponse } from '../endpoints/watch.ts';
import type { Registry } from '../registry/registry.ts';
import type { UserInfo } from '../registry/definition.ts';
import { healthResponse, type HealthCheck } from './health.ts';
import { parseRequestInfo, isTrue } from './requestinfo.ts';
import { authorize, type Authorizer } from './authorization.ts';

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

/** Paths anyone may read without credentials, as upstream's system:public-info-viewer allows. */
const publicPaths = /^\/(livez|readyz|healthz)(\/.*)?$|^\/version\/?$/;

export class ApiServer {
  readonly server: Http2SecureServer;
  private readonly sockets = new Set<import('node:net').Socket>();

  constructor(private readonly opts: ServerOptions) {
    this.server = createSecureServer(
      {
        allowHTTP1: true,
        cert: opts.tls.cert,
        key: opts.tls.key,
        ca: opts.tls.clientCA,
        requestCert: true,
        rejectUnauthorized: false,
      },
      (req, res) => void this.serve(req, res),
    );
    this.server.on('secureConnection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    // A client that breaks the TLS handshake or the HTTP/2 session is that client's problem.
    this.server.on('tlsClientError', () => {});
    this.server.on('sessionError', () => {});
  }

  async listen(port: number, host: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private async serve(req: AnyRequest, res: AnyResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'https://corral');
    const info = parseRequestInfo(method, url.pathname, url.searchParams);
    const warnings: string[] = [];
    // Upstream returns the audit ID of every request; it ties a response to its log line.
    const requestId = randomUUID();
    res.setHeader('audit-id', requestId);
    let username = '';
    res.once('finish', () => {
      const latencyMs = Number(process.hrtime.bigint() - started) / 1e6;
      this.opts.logger.debug({ requestId, verb: info.verb, path: url.pathname, user: username, code: res.statusCode, latencyMs }, 'request');
    });
    try {
      if (publicPaths.test(url.pathname)) return await this.servePublic(url, res);

      const clientCertificate = clientCertificateOf(tlsSocketOf(req));
      const authorization = req.headers.authorization;
      const authn = await this.opts.authenticator.authenticate({
        ...(clientCertificate ? { clientCertificate } : {}),
        ...(authorization ? { authorization } : {}),
      });
      warnings.push(...authn.warnings);
      if (!authn.user) throw unauthorized();
      const user: UserInfo = authn.user;
      username = user.username;

      await authorize(this.opts.authorizer, user, info);

      if (info.isResourceRequest) {
        const response = await handleResource(this.opts.registry, {
          info,
          query: url.searchParams,
          headers: req.headers,
          readBody: () => this.readBody(req),
          context: { user, now: new Date() },
        });
        if ('kind' in response) return await this.stream(res, response, warnings);
        response.warnings.unshift(...warnings);
        return this.write(res, response);
      }
      const openapi = serveOpenApi(this.opts.registry, url, { accept: req.headers.accept, ifNoneMatch: req.headers['if-none-match'] });
      if (openapi) {
        // OpenAPI answers carry their own caching headers (ETag, max-age for hashed URLs).
        (res as ServerResponse).writeHead(openapi.status, openapi.headers);
        res.end(openapi.body);
        return;
      }
      const found = discovery(this.opts.registry, url.pathname, req.headers.accept, `${req.headers.host ?? ''}`);
      if (found) {
        return this.send(res, 200, found.contentType, JSON.stringify(found.body), warnings);
      }
      throw pathNotFound();
    } catch (err) {
      const status = toStatusError(err);
      if (status.code >= 500) this.opts.logger.error({ err, requestId, path: url.pathname, verb: info.verb }, 'request failed');
      this.writeError(res, status, req.headers.accept, warnings);
    }
  }

  private async servePublic(url: URL, res: AnyResponse): Promise<void> {
    const [, endpoint = '', ...rest] = url.pathname.split('/');
    if (endpoint === 'version') return this.send(res, 200, 'application/json', JSON.stringify(this.opts.version, null, 2), []);
    const checks = endpoint === 'readyz' ? this.opts.readyz : this.opts.livez;
    const result = await healthResponse(endpoint, checks, rest.join('/'), url.searchParams);
    if (!result) throw pathNotFound();
    return this.send(res, result.status, 'text/plain; charset=utf-8', result.body, [], { 'x-content-type-options': 'nosniff' });
  }

  /** Streams a watch: headers at once, then one frame per event until either side ends it. */
  private async stream(res: AnyResponse, watch: WatchResponse, warnings: string[]): Promise<void> {
    const headers: Record<string, string | string[]> = { 'content-type': watch.contentType, 'cache-control': 'no-cache, private' };
    if (warnings.length) headers.warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
    (res as ServerResponse).writeHead(200, headers);
    // Send the headers now: clients wait for them before they read events.
    (res as ServerResponse).flushHeaders();
    await watch.start({
      write: (frame) => {
        if (!res.destroyed) (res as ServerResponse).write(frame);
      },
      end: () => {
        if (!res.destroyed) res.end();
      },
      onClose: (handler) => {
        res.once('close', handler);
      },
    });
  }

  /** Reads the request body, refusing more than the configured limit with a 413. */
  private readBody(req: AnyRequest): Promise<Buffer> {
    const limit = this.opts.maxRequestBodyBytes;
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) return Promise.reject(requestEntityTooLarge(limit));
    return new Promise((resolve, reject) => {
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
      req.once('end', () => resolve(Buffer.concat(chunks)));
      req.once('error', reject);
    });
  }

  private write(res: AnyResponse, response: ApiResponse): void {
    this.send(res, response.status, response.body.contentType, response.body.body, response.warnings);
  }

  /** A failure as a Status in the format the client asked for (JSON when it asked for none we have). */
  private writeError(res: AnyResponse, err: StatusError, accept: string | undefined, warnings: string[]): void {
    let format: WireFormat = 'json';
    try {
      format = negotiate(accept, false).format;
    } catch {
      // An unacceptable Accept still gets its Status, as JSON.
    }
    const headers: Record<string, string> = err.retryAfterSeconds !== undefined ? { 'retry-after': String(err.retryAfterSeconds) } : {};
    const body = serializeStatus(err.status, format);
    this.send(res, err.code, body.contentType, body.body, warnings, headers);
  }

  private send(res: AnyResponse, status: number, contentType: string, body: string | Uint8Array, warnings: string[], extra: Record<string, string> = {}): void {
    if (res.headersSent || res.destroyed) return;
    const headers: Record<string, string | string[]> = {
      'content-type': contentType,
      'cache-control': 'no-cache, private',
      ...extra,
    };
    if (warnings.length) headers.warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
    (res as ServerResponse).writeHead(status, headers);
    res.end(body);
  }
}

