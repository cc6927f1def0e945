/**
 * Requests no HTTP client library will send: bytes written as they are onto a TLS socket
 * (`GET //a:99999/ HTTP/1.1`, as `openssl s_client` sends them), and HTTP/2 streams with any
 * `:path`. The HTTP/1.1 answer is read to the end of the connection (`Connection: close`) and
 * parsed just enough for tests: status line, headers, and a body de-chunked when chunked.
 */
import { connect as tlsConnect } from 'node:tls';
import { connect as http2Connect, constants as h2, type OutgoingHttpHeaders } from 'node:http2';
import type { TlsMaterial } from '../harness.ts';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The payload of a complete `Transfer-Encoding: chunked` body (what arrived of it, when cut). */
export function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    const eol = data.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(data.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Parses one HTTP/1.1 response; undefined when the server closed without one. */
export function parseHttp1Answer(data: Buffer): RawAnswer | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...headerLines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  if (!Number.isInteger(status)) return undefined;
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = data.subarray(end + 4);
  const body =
    headers['transfer-encoding']?.toLowerCase() === 'chunked'
      ? dechunk(rest)
      : headers['content-length'] !== undefined
        ? rest.subarray(0, Number(headers['content-length']))
        : rest;
  return { status, headers, body };
}

/**
 * Writes `head` (request line and headers, without the blank line; `Connection: close` is added)
 * and `body` onto a fresh TLS connection to `url`, and reads until the server closes it.
 */
export function rawHttp1(url: string, tls: TlsMaterial, head: string, body?: Buffer): Promise<RawAnswer | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({
      host: hostname,
      port: Number(port),
      ca: tls.ca,
      ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}),
      ALPNProtocols: ['http/1.1'],
      servername: 'localhost',
    });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.once('secureConnect', () => {
      socket.write(Buffer.from(`${head}\r\nConnection: close\r\n\r\n`, 'latin1'));
      if (body) socket.write(body);
    });
    // A reset after the answer arrived still leaves the answer.
    socket.once('error', (err: Error) => (chunks.length > 0 ? resolve(parseHttp1Answer(Buffer.concat(chunks))) : reject(err)));
    socket.once('close', () => resolve(parseHttp1Answer(Buffer.concat(chunks))));
    socket.setTimeout(60_000, () => socket.destroy(new Error(`no answer to ${JSON.stringify(head.split('\r\n')[0])}`)));
  });
}

/** One HTTP/2 request with exactly these pseudo-headers and headers, on a session of its own. */
export function rawHttp2(url: string, tls: TlsMaterial, headers: OutgoingHttpHeaders, body?: Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(url, { ca: tls.ca, ...(tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : {}) });
    session.once('error', reject);
    const stream = session.request(headers, { endStream: body === undefined });
    const chunks: Buffer[] = [];
    let status = 0;
    const answer: Record<string, string> = {};
    stream.once('response', (h) => {
      status = Number(h[h2.HTTP2_HEADER_STATUS]);
      for (const [k, v] of Object.entries(h)) if (!k.startsWith(':') && v !== undefined) answer[k] = Array.isArray(v) ? v.join(', ') : String(v);
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.once('end', () => {
      session.close();
      resolve({ status, headers: answer, body: Buffer.concat(chunks) });
    });
    stream.once('error', (err: Error) => {
      session.destroy();
      reject(err);
    });
    if (body !== undefined) stream.end(body);
  });
}
