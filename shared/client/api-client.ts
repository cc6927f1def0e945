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
 * answer of a kind the client has no schema for could not be read. Watches follow the same rule:
 * a watch of a kind of the table is a protobuf stream (`;stream=watch`, length-prefixed frames).
 *
 * Requests and watches share the client's one connection (connection.ts): HTTP/2 over HTTPS, as
 * client-go's.
 */
import { StringDecoder } from 'node:string_decoder';
import type { KubeConfig } from '@kubernetes/client-node';
import { StatusError } from '../api/errors.ts';
import { apiVersionOf, isObject, type KubeList, type KubeObject, type StatusDetails } from '../api/types.ts';
import { decodeEnvelope, protobufMediaType } from '../codec/protobuf/envelope.ts';
import { decodeEnvelopedObject, encodeObject } from '../codec/protobuf/object.ts';
import { decodeWatchEvent } from '../codec/protobuf/watch.ts';
import { ApiConnection, type Exchange } from './connection.ts';
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

/** A watch's event as the server sends it: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR, and its object (wire JSON). */
export type WatchEventHandler = (type: string, object: unknown) => void;

/**
 * Watches, in the shape of client-node's Watch, which its ListWatch (the informers') drives: events
 * as they arrive; `done` called once when the watch ends, with null when the server closed it or
 * it was aborted, with the failure otherwise (a refused watch's StatusError carries the HTTP code:
 * 410 Gone makes ListWatch list again). Resolves, once the watch started or failed, with the
 * controller that stops it.
 */
export interface WatchClient {
  watch(path: string, query: Query, onEvent: WatchEventHandler, done: (err: unknown) => void): Promise<AbortController>;
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

/** The most query-less request targets a client remembers (HttpApiClient.plainTargets); past it, it starts over. */
const plainTargetsKept = 256;

/** What client-go accepts with ContentType protobuf: the kubelet's AcceptContentTypes. */
const protobufAccept = `${protobufMediaType},application/json`;

/** A request body on the wire: bytes and their Content-Type. */
interface Payload {
  bytes: Buffer;
  contentType: string;
}

/** An ApiClient over HTTPS (or HTTP) to the current context of `kubeconfig`. */
export class HttpApiClient implements ApiClient, WatchClient {
  private readonly server: URL;
  private readonly timeoutMs: number;
  private readonly connection: ApiConnection;
  private readonly userAgent: string;
  private readonly throttle: TokenBucket | undefined;
  private readonly protobuf: boolean;
  /**
   * The targets of paths requested without a query, as pathWithQuery made them: a node's agent asks
   * for the same few (its Lease, its Node's status) every 10 s, and a URL parse each time was 2 % of
   * a simulation's CPU.
   */
  private readonly plainTargets = new Map<string, string>();

  constructor(kubeconfig: KubeConfig, options: HttpApiClientOptions = {}) {
    const cluster = kubeconfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.server = new URL(cluster.server);
    this.connection = new ApiConnection(kubeconfig, this.server);
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

  async watch(path: string, query: Query, onEvent: WatchEventHandler, done: (err: unknown) => void): Promise<AbortController> {
    const controller = new AbortController();
    let ended = false;
    const end = (err: unknown): void => {
      if (ended) return;
      ended = true;
      if (!controller.signal.aborted) controller.abort();
      done(err);
    };
    try {
      await this.waitTurn();
      const answer = await this.connection.exchange({
        method: 'GET',
        path: this.pathWithQuery(path, { ...query, watch: true }),
        headers: { accept: this.acceptFor(path), 'user-agent': this.userAgent },
        signal: controller.signal,
      });
      if (answer.code !== 200) {
        end(failureOf('watch', path, answer.code, await readBody(answer, 'GET', path), answer.headers['content-type'] ?? ''));
        return controller;
      }
      if (mediaTypeOf(answer.headers['content-type'] ?? '') === protobufMediaType) readProtobufEvents(answer, onEvent, end);
      else readEvents(answer, onEvent, end);
      answer.body.once('error', (err) => end(controller.signal.aborted ? null : err));
    } catch (err) {
      end(controller.signal.aborted ? null : err);
    }
    return controller;
  }

  /** Closes the connection, failing the requests and watches still open on it. */
  close(): void {
    this.connection.close();
  }

  /** Applies the kubeconfig's credentials again on the next request: its certificate files were renewed. */
  reloadCredentials(): void {
    this.connection.reloadCredentials();
  }

  /**
   * One call, retried as client-go's request does when the server asks for it: a 429 (or a 5xx
   * carrying Retry-After) is tried again after Retry-After seconds (1 s without one), up to
   * maxRetries times; then its Status is the error. `patchType`: the body is a patch of that
   * content type, always JSON.
   */
  private async request(method: string, path: string, query: Query | undefined, body?: unknown, patchType?: string): Promise<unknown> {
    const target = this.pathWithQuery(path, query);
    const payload = body === undefined ? undefined : this.encode(path, body, patchType);
    const accept = this.acceptFor(path);
    for (let retries = 0; ; retries++) {
      const { code, bytes, contentType, retryAfter } = await this.send(method, target, payload, accept);
      if (code >= 200 && code < 300) return decodeBody(bytes, contentType);
      const retriable = code === 429 || (code >= 500 && retryAfter !== undefined);
      if (!retriable || retries >= maxRetries) throw failureOf(method, path, code, bytes, contentType);
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

  /** What a request for `path` accepts: protobuf for the kinds the client knows, when it speaks protobuf (watches too). */
  private acceptFor(path: string): string {
    return this.protobuf && clientKindOfPath(path) ? protobufAccept : 'application/json';
  }

  /** The server's path prefix (a kubeconfig's server may carry one), `path` and the query. */
  private pathWithQuery(path: string, query: Query | undefined): string {
    const plain = query === undefined || Object.keys(query).length === 0;
    if (plain) {
      const known = this.plainTargets.get(path);
      if (known !== undefined) return known;
    }
    const url = new URL(this.server.pathname.replace(/\/$/, '') + path, this.server);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const target = url.pathname + url.search;
    if (plain) {
      if (this.plainTargets.size >= plainTargetsKept) this.plainTargets.clear();
      this.plainTargets.set(path, target);
    }
    return target;
  }

  /** Waits for the throttle's next slot, if the client has one. */
  private async waitTurn(): Promise<void> {
    const wait = this.throttle?.reserve(Date.now()) ?? 0;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  private async send(
    method: string,
    target: string,
    payload: Payload | undefined,
    accept: string,
  ): Promise<{ code: number; bytes: Buffer; contentType: string; retryAfter: number | undefined }> {
    await this.waitTurn();
    const answer = await this.connection.exchange({
      method,
      path: target,
      headers: {
        accept,
        'user-agent': this.userAgent,
        ...(payload ? { 'content-type': payload.contentType } : {}),
      },
      ...(payload ? { body: payload.bytes } : {}),
      timeoutMs: this.timeoutMs,
    });
    const bytes = await readBody(answer, method, target);
    const header = Number(answer.headers['retry-after']);
    return {
      code: answer.code,
      bytes,
      contentType: answer.headers['content-type'] ?? '',
      retryAfter: Number.isInteger(header) && header >= 0 ? header : undefined,
    };
  }
}

/**
 * An answer's whole body. One its connection's loss cut short fails the request rather than being
 * decoded: a protobuf body cut at a field boundary decodes as an object with fields missing. An
 * answer is whole when it has its declared content-length (corral's servers declare it for every
 * answer but a watch); without one, when the connection says the server ended it.
 */
function readBody(answer: Exchange, method: string, target: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    answer.body.on('data', (chunk: Buffer) => chunks.push(chunk));
    answer.body.once('end', () => {
      const bytes = Buffer.concat(chunks);
      const declared = answer.headers['content-length'];
      if (declared === undefined ? !answer.cutShort() : Number(declared) === bytes.length) return resolve(bytes);
      const of = declared === undefined ? '' : ` of ${declared}`;
      reject(new Error(`${method} ${target.split('?', 1)[0]}: the connection closed after ${bytes.length}${of} bytes of the answer`));
    });
    answer.body.once('error', reject);
  });
}

/**
 * A watch's body, one JSON event per line, to `onEvent`; `end` when it ends (null) or holds a line
 * that is no event (the failure). A line's pieces are joined once, however many chunks it spans.
 */
function readEvents(answer: Exchange, onEvent: WatchEventHandler, end: (err: unknown) => void): void {
  const decoder = new StringDecoder('utf8');
  let pieces: string[] = [];
  const deliver = (line: string): void => {
    const event: unknown = JSON.parse(line);
    if (!isObject(event) || typeof event['type'] !== 'string') throw new Error(`a watch event without a type: ${line.slice(0, 200)}`);
    onEvent(event['type'], event['object']);
  };
  answer.body.on('data', (chunk: Buffer) => {
    const text = decoder.write(chunk);
    let start = 0;
    try {
      for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', start)) {
        pieces.push(text.slice(start, newline));
        start = newline + 1;
        const line = pieces.join('');
        pieces = [];
        if (line.trim()) deliver(line);
      }
    } catch (err) {
      end(err);
      return;
    }
    if (start < text.length) pieces.push(text.slice(start));
  });
  answer.body.once('end', () => end(null));
}

/** client-go's maximum number of retries of one request. */
const maxRetries = 10;

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
  return decodeKnownObject(bytes, 'a protobuf answer');
}

/** An enveloped protobuf object of a kind of the client's table (meta/v1's Status included); `what` names it in the error otherwise. */
function decodeKnownObject(bytes: Uint8Array, what: string): Record<string, unknown> {
  const envelope = decodeEnvelope(bytes);
  const schema = clientSchemaOf(envelope.apiVersion, envelope.kind);
  if (!schema) throw new Error(`${what} of kind ${envelope.apiVersion}/${envelope.kind}, which this client cannot decode`);
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

/**
 * A protobuf watch's body (`application/vnd.kubernetes.protobuf;stream=watch`): frames of a 4-byte
 * big-endian length and a WatchEvent whose object is an enveloped object of the watched kind (a
 * Status for ERROR), to `onEvent` as JSON-shaped values; `end` as for JSON (readEvents). A frame is
 * joined once, when all of it has arrived.
 */
export function readProtobufEvents(answer: Exchange, onEvent: WatchEventHandler, end: (err: unknown) => void): void {
  let parts: Buffer[] = [];
  let buffered = 0;
  const deliver = (frame: Uint8Array): void => {
    const event = decodeWatchEvent(frame);
    onEvent(event.type, decodeKnownObject(event.object, 'a protobuf watch event'));
  };
  answer.body.on('data', (chunk: Buffer) => {
    parts.push(chunk);
    buffered += chunk.length;
    try {
      while (buffered >= 4) {
        let head = parts[0] ?? Buffer.alloc(0);
        if (head.length < 4) {
          head = Buffer.concat(parts, buffered);
          parts = [head];
        }
        const length = head.readUInt32BE(0);
        if (buffered < 4 + length) return;
        const all = parts.length === 1 ? head : Buffer.concat(parts, buffered);
        const rest = all.subarray(4 + length);
        parts = rest.length > 0 ? [rest] : [];
        buffered = rest.length;
        deliver(all.subarray(4, 4 + length));
      }
    } catch (err) {
      end(err);
    }
  });
  answer.body.once('end', () => end(null));
}

/** A failed answer as a StatusError, its body decoded by its Content-Type (a Status in protobuf or JSON). */
function failureOf(what: string, path: string, code: number, bytes: Buffer, contentType: string): StatusError {
  const value = decodeBody(bytes, contentType);
  const text = mediaTypeOf(contentType) === protobufMediaType ? JSON.stringify(value) : bytes.toString('utf8');
  return statusError(code, value, `${what} ${path}: ${code} ${text.slice(0, 200)}`);
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
