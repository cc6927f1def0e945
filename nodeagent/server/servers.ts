/**
 * The node agent's own servers, as the kubelet runs them:
 *
 * - the main server (enableServer; address:port, 10250): HTTPS with the configured cipher suites
 *   and minimum version, asking clients for a certificate when x509.clientCAFile is set; every
 *   request is authenticated (authentication.ts) and authorized as `nodes/<subresource>` on this
 *   node (request-attributes.ts, authorization.ts) before it reaches a path (handlers.ts);
 * - the read-only server (readOnlyPort on address, 0 = off): plain HTTP, no authentication, the
 *   same paths without /configz and with the debugging endpoints disabled;
 * - the healthz server (healthzBindAddress:healthzPort, 0 = off): plain HTTP, `/healthz` only.
 *
 * Refusals carry upstream's bodies, which clients and operators grep for: 401 `Unauthorized`;
 * 403 `Forbidden (user=..., verb=..., resource=nodes, subresource(s)=[...])`; 500
 * `Authorization error (...)` when a review could not be had.
 *
 * The serving certificate comes from serving-certificate.ts; when it changes, the main server's
 * secure context is swapped and the next handshake uses the new one.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { readFile } from 'node:fs/promises';
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { KubeObject } from '../../shared/api/types.ts';
import type { ApiClient } from '../../shared/client/api-client.ts';
import { realClock, type Clock } from '../../shared/client/clock.ts';
import { pemBlocks } from '../../shared/go/pem.ts';
import type { KubeletConfiguration } from '../config/fields.ts';
import { buildRequestAuthenticator, type RequestAuthenticator } from './authentication.ts';
import { alwaysAllow, SubjectAccessReviewAuthorizer, type Authorizer } from './authorization.ts';
import { configzBody } from './configz.ts';
import { servePath, type PathHandlerOptions } from './handlers.ts';
import { defaultHealthChecks, serveHealthz, type HealthCheck } from '../../shared/http/healthz.ts';
import { notFound, respondText } from '../../shared/http/respond.ts';
import { nodeRequestAttributes } from './request-attributes.ts';
import { ensureSelfSignedCertificate, FileServingCertificate, type ServingCertificateSource } from './serving-certificate.ts';
import { serverTlsOptions } from './tls-options.ts';
import { TokenReviewAuthenticator } from '../../shared/delegated-auth/token-review.ts';

export interface NodeAgentServerOptions {
  config: KubeletConfiguration;
  nodeName: string;
  /** --cert-dir: where the self-signed pair lives when no certificate files are configured. */
  certDir: string;
  /** For TokenReviews and SubjectAccessReviews; null in standalone mode, where webhook modes are refused. */
  api: ApiClient | null;
  /** The pods bound to this node, for /pods. */
  pods: () => KubeObject[];
  registry: Registry;
  logger: Logger;
  /**
   * The serving certificate obtained through serverTLSBootstrap (rotated at run time). Without it,
   * tlsCertFile/tlsPrivateKeyFile are served, or a self-signed pair in the cert dir when both are empty.
   */
  servingCertificate?: ServingCertificateSource;
  /** The host the self-signed certificate is for; the machine's host name (lower case) by default. */
  hostname?: string;
  /** More names for the self-signed certificate (the node's addresses); the node name is always included. */
  alternateNames?: string[];
  /** The KubeletFineGrainedAuthz gate: alpha and off in 1.32, the version corral reports. */
  fineGrainedAuthz?: boolean;
  /** Checks run by /healthz besides `ping` and `log` (upstream: `syncloop`). */
  healthChecks?: Record<string, HealthCheck>;
  clock?: Clock;
  /** How often configured certificate files are re-read. */
  certificateReloadIntervalMs?: number;
}

export interface NodeAgentServers {
  /** The bound port of the authenticated HTTPS server, null when enableServer is false. */
  port: number | null;
  /** The bound read-only port, null when readOnlyPort is 0. */
  readOnlyPort: number | null;
  /** The bound healthz port, null when healthzPort is 0. */
  healthzPort: number | null;
  /** The certificate files served (self-signed or configured); null with an injected certificate. */
  certificateFiles: { certFile: string; keyFile: string } | null;
  close(): Promise<void>;
}

type Closable = HttpServer | HttpsServer;

const maxHeaderSize = 1 << 20;
// Upstream's http.Server: IdleTimeout 90s (the keep-alive of Go's default transport), ReadTimeout 4h.
const keepAliveTimeout = 90_000;
const requestTimeout = 4 * 60 * 60 * 1000;

export async function startNodeAgentServers(options: NodeAgentServerOptions): Promise<NodeAgentServers> {
  const { config, logger } = options;
  const started: Closable[] = [];
  const cleanups: (() => void)[] = [];
  const close = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0)) cleanup();
    await Promise.all(started.splice(0).map(closeServer));
  };
  const healthChecks: Record<string, HealthCheck> = { ...defaultHealthChecks(), log: () => undefined, ...options.healthChecks };
  const paths: Omit<PathHandlerOptions, 'configz' | 'debuggingDisabled'> = { pods: options.pods, registry: options.registry, logger, healthChecks };

  try {
    let port: number | null = null;
    let certificateFiles: NodeAgentServers['certificateFiles'] = null;
    if (config.enableServer) {
      const main = await startMainServer(options, paths, cleanups);
      started.push(main.server);
      port = main.port;
      certificateFiles = main.certificateFiles;
    }
    let readOnlyPort: number | null = null;
    if (config.readOnlyPort > 0) {
      const readOnly = createHttpServer(serverOptions(), (req, res) => {
        guard(req, res, logger, () => servePath(req, res, requestUrl(req), { ...paths, configz: null, debuggingDisabled: true }));
      });
      started.push(readOnly);
      readOnlyPort = await listen(readOnly, config.readOnlyPort, config.address);
      logger.info({ address: config.address, port: readOnlyPort }, 'Starting to listen read-only');
    }
    let healthzPort: number | null = null;
    if (config.healthzPort > 0) {
      const healthz = createHttpServer(serverOptions(), (req, res) => {
        const url = requestUrl(req);
        if (!serveHealthz(res, url.pathname, url.searchParams, defaultHealthChecks(), logger)) notFound(res);
      });
      started.push(healthz);
      healthzPort = await listen(healthz, config.healthzPort, config.healthzBindAddress);
    }
    return { port, readOnlyPort, healthzPort, certificateFiles, close };
  } catch (err) {
    await close();
    throw err;
  }
}

async function startMainServer(
  options: NodeAgentServerOptions,
  paths: Omit<PathHandlerOptions, 'configz' | 'debuggingDisabled'>,
  cleanups: (() => void)[],
): Promise<{ server: HttpsServer; port: number; certificateFiles: NodeAgentServers['certificateFiles'] }> {
  const { config, logger } = options;
  const clock = options.clock ?? realClock;
  const tls = serverTlsOptions(config.tlsCipherSuites, config.tlsMinVersion);
  for (const warning of tls.warnings) logger.info(warning);
  const clientCAFile = config.authentication.x509.clientCAFile;
  const clientCA = clientCAFile ? await loadClientCA(clientCAFile) : undefined;

  const authenticate = buildAuthenticator(options, clientCA !== undefined, clock);
  const authorizer = buildAuthorizer(options, clock);

  // The configuration /configz reports is the one in effect: with the self-signed pair's paths filled in, as upstream does.
  const effective = structuredClone(config);
  let source: ServingCertificateSource;
  let certificateFiles: NodeAgentServers['certificateFiles'] = null;
  if (options.servingCertificate) {
    source = options.servingCertificate;
  } else if (config.serverTLSBootstrap) {
    // Upstream makes no self-signed pair then: the certificate manager is the only source.
    throw new Error('serverTLSBootstrap is enabled but no serving certificate manager was given');
  } else {
    if (!config.tlsCertFile && !config.tlsPrivateKeyFile) {
      const selfSigned = await ensureSelfSignedCertificate({
        certDir: options.certDir,
        ...(options.hostname !== undefined ? { hostname: options.hostname } : {}),
        alternateNames: [options.nodeName, ...(options.alternateNames ?? [])],
      });
      if (selfSigned.created) logger.info(selfSigned, 'Generated a self-signed serving certificate');
      effective.tlsCertFile = selfSigned.certFile;
      effective.tlsPrivateKeyFile = selfSigned.keyFile;
    }
    const files = await FileServingCertificate.load(effective.tlsCertFile, effective.tlsPrivateKeyFile, {
      clock,
      logger,
      ...(options.certificateReloadIntervalMs !== undefined ? { reloadIntervalMs: options.certificateReloadIntervalMs } : {}),
    });
    cleanups.push(() => files.stop());
    source = files;
    certificateFiles = { certFile: effective.tlsCertFile, keyFile: effective.tlsPrivateKeyFile };
  }

  const secureContext = (): SecureContextOptions => {
    const pair = source.current();
    return {
      ...(tls.ciphers ? { ciphers: tls.ciphers } : {}),
      ...(tls.minVersion ? { minVersion: tls.minVersion } : {}),
      ...(clientCA ? { ca: clientCA } : {}),
      ...(pair ? { cert: pair.certPem, key: pair.keyPem } : {}),
    };
  };
  const configz = config.enableDebuggingHandlers ? configzBody(effective) : null;
  const handler: PathHandlerOptions = { ...paths, configz: configz === null ? null : () => configz, debuggingDisabled: !config.enableDebuggingHandlers };
  const server = createHttpsServer({ ...serverOptions(), ...secureContext(), requestCert: clientCA !== undefined, rejectUnauthorized: false }, (req, res) => {
    guard(req, res, logger, () => admit(req, res, options, authenticate, authorizer, handler));
  });
  server.on('tlsClientError', (err) => logger.debug({ err }, 'TLS handshake failed'));
  cleanups.push(
    source.onChange(() => {
      try {
        server.setSecureContext(secureContext());
        logger.info('Serving with a new certificate');
      } catch (err) {
        logger.error({ err }, 'Failed to use the new serving certificate');
      }
    }),
  );
  logger.info({ address: config.address, port: config.port }, 'Starting to listen');
  const port = await listen(server, config.port, config.address);
  return { server, port, certificateFiles };
}

function buildAuthenticator(options: NodeAgentServerOptions, clientCertificates: boolean, clock: Clock): RequestAuthenticator {
  const { webhook, anonymous } = options.config.authentication;
  let tokens: TokenReviewAuthenticator | null = null;
  if (webhook.enabled) {
    if (!options.api) throw new Error('no client provided, cannot use webhook authentication');
    tokens = new TokenReviewAuthenticator({ api: options.api, cacheTtlMs: webhook.cacheTTL, clock });
  }
  return buildRequestAuthenticator({ clientCertificates, tokens, anonymous: anonymous.enabled });
}

function buildAuthorizer(options: NodeAgentServerOptions, clock: Clock): Authorizer {
  const { mode, webhook } = options.config.authorization;
  if (mode === 'AlwaysAllow') return alwaysAllow;
  if (mode !== 'Webhook') throw new Error(`unknown authorization mode ${mode}`);
  if (!options.api) throw new Error('no client provided, cannot use webhook authorization');
  return new SubjectAccessReviewAuthorizer({ api: options.api, clock, allowedTtlMs: webhook.cacheAuthorizedTTL, deniedTtlMs: webhook.cacheUnauthorizedTTL });
}

/** Authentication, then authorization of each attribute set in turn, then the path: upstream's InstallAuthFilter. */
async function admit(
  req: IncomingMessage,
  res: ServerResponse,
  options: NodeAgentServerOptions,
  authenticate: RequestAuthenticator,
  authorizer: Authorizer,
  handler: PathHandlerOptions,
): Promise<void> {
  const { logger } = options;
  const url = requestUrl(req);
  const outcome = await authenticate(req);
  if (!outcome.ok) {
    if (outcome.error !== undefined) logger.info({ err: outcome.error }, 'Unable to authenticate the request due to an error');
    return respondText(res, 401, 'Unauthorized');
  }
  const attributes = nodeRequestAttributes(outcome.user, req.method, url.pathname, options.nodeName, options.fineGrainedAuthz ?? false);
  for (const attrs of attributes) {
    let allowed: boolean;
    try {
      allowed = (await authorizer.authorize(attrs)).decision === 'allow';
    } catch (err) {
      const described = `user=${attrs.user.username}, verb=${attrs.verb}, resource=${attrs.resource}, subresource=${attrs.subresource}`;
      logger.error({ err }, `Authorization error (${described})`);
      return respondText(res, 500, `Authorization error (${described})`);
    }
    if (allowed) return servePath(req, res, url, handler);
  }
  const first = attributes[0];
  const subresources = attributes.map((a) => a.subresource).join(' ');
  const message = `Forbidden (user=${outcome.user.username}, verb=${first?.verb ?? ''}, resource=nodes, subresource(s)=[${subresources}])`;
  logger.debug(message);
  respondText(res, 403, `${message}\n`);
}

/** Runs a handler, turning a failure into a logged 500 (or a dropped connection once the answer has started). */
function guard(req: IncomingMessage, res: ServerResponse, logger: Logger, handle: () => Promise<void> | void): void {
  Promise.resolve()
    .then(handle)
    .catch((err: unknown) => {
      logger.error({ err, path: req.url }, 'node agent server request failed');
      if (!res.headersSent) respondText(res, 500, 'Internal Server Error\n');
      else res.destroy();
    });
}

/** The client CA bundle (certutil.NewPool): at least one certificate, or upstream's error. */
async function loadClientCA(file: string): Promise<string> {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`unable to load client CA file ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!pemBlocks(Buffer.from(pem)).some((block) => block.type === 'CERTIFICATE')) {
    throw new Error(`unable to load client CA file ${file}: data does not contain any valid RSA or ECDSA certificates`);
  }
  return pem;
}

function serverOptions(): { maxHeaderSize: number; keepAliveTimeout: number; requestTimeout: number } {
  return { maxHeaderSize, keepAliveTimeout, requestTimeout };
}

function requestUrl(req: IncomingMessage): URL {
  return new URL(req.url ?? '/', 'http://localhost');
}

/**
 * Binds `port` on `address`. Go listens on every address, IPv4 and IPv6, for `0.0.0.0`; node does so
 * when given no host, so the unspecified IPv4 address is left out.
 */
function listen(server: Closable, port: number, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const onListening = (): void => {
      server.off('error', reject);
      const bound = server.address();
      resolve(typeof bound === 'object' && bound ? bound.port : port);
    };
    if (address === '' || address === '0.0.0.0') server.listen(port, onListening);
    else server.listen(port, address, onListening);
  });
}

function closeServer(server: Closable): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
