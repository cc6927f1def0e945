/**
 * `/healthz` (or `/readyz`, `/livez`) as k8s.io/apiserver's healthz handler answers it, which the
 * kubelet and kube-controller-manager install: `ok` when every check passes, `?verbose` listing each
 * check, `?exclude=<name>` skipping one, `/healthz/<name>` running one. A failure answers 500 with
 * the list and `healthz check failed`; the reason is withheld from the client and logged instead.
 *
 * The node agent's main port runs `ping`, `log` and its own checks (upstream: `syncloop`), its
 * healthz port `ping` only; the controller manager's endpoint runs `ping` and its controllers' checks.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { respondText, notFound } from './respond.ts';

/** A named check: undefined when healthy, else why not. */
export type HealthCheck = () => string | undefined;

export const healthzPath = '/healthz';

/** The checks every healthz handler runs first. */
export function defaultHealthChecks(): Record<string, HealthCheck> {
  return { ping: () => undefined };
}

/** Answers `<base>` and `<base>/<check>` (base `/healthz` by default); false when `path` is neither, so the caller answers it. */
export function serveHealthz(
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
  checks: Record<string, HealthCheck>,
  logger: Logger,
  base: string = healthzPath,
): boolean {
  if (path === base) {
    serveRoot(res, query, checks, logger, base.slice(1));
    return true;
  }
  if (!path.startsWith(`${base}/`)) return false;
  const name = path.slice(base.length + 1);
  const check = Object.hasOwn(checks, name) ? checks[name] : undefined;
  if (!check) {
    notFound(res);
    return true;
  }
  const error = check();
  if (error === undefined) respondText(res, 200, 'ok');
  else respondText(res, 500, `internal server error: ${error}\n`);
  return true;
}

/** `endpoint` names the check in the last line as upstream does: `healthz check failed`, `readyz check passed`. */
function serveRoot(res: ServerResponse, query: URLSearchParams, checks: Record<string, HealthCheck>, logger: Logger, endpoint: string): void {
  const excluded = new Set(query.getAll('exclude'));
  let output = '';
  const failed: string[] = [];
  const reasons: string[] = [];
  for (const [name, check] of Object.entries(checks)) {
    if (excluded.delete(name)) {
      output += `[+]${name} excluded: ok\n`;
      continue;
    }
    const error = check();
    if (error === undefined) {
      output += `[+]${name} ok\n`;
    } else {
      output += `[-]${name} failed: reason withheld\n`;
      reasons.push(`[-]${name} failed: ${error}`);
      failed.push(name);
    }
  }
  if (excluded.size) {
    const names = [...excluded].sort().map((name) => JSON.stringify(name));
    output += `warn: some health checks cannot be excluded: no matches for ${names.join(',')}\n`;
  }
  if (failed.length) {
    logger.info({ checks: failed, reasons }, `${endpoint} check failed`);
    respondText(res, 500, `${output}${endpoint} check failed\n`);
    return;
  }
  if (!query.has('verbose')) respondText(res, 200, 'ok');
  else respondText(res, 200, `${output}${endpoint} check passed\n`);
}
