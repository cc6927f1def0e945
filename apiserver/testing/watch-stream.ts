/**
 * A raw watch client for tests: one HTTPS request whose body is read as it streams, decoded into
 * watch events (JSON: one document per line; protobuf: length-prefixed WatchEvent frames), kept in
 * arrival order. Tests wait for a condition on the events received so far, with a generous deadline
 * that only turns a hang into a failure (never a timing assertion), and close the connection
 * themselves to simulate a client that goes away mid-stream.
 */
import { request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { FrameSplitter, decodeWatchEvent } from '../../shared/codec/protobuf/watch.ts';
import type { KubeObject } from '../../shared/api/types.ts';

/** How long a wait may take before it is reported as a hang (loaded 2-core machines are slow). */
export const WATCH_WAIT_MS = 60_000;

export interface WatchEvent {
  type: string;
  /** The decoded object (JSON watches) or a Status for ERROR events. */
  object: KubeObject & { code?: number; reason?: string; message?: string; status?: string; data?: Record<string, string> };
}

export interface ProtobufWatchEvent {
  type: string;
  /** The object's `k8s\0` envelope. */
  object: Uint8Array;
}

export interface WatchTls {
  ca: string;
  cert?: string;
  key?: string;
}

export interface WatchConnection<E> {
  status: number;
  headers: IncomingHttpHeaders;
  /** Every event received so far, in arrival order. */
  events: E[];
  /** The whole body when the server refused the watch (status other than 200). */
  text: string;
  /** True once the server ended the stream (or the connection broke). */
  readonly ended: boolean;
  /** Settles when the stream ends, for whatever reason. */
  done: Promise<void>;
  /** Resolves once `condition(events)` holds; rejects after `timeoutMs` or when the stream ends first. */
  waitFor(condition: (events: E[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Drops the connection, as a client that goes away does. */
  close(): void;
}

interface Decoder<E> {
  push(chunk: Buffer): E[];
}

function jsonDecoder(): Decoder<WatchEvent> {
  let pending = '';
  return {
    push(chunk) {
      pending += chunk.toString('utf8');
      const out: WatchEvent[] = [];
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        const line = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        if (line) out.push(JSON.parse(line) as WatchEvent);
        newline = pending.indexOf('\n');
      }
      return out;
    },
  };
}

function protobufDecoder(): Decoder<ProtobufWatchEvent> {
  const splitter = new FrameSplitter();
  return { push: (chunk) => splitter.push(chunk).map((frame) => decodeWatchEvent(frame)) };
}

function open<E>(baseUrl: string, tls: WatchTls, path: string, headers: Record<string, string>, decoder: Decoder<E>): Promise<WatchConnection<E>> {
  const target = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: 'GET',
        headers,
        ca: tls.ca,
        ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
        agent: false,
      },
      (res) => {
        const events: E[] = [];
        const waiters = new Set<() => void>();
        let ended = false;
        let text = '';
        const notify = (): void => {
          for (const w of [...waiters]) w();
        };
        let finish = (): void => {};
        const done = new Promise<void>((resolveDone) => {
          finish = () => {
            if (ended) return;
            ended = true;
            resolveDone();
            notify();
          };
        });
        const ok = res.statusCode === 200;
        res.on('data', (chunk: Buffer) => {
          if (!ok) {
            text += chunk.toString('utf8');
            return;
          }
          events.push(...decoder.push(chunk));
          notify();
        });
        res.once('end', finish);
        res.once('close', finish);
        res.once('error', finish);
        const connection: WatchConnection<E> = {
          status: res.statusCode ?? 0,
          headers: res.headers,
          events,
          get text() {
            return text;
          },
          get ended() {
            return ended;
          },
          done,
          waitFor(condition, what, timeoutMs = WATCH_WAIT_MS) {
            return new Promise<void>((resolveWait, rejectWait) => {
              const check = (): void => {
                if (condition(events)) {
                  cleanup();
                  resolveWait();
                } else if (ended) {
                  cleanup();
                  rejectWait(new Error(`the watch ended before ${what}; ${events.length} events received: ${describe(events)}`));
                }
              };
              const timer = setTimeout(() => {
                cleanup();
                rejectWait(new Error(`no ${what} within ${timeoutMs} ms; ${events.length} events received: ${describe(events)}`));
              }, timeoutMs);
              const cleanup = (): void => {
                clearTimeout(timer);
                waiters.delete(check);
              };
              waiters.add(check);
              check();
            });
          },
          close() {
            req.destroy();
            finish();
          },
        };
        if (!ok) {
          void done.then(() => resolve(connection));
          return;
        }
        resolve(connection);
      },
    );
    req.once('error', (err) => reject(err));
    req.end();
  });
}

/** The last few events, for failure messages. */
function describe(events: unknown[]): string {
  return JSON.stringify(
    events.slice(-5).map((e) => {
      const ev = e as { type?: string; object?: { metadata?: { name?: string; resourceVersion?: string }; message?: string } };
      return [ev.type, ev.object?.metadata?.name ?? ev.object?.message, ev.object?.metadata?.resourceVersion];
    }),
  );
}

/**
 * Opens a JSON watch on `path` (which must carry `watch=1`). Resolves once the response headers
 * arrived; when the server refused the watch, once its whole answer arrived (see `text`).
 */
export function openWatch(baseUrl: string, tls: WatchTls, path: string, headers: Record<string, string> = {}): Promise<WatchConnection<WatchEvent>> {
  return open(baseUrl, tls, path, { accept: 'application/json', ...headers }, jsonDecoder());
}

/** Opens a protobuf watch; each event's object is left as its envelope for the test to decode. */
export function openProtobufWatch(baseUrl: string, tls: WatchTls, path: string): Promise<WatchConnection<ProtobufWatchEvent>> {
  return open(baseUrl, tls, path, { accept: 'application/vnd.kubernetes.protobuf' }, protobufDecoder());
}

/** The resourceVersion of an event's object as a number (NaN when absent). */
export function revisionOf(event: WatchEvent): number {
  return Number(event.object.metadata?.resourceVersion);
}
