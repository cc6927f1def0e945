/**
 * One read of staticPodURL, as the kubelet's URL source (pkg/kubelet/config/http.go,
 * extractFromURL) reads it: a GET with staticPodURLHeader's headers and a 10 second deadline; the
 * body is one Pod, else a PodList.
 *
 * - An answer other than 200 is an error (`<url>: 404 Not Found`) and the set read before stays.
 * - An empty body configures no pods (the source then counts as seen) and is reported.
 * - A body equal to the one read before changes nothing and is not decoded again.
 * - A body that decodes but cannot be used (an invalid pod) is reported; the set read before
 *   stays, as upstream sends nothing then.
 *
 * The poller (static-pod-source.ts) reads again every httpCheckFrequency.
 */
import type { Pod } from './pod.ts';
import type { InvalidManifest, SourceProblem } from './file-source.ts';
import { decodeManifestBody, maxManifestBytes, readLimitReachedMessage, type StaticPodRules } from './static-pod.ts';

/** Upstream's client timeout for the manifest URL. */
export const urlTimeoutMs = 10_000;

export interface UrlRead {
  /** The pods now configured; undefined keeps the set read before. */
  pods: Pod[] | undefined;
  /** Undefined when the body was the same as before: what was reported then still holds. */
  invalid: InvalidManifest[] | undefined;
  problems: SourceProblem[];
  /** The body read, for the next read's comparison; undefined when nothing was read. */
  body: string | undefined;
}

/** Reads the manifests at `url` once; `previousBody` is the body the last read returned. */
export async function readStaticPodUrl(
  url: string,
  headers: Readonly<Record<string, readonly string[]>>,
  rules: StaticPodRules,
  previousBody: string | undefined,
): Promise<UrlRead> {
  const failed = (error: string): UrlRead => ({
    pods: undefined,
    invalid: [],
    problems: [{ message: 'Failed to read pods from URL', error, path: url }],
    body: undefined,
  });
  const request = new Headers();
  for (const [name, values] of Object.entries(headers)) for (const value of values) request.append(name, value);
  let status: number;
  let body: string;
  let statusText: string;
  try {
    const response = await fetch(url, { headers: request, signal: AbortSignal.timeout(urlTimeoutMs), redirect: 'follow' });
    status = response.status;
    statusText = response.statusText;
    body = await readBody(response, maxManifestBytes);
  } catch (err) {
    return failed(`Get ${JSON.stringify(url)}: ${causeText(err)}`);
  }
  if (status !== 200) return failed(`${url}: ${status}${statusText ? ` ${statusText}` : ''}`);
  if (body.length === 0) return { ...failed(`zero-length data received from ${url}`), pods: [], body };
  if (body === previousBody) return { pods: undefined, invalid: undefined, problems: [], body };
  const decoded = decodeManifestBody(body, url, rules);
  if ('pods' in decoded) return { pods: decoded.pods, invalid: [], problems: [], body };
  return { ...failed(decoded.error), invalid: [{ origin: url, error: decoded.error }], body };
}

/** The body as text, refused beyond `limit` bytes as upstream's utilio.ReadAtMost refuses it. */
async function readBody(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  // undici types the body's chunks loosely; they are bytes.
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.length;
    if (length > limit) {
      await reader.cancel();
      throw new Error(readLimitReachedMessage);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, length).toString('utf8');
}

/** fetch's own message is only "fetch failed"; the cause says what happened (connection refused, timeout). */
function causeText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError') return 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)';
  const cause = err.cause;
  if (cause instanceof Error) {
    // Go's net error for the common case, `dial tcp 127.0.0.1:8080: connect: connection refused`.
    const fields = cause as Error & { code?: unknown; address?: unknown; port?: unknown };
    if (fields.code === 'ECONNREFUSED' && typeof fields.address === 'string' && typeof fields.port === 'number') {
      return `dial tcp ${fields.address}:${fields.port}: connect: connection refused`;
    }
    return cause.message;
  }
  return err.message;
}
