/**
 * A minimal HTTPS client for tests that talk to a real API server: it authenticates with the admin
 * client certificate of a data dir's PKI, verifies the server against the cluster CA, sends JSON
 * (or text) bodies and decodes JSON answers. Every `Warning` header entry is kept separately,
 * because Node joins repeated headers into one string.
 */
import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { readFileSync } from 'node:fs';
import type { KubeObject, ListMeta, ObjectMeta, StatusDetails } from '../../shared/api/types.ts';
import { pkiPaths } from '../auth/pki-setup.ts';

/** The fields of a decoded answer that tests read: those of an object, a list or a Status. */
export interface ResponseBody {
  kind?: string;
  apiVersion?: string;
  metadata?: ObjectMeta & ListMeta;
  items?: KubeObject[];
  message?: string;
  reason?: string;
  code?: number;
  details?: StatusDetails;
  [field: string]: unknown;
}

export interface TestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Each `Warning` header entry, in order. */
  warnings: string[];
  /** The decoded JSON body; `{}` when the answer was not JSON (see `text`). */
  body: ResponseBody;
  text: string;
}

export interface TestClient {
  /** Sends one request; an object body is sent as JSON unless `headers` name another content type. */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  close(): void;
}

/**
 * A client of the server at `baseUrl` (`https://127.0.0.1:<port>`) acting as the admin of `dataDir`,
 * with at most `maxSockets` requests in flight (default 8; more wait for a free connection).
 */
export function createTestClient(baseUrl: string, dataDir: string, opts: { maxSockets?: number } = {}): TestClient {
  const pki = pkiPaths(dataDir);
  const agent = new Agent({
    keepAlive: true,
    maxSockets: opts.maxSockets ?? 8,
    ca: readFileSync(pki.caCert),
    cert: readFileSync(pki.adminCert),
    key: readFileSync(pki.adminKey),
  });
  const base = new URL(baseUrl);

  return {
    request(method, path, body, headers = {}) {
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const sentHeaders: Record<string, string | number> = { accept: 'application/json', ...headers };
      if (payload !== undefined) {
        if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) sentHeaders['content-type'] = 'application/json';
        sentHeaders['content-length'] = Buffer.byteLength(payload);
      }
      return new Promise<TestResponse>((resolve, reject) => {
        const req = httpsRequest({ protocol: base.protocol, hostname: base.hostname, port: base.port, path, method, headers: sentHeaders, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.once('error', reject);
          res.once('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const warnings: string[] = [];
            for (let i = 0; i < res.rawHeaders.length; i += 2) {
              if (res.rawHeaders[i]?.toLowerCase() === 'warning') warnings.push(res.rawHeaders[i + 1] ?? '');
            }
            let decoded: ResponseBody = {};
            if ((res.headers['content-type'] ?? '').includes('json') && text) {
              const parsed: unknown = JSON.parse(text);
              if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) decoded = parsed as ResponseBody;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, warnings, body: decoded, text });
          });
        });
        req.once('error', reject);
        req.end(payload);
      });
    },
    close() {
      agent.destroy();
    },
  };
}
