/**
 * The controllers' door to the API: JSON requests as the wire has them, over the connection a
 * kubeconfig describes.
 *
 * @kubernetes/client-node loads the kubeconfig, applies its credentials (certificates, tokens,
 * exec plugins) and runs the watches and informers; this module adds only plain JSON calls. Why
 * not client-node's typed APIs: they turn timestamps into Date objects and back while its watch
 * (and so every informer update) hands over wire JSON, so one cache would hold two shapes of the
 * same object; controllers read and write one shape, the wire's. A failure is the server's own
 * Status as a StatusError, the API's one error type, so controllers match reasons
 * (`isStatusError(err, 'NotFound')`) exactly as the server makes them.
 */
import { Agent, request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { StatusError } from '../api/errors.ts';
import { isObject, type KubeList, type KubeObject, type StatusDetails } from '../api/types.ts';
import { TokenBucket } from './token-bucket.ts';

/** Where a kind's objects live on the API: group (empty for core), version, plural resource. */
export interface ResourceRef {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
}

/** `/api/v1/...` or `/apis/<group>/<version>/...`, optionally in a namespace, naming an object and a subresource. */
export function resourcePath(ref: ResourceRef, namespace?: string, name?: string, subresource?: string): string {
  const base = ref.group ? `/apis/${ref.group}/${ref.version}` : `/api/${ref.version}`;
  const ns = ref.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const obj = name !== undefined ? `/${encodeURIComponent(name)}` : '';
  const sub = subresource ? `/${subresource}` : '';
  return `${base}${ns}/${ref.resource}${obj}${sub}`;
}

export type PatchType = 'merge' | 'strategic' | 'json' | 'apply';

const patchContentTypes: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
};

export type Query = Record<string, string | number | boolean | undefined>;

/** The calls controllers make; the fake in testing.ts records them. */
export interface ApiClient {
  get<T extends KubeObject>(path: string, query?: Query): Promise<T>;
  list<T extends KubeObject>(path: string, query?: Query): Promise<KubeList<T>>;
  create<T extends KubeObject>(path: string, body: KubeObject, query?: Query): Promise<T>;
  /** PUT: an update of the object or of a subresource (status, approval, finalize). */
  update<T extends KubeObject>(path: string, body: KubeObject, query?: Query): Promise<T>;
  patch<T extends KubeObject>(path: string, type: PatchType, body: unknown, query?: Query): Promise<T>;
  /** DELETE with DeleteOptions (propagationPolicy, preconditions); the answer (object or Status). */
  delete(path: string, options?: Record<string, unknown>, query?: Query): Promise<unknown>;
}

export interface HttpApiClientOptions {
  /** Per-request deadline. */
  timeoutMs?: number;
  /** The User-Agent header, as upstream components send theirs. */
  userAgent?: string;
  /**
   * client-go's QPS and Burst: requests beyond `qps` a second (after a burst of `burst`) wait their
   * turn, in order. Unset or qps ≤ 0: no limit (client-go's negative QPS).
   */
  throttle?: { qps: number; burst: number };
}

/** An ApiClient over HTTPS (or HTTP) to the current context of `kubeconfig`. */
export class HttpApiClient implements ApiClient {
  private readonly server: URL;
  private readonly timeoutMs: number;
  private connection: Promise<Connection> | undefined;
  private connectionMadeAt = 0;
  private readonly userAgent: string;
  private readonly throttle: TokenBucket | undefined;

  constructor(
    private readonly kubeconfig: KubeConfig,
    options: HttpApiClientOptions = {},
  ) {
    const cluster = kubeconfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.server = new URL(cluster.server);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.userAgent = options.userAgent ?? 'corral-controller-manager';
    const { qps = 0, burst = 1 } = options.throttle ?? {};
    this.throttle = qps > 0 ? new TokenBucket(qps, Math.max(1, burst), Date.now()) : undefined;
  }

  get<T extends KubeObject>(path: string, query?: Query): Promise<T> {
    return this.request('GET', path, query) as Promise<T>;
  }

  list<T extends KubeObject>(path: string, query?: Query): Promise<KubeList<T>> {
    return this.request('GET', path, query) as Promise<KubeList<T>>;
  }

  create<T extends KubeObject>(path: string, body: KubeObject, query?: Query): Promise<T> {
    return this.request('POST', path, query, body) as Promise<T>;
  }

  update<T extends KubeObject>(path: string, body: KubeObject, query?: Query): Promise<T> {
    return this.request('PUT', path, query, body) as Promise<T>;
  }

  patch<T extends KubeObject>(path: string, type: PatchType, body: unknown, query?: Query): Promise<T> {
    return this.request('PATCH', path, query, body, patchContentTypes[type]) as Promise<T>;
  }

  delete(path: string, options?: Record<string, unknown>, query?: Query): Promise<unknown> {
    return this.request('DELETE', path, query, options ? { kind: 'DeleteOptions', apiVersion: 'v1', ...options } : undefined);
  }

  /** Closes idle connections. */
  close(): void {
    void this.connection?.then((c) => c.agent.destroy());
  }

  /** Applies the kubeconfig's credentials again on the next request: its certificate files were renewed. */
  reloadCredentials(): void {
    this.connectionMadeAt = 0;
  }

  /**
   * The kubeconfig's credentials as one keep-alive agent and the headers they need. client-node
   * makes a fresh agent each time it applies them, which would mean a TLS handshake per request;
   * they are applied once here, and again every few minutes so that rotated credentials (a
   * token from an exec plugin, a renewed certificate file) are picked up.
   */
  private connect(): Promise<Connection> {
    const now = Date.now();
    if (this.connection && now - this.connectionMadeAt < credentialRefreshMs) return this.connection;
    const previous = this.connection;
    this.connectionMadeAt = now;
    this.connection = (async () => {
      const applied: RequestOptions = { headers: {} };
      await this.kubeconfig.applyToHTTPSOptions(applied);
      const tls = { ca: applied.ca, cert: applied.cert, key: applied.key, rejectUnauthorized: applied.rejectUnauthorized, servername: applied.servername };
      const old = await previous?.catch(() => undefined);
      if (old && sameTls(old.tls, tls)) return { ...old, headers: applied.headers ?? {}, auth: applied.auth };
      old?.agent.destroy();
      const agent = new Agent({ keepAlive: true, maxSockets: 32, ...definedOnly(tls) });
      return { agent, tls, headers: applied.headers ?? {}, auth: applied.auth };
    })();
    this.connection.catch(() => (this.connection = undefined));
    return this.connection;
  }

  /**
   * One call, retried as client-go's request does when the server asks for it: a 429 (or a 5xx
   * carrying Retry-After) is tried again after Retry-After seconds (1 s without one), up to
   * maxRetries times; then its Status is the error.
   */
  private async request(method: string, path: string, query: Query | undefined, body?: unknown, contentType = 'application/json'): Promise<unknown> {
    const url = new URL(this.server.pathname.replace(/\/$/, '') + path, this.server);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    for (let retries = 0; ; retries++) {
      const { code, text, retryAfter } = await this.send(method, url, payload, contentType);
      const value = parseJson(text);
      if (code >= 200 && code < 300) return value;
      const retriable = code === 429 || (code >= 500 && retryAfter !== undefined);
      if (!retriable || retries >= maxRetries) throw statusError(code, value, `${method} ${path}: ${code} ${text.slice(0, 200)}`);
      await new Promise((resolve) => setTimeout(resolve, (retryAfter ?? 1) * 1000));
    }
  }

  private async send(
    method: string,
    url: URL,
    payload: Buffer | undefined,
    contentType: string,
  ): Promise<{ code: number; text: string; retryAfter: number | undefined }> {
    const wait = this.throttle?.reserve(Date.now()) ?? 0;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const connection = await this.connect();
    const options: RequestOptions = {
      method,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port,
      path: url.pathname + url.search,
      headers: {
        ...connection.headers,
        accept: 'application/json',
        'user-agent': this.userAgent,
        ...(payload ? { 'content-type': contentType, 'content-length': payload.length } : {}),
      },
      ...(connection.auth ? { auth: connection.auth } : {}),
      agent: url.protocol === 'https:' ? connection.agent : undefined,
      timeout: this.timeoutMs,
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const header = Number(res.headers['retry-after']);
          resolve({
            code: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            retryAfter: Number.isInteger(header) && header >= 0 ? header : undefined,
          });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${url.pathname}: no answer within ${this.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(payload);
    });
  }
}

/** client-go's maximum number of retries of one request. */
const maxRetries = 10;

/** How long applied credentials are reused before the kubeconfig is applied again. */
const credentialRefreshMs = 5 * 60_000;

type TlsMaterial = Pick<RequestOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized' | 'servername'>;

interface Connection {
  agent: Agent;
  tls: TlsMaterial;
  headers: NonNullable<RequestOptions['headers']>;
  auth: string | null | undefined;
}

function sameTls(a: TlsMaterial, b: TlsMaterial): boolean {
  const text = (v: unknown): string => (Buffer.isBuffer(v) ? v.toString('base64') : JSON.stringify(v ?? null));
  return (['ca', 'cert', 'key', 'rejectUnauthorized', 'servername'] as const).every((k) => text(a[k]) === text(b[k]));
}

function definedOnly(tls: TlsMaterial): TlsMaterial {
  return Object.fromEntries(Object.entries(tls).filter(([, v]) => v !== undefined));
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The server's Status as a StatusError; a body that is no Status becomes one with the HTTP code. */
function statusError(code: number, body: unknown, fallback: string): StatusError {
  if (isObject(body) && body['kind'] === 'Status') {
    const text = (key: string): string | undefined => (typeof body[key] === 'string' ? body[key] : undefined);
    const details = isObject(body['details']) ? (body['details'] as StatusDetails) : undefined;
    return new StatusError({ code, message: text('message') ?? fallback, reason: text('reason'), ...(details ? { details } : {}) });
  }
  return new StatusError({ code, message: fallback, reason: code === 404 ? 'NotFound' : 'InternalError' });
}
