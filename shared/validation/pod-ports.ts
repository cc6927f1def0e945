/**
 * Upstream's port rules for containers: validateContainerPorts (IsValidPortName, IsValidPortNum,
 * protocols), the host port conflicts of checkHostPortConflicts (across the regular containers, and
 * within each init container, which run one at a time) and validatePodHostNetworkDeps (under
 * hostNetwork a pod's host ports equal its container ports).
 */
import { duplicate, invalid, notSupported, required, type FieldError, type FieldPath } from '../api/field.ts';
import type { Container, ContainerPort } from '../api/pod-container.ts';
import type { PodSpec } from '../api/pod.ts';

/** Upstream's IsValidPortNum message. */
export const portRangeMessage = 'must be between 1 and 65535, inclusive';

/** IsValidPortName (IANA_SVC_NAME): the problems with a port name. */
export function portNameProblems(name: string): string[] {
  const problems: string[] = [];
  if (name.length > 15) problems.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) problems.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) problems.push('must contain at least one letter (a-z)');
  if (name.includes('--')) problems.push('must not contain consecutive hyphens');
  if (name.length > 0 && (name.startsWith('-') || name.endsWith('-'))) problems.push('must not begin or end with a hyphen');
  return problems;
}

const supportedProtocols = ['SCTP', 'TCP', 'UDP'];

/** validateContainerPorts: a name is checked for uniqueness only once it is valid. */
export function validateContainerPorts(ports: readonly ContainerPort[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = path.index(i);
    const name = port.name ?? '';
    if (name) {
      const problems = portNameProblems(name);
      for (const msg of problems) errors.push(invalid(at.child('name'), name, msg));
      if (problems.length === 0 && names.has(name)) errors.push(duplicate(at.child('name'), name));
      else if (problems.length === 0) names.add(name);
    }
    const containerPort = port.containerPort ?? 0;
    if (containerPort === 0) errors.push(required(at.child('containerPort')));
    else if (containerPort < 1 || containerPort > 65535) errors.push(invalid(at.child('containerPort'), containerPort, portRangeMessage));
    const hostPort = port.hostPort ?? 0;
    if (hostPort !== 0 && (hostPort < 1 || hostPort > 65535)) errors.push(invalid(at.child('hostPort'), hostPort, portRangeMessage));
    const protocol = port.protocol ?? '';
    if (!protocol) errors.push(required(at.child('protocol')));
    else if (!supportedProtocols.includes(protocol)) errors.push(notSupported(at.child('protocol'), protocol, supportedProtocols));
  });
  return errors;
}

/** checkHostPortConflicts: a protocol/hostIP/hostPort triple is used once among `containers` (at `path`). */
export function checkHostPortConflicts(containers: readonly { container: Container; index: number }[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const { container, index } of containers) {
    (container.ports ?? []).forEach((port, i) => {
      const hostPort = port.hostPort ?? 0;
      if (hostPort === 0) return;
      const key = `${port.protocol ?? ''}/${port.hostIP ?? ''}/${hostPort}`;
      if (seen.has(key)) errors.push(duplicate(path.index(index).child('ports').index(i).child('hostPort'), key));
      else seen.add(key);
    });
  }
  return errors;
}

/** validatePodHostNetworkDeps for a pod: under hostNetwork every host port of a regular container equals its container port. */
export function validateHostNetworkPorts(spec: PodSpec, path: FieldPath): FieldError[] {
  if (spec.hostNetwork !== true) return [];
  const errors: FieldError[] = [];
  (spec.containers ?? []).forEach((container, i) => {
    (container.ports ?? []).forEach((port, j) => {
      const hostPort = port.hostPort ?? 0;
      if (hostPort !== (port.containerPort ?? 0))
        errors.push(
          invalid(
            path.child('containers').index(i).child('ports').index(j).child('hostPort'),
            hostPort,
            'must match `containerPort` when `hostNetwork` is true',
          ),
        );
    });
  });
  return errors;
}
