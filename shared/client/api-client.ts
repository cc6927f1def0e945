/**
 * The controllers' and the node agent's door to the API: requests with objects in their wire JSON
 * shape, over the connection a kubeconfig describes.
 *
 * @kubernetes/client-node loads the kubeconfig, applies its credentials (certificates, tokens,
 * exec plugins) and runs the watches and informers; this module adds only plain calls. Why
 * not client-node's typed APIs: they turn timestamps into Date objects and back while its watch
 * (and so every informer update) hands over wire JSON, so one cache would hold two shapes of the
 * same object; controllers read and write one shape, the wire's. A failure is the server's own
 * Status as a StatusError, the API's one error type, so controllers match reasons
 * (`isStatusError(err, 'NotFound')`) exactly as the server makes them.
 *
 * Content types follow client-go's ContentConfig. With `contentType` JSON (the default) requests
 * send and accept JSON, as before. With protobuf (the kubelet's default, `--kube-api-content-type`)
 * the client does what the kubelet's client does (cmd/kubelet/app/server.go,
 * setContentTypeForClient): POST, PUT and DELETE bodies are protobuf (`k8s\0` envelope,
 * runtime.Unknown) with `Content-Type: application/vnd.kubernetes.protobuf`, and requests send
 * `Accept: application/vnd.kubernetes.protobuf,application/json`; PATCH bodies stay JSON under
 * their patch content types. Responses are decoded by their own Content-Type, error Statuses
 * included. Only kinds of the client's table (kinds.ts) are spoken in protobuf: a body of another
 * kind is sent as JSON, and a request for another resource accepts JSON only, since a protobuf
 * answer of a kind the client has no schema for could not be read.
 */
import { Agent, request as httpsRequest, type RequestOptions } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { StatusError } from '../api/errors.ts';
import { apiVersionOf, isObject, type KubeList, type KubeObject, type StatusDetails } from '../api/types.ts';
import { decodeEnvelope, protobufMediaType } from '../codec/protobuf/envelope.ts';
import { decodeEnvelopedObject, encodeObject } from '../codec/protobuf/object.ts';
import { clientKindOfPath, clientSchemaOf } from './kinds.ts';
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
  /**
   * client-go's ContentType: the format of request bodies and the first choice for answers.
   * Default JSON; protobuf as the kubelet (see the module comment for what it changes).
   */
  contentType?: ContentType;
}

export type ContentType = 'application/json' | typeof protobufMediaType;

/**
 * The content type for a configured value (`--kube-api-content-type`): protobuf when that is what
 * it names, else JSON (client-go's default for an empty value; the client speaks no other format).
 */
export function contentTypeFrom(configured: string): ContentType {
  return mediaTypeOf(configured) === protobufMediaType ? protobufMediaType : 'application/json';
}

/** What client-go accepts with ContentType protobuf: the kubelet's AcceptContentTypes. */
const protobufAccept = `${protobufMediaType},application/json`;

/** A request body on the wire: bytes and their Content-Type. */
interface Payload {
  bytes: Buffer;
  contentType: string;
}

/** An ApiClient over HTTPS (or HTTP) to the current context of `kubeconfig`. */
export class HttpApiClient implements ApiClient {
  private readonly server: URL;
  private readonly timeoutMs: number;
  private connection: Promise<Connection> | undefined;
  private connectionMadeAt = 0;
  private readonly userAgent: string;
  private readonly throttle: TokenBucket | undefined;
  private readonly protobuf: boolean;

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
    this.protobuf = options.contentType === protobufMediaType;
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
   * maxRetries times; then its Status is the error. `patchType`: the body is a patch of that
   * content type, always JSON.
   */
  private async request(method: string, path: string, query: Query | undefined, body?: unknown, patchType?: string): Promise<unknown> {
    const url = new URL(this.server.pathname.replace(/\/$/, '') + path, this.server);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const payload = body === undefined ? undefined : this.encode(path, body, patchType);
    const accept = this.protobuf && clientKindOfPath(path) ? protobufAccept : 'application/json';
    for (let retries = 0; ; retries++) {
      const { code, bytes, contentType, retryAfter } = await this.send(method, url, payload, accept);
      const value = decodeBody(bytes, contentType);
      if (code >= 200 && code < 300) return value;
      const retriable = code === 429 || (code >= 500 && retryAfter !== undefined);
      if (!retriable || retries >= maxRetries) {
        const text = mediaTypeOf(contentType) === protobufMediaType ? JSON.stringify(value) : bytes.toString('utf8');
        throw statusError(code, value, `${method} ${path}: ${code} ${text.slice(0, 200)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, (retryAfter ?? 1) * 1000));
    }
  }

  /**
   * A request body: a patch as JSON under its patch type; an object in protobuf when the client
   * speaks it and knows the object's kind (from the body's own apiVersion and kind, else from the
   * path, as a typed client knows its type); everything else as JSON.
   */
  private encode(path: string, body: unknown, patchType: string | undefined): Payload {
    if (patchType !== undefined) return { bytes: Buffer.from(JSON.stringify(body)), contentType: patchType };
    if (this.protobuf && isObject(body)) {
      const typeMeta = typeMetaOf(body, path);
      const schema = typeMeta && clientSchemaOf(typeMeta.apiVersion, typeMeta.kind);
      if (typeMeta && schema) return { bytes: Buffer.from(encodeObject(body, schema, typeMeta)), contentType: protobufMediaType };
    }
    return { bytes: Buffer.from(JSON.stringify(body)), contentType: 'application/json' };
  }

  private async send(
    method: string,
    url: URL,
    payload: Payload | undefined,
    accept: string,
  ): Promise<{ code: number; bytes: Buffer; contentType: string; retryAfter: number | undefined }> {
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
        accept,
        'user-agent': this.userAgent,
        ...(payload ? { 'content-type': payload.contentType, 'content-length': payload.bytes.length } : {}),
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
            bytes: Buffer.concat(chunks),
            contentType: res.headers['content-type'] ?? '',
            retryAfter: Number.isInteger(header) && header >= 0 ? header : undefined,
          });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${url.pathname}: no answer within ${this.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(payload?.bytes);
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

/**
 * An answer by its Content-Type: protobuf decoded with the schema its envelope names (a kind
 * missing from the client's table is an error: the request accepted protobuf for its own kind
 * only); anything else read as JSON, or kept as text when it is none (`/healthz`'s `ok`).
 */
export function decodeBody(bytes: Uint8Array, contentType: string): unknown {
  if (mediaTypeOf(contentType) !== protobufMediaType || bytes.length === 0) return parseJson(Buffer.from(bytes).toString('utf8'));
  const envelope = decodeEnvelope(bytes);
  const schema = clientSchemaOf(envelope.apiVersion, envelope.kind);
  if (!schema) throw new Error(`a protobuf answer of kind ${envelope.apiVersion}/${envelope.kind}, which this client cannot decode`);
  return decodeEnvelopedObject(envelope, schema);
}

/** A Content-Type without its parameters, lower case. */
function mediaTypeOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** The type a body is encoded as: its own apiVersion and kind, else those of the path's resource. */
function typeMetaOf(body: Record<string, unknown>, path: string): { apiVersion: string; kind: string } | undefined {
  const { apiVersion, kind } = body;
  if (typeof apiVersion === 'string' && apiVersion && typeof kind === 'string' && kind) return { apiVersion, kind };
  const entry = clientKindOfPath(path);
  return entry && { apiVersion: apiVersionOf(entry), kind: entry.kind };
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
