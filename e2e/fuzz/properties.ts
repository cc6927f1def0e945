/**
 * What every reply to a fuzz request must satisfy, whatever the request was:
 *
 * - an answer: the server replies (a stream may be reset only by HTTP/2's own PROTOCOL_ERROR for a
 *   request nghttp2 refuses, as Go's HTTP/2 server does, and a connection may end with
 *   COMPRESSION_ERROR for a header field nghttp2 cannot decode);
 * - no 5xx for a client's mistake: 500 never; 503 and 504 only for server conditions, and never the
 *   504 `Too large resource version` for a resourceVersion that is not a uint64 (upstream: 400);
 * - every non-2xx reply (but HEAD's, which has no body) is a Kubernetes Status, in JSON, YAML or
 *   protobuf as its Content-Type says, with `kind: Status`, `apiVersion: v1`, `status: Failure`
 *   and `code` equal to the HTTP status;
 * - a complete JSON or YAML 2xx body decodes (a JSON watch stream line by line).
 */
import type { QueryParam } from './arbitraries/query.ts';
import { maxUint64 } from './arbitraries/query.ts';
import { decodeBody, essenceOf, statusView } from './reply-body.ts';
import { exceedsNghttp2FieldLimit, type WireOutcome } from './transport.ts';

export interface Violation {
  /** A short class of the violation, for grouping (`500`, `not-a-status`, `no-reply` ...). */
  kind: string;
  detail: string;
}

/** nghttp2's RST_STREAM code for a request it refuses at the protocol level. */
const http2ProtocolError = 1;
const http2SessionCompressionError = 'Session closed with error code 9';

/**
 * A request whose header field nghttp2 cannot decode ends its whole connection (it goes on one of
 * its own). The GOAWAY with COMPRESSION_ERROR may or may not reach the client: the server closes
 * its socket with the rest of the oversized header still unread, so the kernel resets the
 * connection, and through a TCP balancer that reset can overtake the GOAWAY. Either way the stream
 * ended with its connection, which is all the server promises here.
 */
function endedWithItsConnection(error: string): boolean {
  return error.includes(http2SessionCompressionError) || /its connection: (session destroyed|session error|GOAWAY 9)/.test(error);
}

function isUint64(text: string): boolean {
  return /^\d+$/.test(text) && BigInt(text) <= maxUint64;
}

function excerpt(body: Buffer): string {
  const text = body.toString('utf8');
  return text.length > 300 ? `${text.slice(0, 300)}…(${body.length} bytes)` : text;
}

/** The violations of one reply; empty when it is fine. */
export function checkReply(
  req: { method: string; protocol: string; target: string; headers: Readonly<Record<string, string>>; query: readonly QueryParam[] },
  outcome: WireOutcome,
): Violation[] {
  if (outcome.kind === 'no-reply') {
    if (outcome.clientSide) return [];
    if (req.protocol === 'http2' && outcome.rstCode === http2ProtocolError) return [];
    if (req.protocol === 'http2' && exceedsNghttp2FieldLimit(req) && endedWithItsConnection(outcome.error)) return [];
    return [{ kind: 'no-reply', detail: outcome.error }];
  }
  const out: Violation[] = [];
  const { status, body, headers } = outcome;
  const contentType = typeof headers['content-type'] === 'string' ? headers['content-type'] : undefined;

  if (status === 500 || (status >= 501 && status !== 503 && status !== 504)) out.push({ kind: String(status), detail: excerpt(body) });
  if (status === 504 && /too large resource version/i.test(body.toString('utf8'))) {
    const rv = req.query.find((p) => !p.raw && p.key === 'resourceVersion')?.value;
    if (rv !== undefined && !isUint64(rv))
      out.push({
        kind: '504-for-bad-resourceVersion',
        detail: `resourceVersion ${rv.length > 40 ? `${rv.slice(0, 20)}…(${rv.length} chars)` : rv}: ${excerpt(body)}`,
      });
  }

  const success = status >= 200 && status < 300;
  if (!success && req.method !== 'HEAD') {
    if (outcome.cut) out.push({ kind: 'status-cut', detail: `a ${status} reply did not end` });
    const decoded = decodeBody(contentType, body);
    if (!decoded.ok) {
      out.push({ kind: 'not-a-status', detail: `${status}: ${decoded.error}: ${excerpt(body)}` });
    } else {
      const s = statusView(decoded.value);
      if (!s || s.kind !== 'Status' || s.apiVersion !== 'v1' || s.status !== 'Failure')
        out.push({ kind: 'not-a-status', detail: `${status} ${essenceOf(contentType)}: ${excerpt(body)}` });
      else if (s.code !== status) out.push({ kind: 'status-code-mismatch', detail: `HTTP ${status}, Status.code ${String(s.code)}: ${excerpt(body)}` });
    }
  }

  if (success && req.method !== 'HEAD' && !outcome.cut && body.length > 0) {
    const essence = essenceOf(contentType);
    if (essence === 'application/json') {
      // A watch stream is one JSON document per line.
      const docs = body
        .toString('utf8')
        .split('\n')
        .filter((line) => line.trim() !== '');
      const broken = docs.findIndex((line) => !decodeBody(contentType, Buffer.from(line)).ok);
      if (broken >= 0 && !decodeBody(contentType, body).ok) out.push({ kind: 'broken-2xx-body', detail: `${status} ${essence}: ${excerpt(body)}` });
    } else if (essence === 'application/yaml' && !decodeBody(contentType, body).ok) {
      out.push({ kind: 'broken-2xx-body', detail: `${status} ${essence}: ${excerpt(body)}` });
    }
  }
  return out;
}
