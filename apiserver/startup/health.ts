/**
 * Start-up step "health": the checks of /livez and /readyz. Both have ping, log and etcd; readyz
 * also has etcd-readiness (etcd backend), waits for the bootstrap step and fails once shutdown
 * began; livez forgives an unfinished bootstrap during its grace period. A storage probe that does
 * not answer within its deadline fails (--etcd-healthcheck-timeout, --etcd-readycheck-timeout):
 * a replica cut off from etcd must fail /readyz promptly, so that a load balancer checking it
 * (cluster/haproxy.ts) stops sending it clients, rather than hang until etcd's own deadlines.
 */
import type { HealthCheck } from '../server/health.ts';

/** The message of the readyz `shutdown` check once shutdown started (upstream's). */
export const shuttingDownMessage = 'process is shutting down';

/**
 * Wraps start-up checks for /livez: during the grace period after start they pass, so that a slow
 * start is not mistaken for a dead server (upstream's delayed livez checks).
 */
export function withLivezGrace(check: HealthCheck, graceMs: number, startedAt: number, now: () => number = Date.now): HealthCheck {
  if (graceMs <= 0) return check;
  return { name: check.name, check: async () => (now() > startedAt + graceMs ? check.check() : undefined) };
}

/** `check` failing when it has not passed within `ms`. */
export function withDeadline(check: HealthCheck, ms: number): HealthCheck {
  if (ms <= 0) return check;
  return {
    name: check.name,
    check: () => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      });
      return Promise.race([check.check(), deadline]).finally(() => clearTimeout(timer));
    },
  };
}

export interface HealthOptions {
  livezGracePeriodMs: number;
  startedAt: number;
  /** Deadline of the storage check of both endpoints. */
  healthcheckTimeoutMs: number;
  /** Deadline of readyz's etcd-readiness check. */
  readycheckTimeoutMs: number;
}

export interface HealthState {
  /** Set once the system namespaces exist. */
  namespacesCreated: boolean;
  /** Set once the bootstrap RBAC policy is reconciled. */
  policyReconciled: boolean;
  /** Set when graceful shutdown begins. */
  shuttingDown: boolean;
}

/**
 * `backend` names the storage check as upstream names etcd's (`etcd`), or `embedded-storage` for
 * the embedded backend; `probe` reads the backend.
 */
export function healthChecks(
  state: HealthState,
  backend: 'etcd' | 'embedded',
  probe: () => Promise<unknown>,
  options: HealthOptions,
): { livez: HealthCheck[]; readyz: HealthCheck[] } {
  const bootstrapCheck: HealthCheck = {
    name: 'poststarthook/bootstrap-namespaces',
    check: async () => {
      if (!state.namespacesCreated) throw new Error('system namespaces not yet created');
    },
  };
  const rbacCheck: HealthCheck = {
    name: 'poststarthook/rbac/bootstrap-roles',
    check: async () => {
      if (!state.policyReconciled) throw new Error('not finished');
    },
  };
  const base: HealthCheck[] = [
    { name: 'ping', check: async () => {} },
    { name: 'log', check: async () => {} },
    withDeadline({ name: backend === 'etcd' ? 'etcd' : 'embedded-storage', check: async () => void (await probe()) }, options.healthcheckTimeoutMs),
  ];
  const readiness = backend === 'etcd' ? [withDeadline({ name: 'etcd-readiness', check: async () => void (await probe()) }, options.readycheckTimeoutMs)] : [];
  const shutdown: HealthCheck = {
    name: 'shutdown',
    check: async () => {
      if (state.shuttingDown) throw new Error(shuttingDownMessage);
    },
  };
  return {
    livez: [...base, ...[bootstrapCheck, rbacCheck].map((c) => withLivezGrace(c, options.livezGracePeriodMs, options.startedAt))],
    readyz: [...base, ...readiness, bootstrapCheck, rbacCheck, shutdown],
  };
}
