/**
 * Upstream's probe and lifecycle hook validation (validateProbe and its liveness, readiness and
 * startup variants, validateLifecycle, validateHandler and the actions): one handler, its fields,
 * the probe's counters non-negative, successThreshold 1 where only 1 makes sense, and
 * terminationGracePeriodSeconds positive and never on a readiness probe. A sleep action is bounded
 * by the pod's grace period (PodLifecycleSleepActionAllowZero, alpha and off in 1.32: no zero sleep).
 */
import { append } from '../api/append.ts';
import { forbidden, invalid, notSupported, required, type FieldError, type FieldPath } from '../api/field.ts';
import type { Container, Handler, HTTPGetAction, Probe } from '../api/pod-container.ts';
import { portNameProblems } from './pod-ports.ts';

const isNegative = 'must be greater than or equal to 0';
const portRangeMessage = 'must be between 1 and 65535, inclusive';
const httpHeaderNameMessage =
  "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')";

/** ValidatePortNumOrName: a number 1–65535, or an IANA_SVC_NAME. */
export function validatePortNumOrName(port: string | number | undefined, path: FieldPath): FieldError[] {
  if (typeof port === 'string') return portNameProblems(port).map((msg) => invalid(path, port, msg));
  const value = port ?? 0;
  return value < 1 || value > 65535 ? [invalid(path, value, portRangeMessage)] : [];
}

const httpSchemes = ['HTTP', 'HTTPS'];

function validateHTTPGetAction(action: HTTPGetAction, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!action.path) errors.push(required(path.child('path')));
  append(errors, validatePortNumOrName(action.port, path.child('port')));
  const scheme = action.scheme ?? '';
  if (!httpSchemes.includes(scheme)) errors.push(notSupported(path.child('scheme'), scheme, httpSchemes));
  for (const header of action.httpHeaders ?? []) {
    const name = header.name ?? '';
    // Upstream reports a bad header name at the list, not at its entry.
    if (!/^[-A-Za-z0-9]+$/.test(name)) errors.push(invalid(path.child('httpHeaders'), name, httpHeaderNameMessage));
  }
  return errors;
}

/**
 * validateHandler: exactly one action; a probe takes exec, httpGet, tcpSocket or grpc, a lifecycle
 * hook exec, httpGet, tcpSocket or sleep. `gracePeriod` is the pod's terminationGracePeriodSeconds.
 */
function validateHandler(handler: Handler, kinds: readonly (keyof Handler)[], gracePeriod: number | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  let count = 0;
  for (const kind of kinds) {
    const action = handler[kind];
    if (action === undefined || action === null) continue;
    const at = path.child(kind);
    if (count > 0) {
      errors.push(forbidden(at, 'may not specify more than 1 handler type'));
      continue;
    }
    count++;
    if (kind === 'exec' && handler.exec) {
      if ((handler.exec.command ?? []).length === 0) errors.push(required(at.child('command')));
    } else if (kind === 'httpGet' && handler.httpGet) {
      append(errors, validateHTTPGetAction(handler.httpGet, at));
    } else if (kind === 'tcpSocket' && handler.tcpSocket) {
      append(errors, validatePortNumOrName(handler.tcpSocket.port, at.child('port')));
    } else if (kind === 'grpc' && handler.grpc) {
      append(errors, validatePortNumOrName(handler.grpc.port ?? 0, at.child('port')));
    } else if (kind === 'sleep' && handler.sleep) {
      const seconds = handler.sleep.seconds ?? 0;
      if (gracePeriod !== undefined && (seconds <= 0 || seconds > gracePeriod))
        errors.push(
          invalid(
            at,
            seconds,
            `must be greater than 0 and less than terminationGracePeriodSeconds (${gracePeriod}). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.`,
          ),
        );
    }
  }
  if (count === 0) errors.push(required(path, 'must specify a handler type'));
  return errors;
}

const probeHandlers: readonly (keyof Handler)[] = ['exec', 'httpGet', 'tcpSocket', 'grpc'];
const lifecycleHandlers: readonly (keyof Handler)[] = ['exec', 'httpGet', 'tcpSocket', 'sleep'];

function validateProbe(probe: Probe, gracePeriod: number | undefined, path: FieldPath): FieldError[] {
  const errors = validateHandler(probe, probeHandlers, gracePeriod, path);
  for (const key of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'] as const) {
    const value = probe[key] ?? 0;
    if (value < 0) errors.push(invalid(path.child(key), value, isNegative));
  }
  const grace = probe.terminationGracePeriodSeconds;
  if (grace !== undefined && grace !== null && grace <= 0) errors.push(invalid(path.child('terminationGracePeriodSeconds'), grace, 'must be greater than 0'));
  return errors;
}

export type ProbeKind = 'livenessProbe' | 'readinessProbe' | 'startupProbe';

/** validateLivenessProbe, validateReadinessProbe or validateStartupProbe, by the probe's field. */
export function validateProbeOf(kind: ProbeKind, probe: Probe | undefined, gracePeriod: number | undefined, path: FieldPath): FieldError[] {
  if (!probe) return [];
  const errors = validateProbe(probe, gracePeriod, path);
  if (kind === 'readinessProbe') {
    const grace = probe.terminationGracePeriodSeconds;
    if (grace !== undefined && grace !== null) errors.push(invalid(path.child('terminationGracePeriodSeconds'), grace, 'must not be set for readinessProbes'));
  } else if ((probe.successThreshold ?? 0) !== 1) {
    errors.push(invalid(path.child('successThreshold'), probe.successThreshold ?? 0, 'must be 1'));
  }
  return errors;
}

/** validateLifecycle: each hook set holds exactly one valid action. */
export function validateLifecycle(lifecycle: Container['lifecycle'], gracePeriod: number | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (lifecycle?.postStart) append(errors, validateHandler(lifecycle.postStart, lifecycleHandlers, gracePeriod, path.child('postStart')));
  if (lifecycle?.preStop) append(errors, validateHandler(lifecycle.preStop, lifecycleHandlers, gracePeriod, path.child('preStop')));
  return errors;
}

const probeKinds: readonly ProbeKind[] = ['livenessProbe', 'readinessProbe', 'startupProbe'];

/** The lifecycle and probes of a regular container or a sidecar (an init container with restartPolicy Always). */
export function validateLifecycleAndProbes(container: Container, gracePeriod: number | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (container.lifecycle) append(errors, validateLifecycle(container.lifecycle, gracePeriod, path.child('lifecycle')));
  for (const kind of probeKinds) append(errors, validateProbeOf(kind, container[kind], gracePeriod, path.child(kind)));
  return errors;
}

/** An init container that is no sidecar may have neither lifecycle hooks nor probes. */
export function forbidLifecycleAndProbes(container: Container, path: FieldPath): FieldError[] {
  const message = 'may not be set for init containers without restartPolicy=Always';
  const errors: FieldError[] = [];
  for (const key of ['lifecycle', ...probeKinds] as const) if (container[key]) errors.push(forbidden(path.child(key), message));
  return errors;
}
