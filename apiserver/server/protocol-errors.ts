/**
 * Answers for HTTP/1.1 requests that never reach the pipeline, as Statuses rather than Node's
 * bodiless defaults or a dropped connection: a request the parser refuses (a raw byte in the
 * target, a malformed line: 400; a request line and headers beyond Go's 1 MiB: 431, with a body
 * even for HEAD when the request line is no longer known, as Go's server answers it) and
 * CONNECT, which Node hands to a `connect` listener instead of the request handler (405: corral
 * serves no resource that CONNECT reaches, and upstream dispatches CONNECT like any other method).
 * HTTP/2 has no such paths: its malformed streams are reset by the protocol itself.
 */
import type { Duplex } from 'node:stream';
import type { Http2SecureServer } from 'node:http2';
import { STATUS_CODES } from 'node:http';
import { badRequest, methodNotAllowed, requestHeaderFieldsTooLarge, type StatusError } from '../../shared/api/errors.ts';
import { serializeStatus } from '../endpoints/serialize.ts';

/** Sockets answered already: the parser reports every later chunk of a refused request again. */
const answered = new WeakSet<Duplex>();

/** What is read and dropped after an answer before the connection closes, and for how long at most. */
const maxDrainBytes = 8 * 1024 * 1024;
const drainTimeoutMs = 5_000;

/**
 * A Status answer written straight to a socket, which then closes; an answer to HEAD has no body.
 * A client may still be sending its body: what it sends is read and dropped for a while (up to
 * maxDrainBytes), so that it reads the answer instead of a reset connection.
 */
function answer(socket: Duplex, err: StatusError, head = false): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  if (!socket.writable) return void socket.destroy();
  let drained = 0;
  const close = (): void => void socket.destroy();
  const timer = setTimeout(close, drainTimeoutMs);
  timer.unref();
  socket.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > maxDrainBytes) close();
  });
  socket.once('end', close);
  socket.once('close', () => clearTimeout(timer));
  const body = head ? Buffer.alloc(0) : Buffer.from(serializeStatus(err.status, 'json').body);
  const lines = [
    `HTTP/1.1 ${err.code} ${STATUS_CODES[err.code] ?? ''}`,
    'Content-Type: application/json',
    `Content-Length: ${head ? Buffer.byteLength(serializeStatus(err.status, 'json').body) : body.length}`,
    'Cache-Control: no-cache, private',
    'Connection: close',
  ];
  socket.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]));
}

/** Node's code for a request line or header block beyond the parser's size limit. */
const headerOverflow = 'HPE_HEADER_OVERFLOW';

/** Go's http.DefaultMaxHeaderBytes, which kube-apiserver keeps: request line and headers together. */
export const maxHeaderBytes = 1 << 20;

export function answerProtocolErrors(server: Http2SecureServer): void {
  // Node's HTTP/1.1 parser, which the HTTP/2 server hands HTTP/1.1 connections to, reads its limit
  // from the server (16 KiB unless set): a 20 KB request line that upstream routes would be a 431.
  Object.assign(server, { maxHeaderSize: maxHeaderBytes });
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    // A connection reset or a client that already left needs no answer.
    if (err.code === 'ECONNRESET' || !socket.writable) return socket.destroy();
    // What was read of the request tells whether it was a HEAD, whose answer must have no body.
    const head = err.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
    if (err.code === headerOverflow) return answer(socket, requestHeaderFieldsTooLarge(), head);
    answer(socket, badRequest(`malformed HTTP request: ${err.message}`), head);
  });
  server.on('connect', (_req: unknown, socket: Duplex) => answer(socket, methodNotAllowed()));
}
