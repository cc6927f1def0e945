/**
 * The controller manager's own HTTPS endpoint (--secure-port, kube-controller-manager's 10257):
 * `/healthz`, `/readyz`, `/livez` for probes and `/metrics` for Prometheus.
 *
 * As upstream, the paths in --authorization-always-allow-paths are open to anyone; every other
 * request is authenticated and authorized by delegation to the API server: a bearer token through
 * a TokenReview (answers cached 10 s, as upstream's), then a SubjectAccessReview for the non-resource path (so Prometheus scrapes with a
 * token bound to a role allowing `get` on `/metrics`, e.g. system:monitoring). Requests without a
 * token are system:anonymous and get what the policy gives anonymous users: nothing.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createCA, issueServingCertificate } from '../shared/pki/certificates.ts';
import type { KubeObject } from '../shared/api/types.ts';
import type { ApiClient } from '../shared/client/api-client.ts';
import { realClock } from '../shared/client/clock.ts';
import { TokenReviewAuthenticator } from '../shared/delegated-auth/token-review.ts';
import { anonymousUser, withAuthenticatedGroup, type UserInfo } from '../shared/delegated-auth/user.ts';
import { defaultHealthChecks, serveHealthz } from '../shared/http/healthz.ts';
import { notFound, respondText } from '../shared/http/respond.ts';

export interface ManagerServerOptions {
  port: number;
  bindAddress: string;
  certFile: string | undefined;
  keyFile: string | undefined;
  alwaysAllowPaths: string[];
  api: ApiClient;
  registry: Registry;
  logger: Logger;
  /** Named health checks; each returns an error message, or undefined when healthy. */
  checks: Record<string, () => string | undefined>;
}

export interface ManagerServer {
  port: number;
  close(): Promise<void>;
}

interface SubjectAccessReview extends KubeObject {
  status?: { allowed?: boolean; reason?: string };
}

/** kube-controller-manager's --authentication-token-webhook-cache-ttl. */
const tokenCacheTtlMs = 10_000;

export async function startManagerServer(options: ManagerServerOptions): Promise<ManagerServer> {
  const { cert, key } = await servingCertificate(options);
  const tokens = new TokenReviewAuthenticator({ api: options.api, cacheTtlMs: tokenCacheTtlMs, clock: realClock });
  const server: Server = createServer({ cert, key }, (req, res) => {
    handle(req, res, options, tokens).catch((err: unknown) => {
      options.logger.error({ err }, 'controller manager endpoint failed');
      if (!res.headersSent) respondText(res, 500, 'Internal Server Error\n');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.bindAddress, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The given certificate, or a self-signed one made in memory for this host (as upstream makes when none is given). */
async function servingCertificate(options: ManagerServerOptions): Promise<{ cert: string; key: string }> {
  if (options.certFile && options.keyFile) {
    const [cert, key] = await Promise.all([readFile(options.certFile, 'utf8'), readFile(options.keyFile, 'utf8')]);
    return { cert, key };
  }
  const ca = await createCA({ commonName: `${hostname()}-ca@${Math.floor(Date.now() / 1000)}` });
  const leaf = await issueServingCertificate(ca, { commonName: hostname(), dnsNames: ['localhost', hostname()], ipAddresses: ['127.0.0.1', '::1'] });
  return { cert: `${leaf.certPem.trimEnd()}\n${ca.certPem}`, key: leaf.keyPem };
}

async function handle(req: IncomingMessage, res: ServerResponse, options: ManagerServerOptions, tokens: TokenReviewAuthenticator): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://localhost');
  const path = url.pathname;
  if (!options.alwaysAllowPaths.some((allowed) => matchesPath(allowed, path))) {
    const user = await authenticate(req, tokens);
    if (!user) return respondText(res, 401, 'Unauthorized\n');
    const verb = (req.method ?? 'GET').toLowerCase();
    const decision = await authorize(user, verb, path, options.api);
    if (!decision.allowed) {
      return respondText(
        res,
        403,
        `Forbidden: user ${JSON.stringify(user.username)} cannot ${verb} path ${JSON.stringify(path)}${decision.reason ? `: ${decision.reason}` : ''}\n`,
      );
    }
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') return respondText(res, 405, 'Method Not Allowed\n');
  if (path === '/metrics') {
    const body = await options.registry.metrics();
    res.writeHead(200, { 'content-type': options.registry.contentType });
    res.end(body);
    return;
  }
  const checks = { ...defaultHealthChecks(), ...options.checks };
  for (const base of healthEndpoints) if (serveHealthz(res, path, url.searchParams, checks, options.logger, base)) return;
  notFound(res);
}

/** The health endpoints, each running every check (as kube-controller-manager's). */
const healthEndpoints = ['/healthz', '/readyz', '/livez'];

function matchesPath(allowed: string, path: string): boolean {
  return allowed.endsWith('*') ? path.startsWith(allowed.slice(0, -1)) : allowed === path;
}

/**
 * The user of a bearer token (TokenReview), anonymous without one, undefined when the token is not
 * valid or could not be reviewed (upstream's authentication filter answers 401 to both).
 */
async function authenticate(req: IncomingMessage, tokens: TokenReviewAuthenticator): Promise<UserInfo | undefined> {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (!match?.[1]) return header ? undefined : anonymousUser();
  const outcome = await tokens.authenticateToken(match[1]);
  return outcome.ok ? withAuthenticatedGroup(outcome.user) : undefined;
}

async function authorize(user: UserInfo, verb: string, path: string, api: ApiClient): Promise<{ allowed: boolean; reason?: string }> {
  const review = await api.create<SubjectAccessReview>('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: {
      user: user.username,
      groups: user.groups,
      ...(user.uid ? { uid: user.uid } : {}),
      ...(user.extra ? { extra: user.extra } : {}),
      nonResourceAttributes: { path, verb },
    },
  });
  return { allowed: review.status?.allowed === true, ...(review.status?.reason ? { reason: review.status.reason } : {}) };
}
