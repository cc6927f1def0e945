/**
 * The paths the node agent serves, once a request is admitted (on the main port) or at once (on
 * the read-only port), answered as the kubelet answers them:
 *
 *   /healthz     ok, or the failed checks (healthz.ts)
 *   /pods        the pods bound to this node, a v1 PodList as the kubelet's legacy codec writes it
 *                (`"metadata": {}`, items without kind and apiVersion, `"items": null` for none)
 *   /configz     `{"kubeletconfig": ...}` (configz.ts), with enableDebuggingHandlers, main port only
 *   /metrics     the agent's Prometheus registry
 *
 * Where debugging handlers are off (the read-only port, or enableDebuggingHandlers false), their
 * paths answer 405 `Debug endpoints are disabled.` as upstream's placeholders do; anything else is
 * Go's `404 page not found`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { KubeObject } from '../../shared/api/types.ts';
import { serveHealthz, type HealthCheck } from '../../shared/http/healthz.ts';
import { methodNotAllowed, notFound, respondJson, respondText } from '../../shared/http/respond.ts';

export interface PathHandlerOptions {
  pods: () => KubeObject[];
  registry: Registry;
  logger: Logger;
  healthChecks: Record<string, HealthCheck>;
  /** The body of `/configz`, or null where it is not served. */
  configz: (() => string) | null;
  /** Whether the debugging endpoints answer with upstream's "disabled" placeholder. */
  debuggingDisabled: boolean;
}

/** InstallDebuggingDisabledHandlers' paths. */
const debuggingPaths = ['/run/', '/exec/', '/attach/', '/portForward/', '/containerLogs/', '/runningpods/', '/debug/pprof/', '/logs/'];

/** The v1 PodList of `pods`, as upstream's encodePods writes it. */
export function podListBody(pods: readonly KubeObject[]): string {
  const items = pods.map((pod) => {
    const { kind: _kind, apiVersion: _apiVersion, ...rest } = pod;
    return rest;
  });
  return JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: items.length ? items : null });
}

export async function servePath(req: IncomingMessage, res: ServerResponse, url: URL, options: PathHandlerOptions): Promise<void> {
  const path = url.pathname;
  if (serveHealthz(res, path, url.searchParams, options.healthChecks, options.logger)) return;
  if (path === '/pods') {
    if (req.method !== 'GET') return methodNotAllowed(res);
    return respondJson(res, podListBody(options.pods()));
  }
  if (path === '/metrics') {
    const body = await options.registry.metrics();
    res.writeHead(200, { 'content-type': options.registry.contentType });
    res.end(body);
    return;
  }
  if (path === '/configz' && options.configz) return respondJson(res, options.configz());
  if (options.debuggingDisabled && debuggingPaths.some((prefix) => path.startsWith(prefix))) {
    return respondText(res, 405, 'Debug endpoints are disabled.\n');
  }
  notFound(res);
}
