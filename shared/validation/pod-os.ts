/**
 * Upstream's rules tied to the pod's operating system: validateOS (spec.os.name linux or windows),
 * then validateLinux (no Windows options) or validateWindows (none of the Linux-only fields of the
 * pod or its containers), and validateWindowsHostProcessPod (all containers host processes or none,
 * and then hostNetwork).
 */
import { forbidden, invalid, notSupported, required, type FieldError, type FieldPath } from '../api/field.ts';
import type { Container, SecurityContext } from '../api/pod-container.ts';
import type { PodSecurityContext, PodSpec } from '../api/pod.ts';

/** podshelper.VisitContainersWithPath's order: init containers, containers, ephemeral containers. */
export function containersWithPaths(spec: PodSpec, path: FieldPath): { container: Container; path: FieldPath }[] {
  const lists = [
    ['initContainers', spec.initContainers],
    ['containers', spec.containers],
    ['ephemeralContainers', spec.ephemeralContainers],
  ] as const;
  return lists.flatMap(([name, list]) => (list ?? []).map((container, i) => ({ container, path: path.child(name).index(i) })));
}

const windowsForbidden = 'cannot be set for a windows pod';

/**
 * What a Windows pod may not set, in upstream's order: these two, hostUsers, hostPID and hostIPC, then the rest.
 * A field is set when it is not undefined: the schema check before validation drops JSON nulls (Go's nil).
 */
const windowsPodFields = ['appArmorProfile', 'seLinuxOptions'] as const satisfies readonly (keyof PodSecurityContext)[];
const windowsPodTailFields = [
  'seccompProfile',
  'fsGroup',
  'fsGroupChangePolicy',
  'sysctls',
  'shareProcessNamespace',
  'runAsUser',
  'runAsGroup',
  'supplementalGroups',
  'supplementalGroupsPolicy',
  'seLinuxChangePolicy',
] as const satisfies readonly (keyof PodSecurityContext | 'shareProcessNamespace')[];
const windowsContainerFields = [
  'appArmorProfile',
  'seLinuxOptions',
  'seccompProfile',
  'capabilities',
  'readOnlyRootFilesystem',
  'privileged',
  'allowPrivilegeEscalation',
  'procMount',
  'runAsUser',
  'runAsGroup',
] as const satisfies readonly (keyof SecurityContext)[];

function validateWindows(spec: PodSpec, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const context = spec.securityContext;
  const contextPath = path.child('securityContext');
  for (const field of windowsPodFields) if (context?.[field] !== undefined) errors.push(forbidden(contextPath.child(field), windowsForbidden));
  if (spec.hostUsers !== undefined && spec.hostUsers !== null) errors.push(forbidden(path.child('hostUsers'), windowsForbidden));
  if (spec.hostPID === true) errors.push(forbidden(path.child('hostPID'), windowsForbidden));
  if (spec.hostIPC === true) errors.push(forbidden(path.child('hostIPC'), windowsForbidden));
  for (const field of windowsPodTailFields) {
    if (field === 'shareProcessNamespace') {
      if (spec.shareProcessNamespace !== undefined && spec.shareProcessNamespace !== null) errors.push(forbidden(path.child(field), windowsForbidden));
    } else if (field === 'sysctls') {
      if ((context?.sysctls ?? []).length > 0) errors.push(forbidden(contextPath.child(field), windowsForbidden));
    } else if (context?.[field] !== undefined) {
      errors.push(forbidden(contextPath.child(field), windowsForbidden));
    }
  }
  for (const { container, path: at } of containersWithPaths(spec, path)) {
    for (const field of windowsContainerFields)
      if (container.securityContext?.[field] !== undefined) errors.push(forbidden(at.child('securityContext', field), windowsForbidden));
  }
  return errors;
}

function validateLinux(spec: PodSpec, path: FieldPath): FieldError[] {
  const message = 'windows options cannot be set for a linux pod';
  const errors: FieldError[] = [];
  if (spec.securityContext?.windowsOptions !== undefined) errors.push(forbidden(path.child('securityContext', 'windowsOptions'), message));
  for (const { container, path: at } of containersWithPaths(spec, path))
    if (container.securityContext?.windowsOptions !== undefined) errors.push(forbidden(at.child('securityContext', 'windowsOptions'), message));
  return errors;
}

const operatingSystems = ['linux', 'windows'];

/** validateOS and, for a valid name, validateLinux or validateWindows. */
export function validatePodOS(spec: PodSpec, path: FieldPath): FieldError[] {
  const os = spec.os;
  if (!os) return [];
  const name = os.name ?? '';
  if (!name) return [required(path.child('os', 'name'), 'cannot be empty')];
  // Upstream reports an unknown name at spec.os, not at its name.
  if (!operatingSystems.includes(name)) return [notSupported(path.child('os'), name, operatingSystems)];
  return name === 'linux' ? validateLinux(spec, path) : validateWindows(spec, path);
}

/** validateWindowsHostProcessPod: hostProcess is all or nothing across containers, and needs hostNetwork. */
export function validateWindowsHostProcessPod(spec: PodSpec, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const podHostProcess = spec.securityContext?.windowsOptions?.hostProcess;
  let containers = 0;
  let hostProcesses = 0;
  for (const { container, path: at } of containersWithPaths(spec, path)) {
    containers++;
    const hostProcess = container.securityContext?.windowsOptions?.hostProcess;
    if (podHostProcess !== undefined && hostProcess !== undefined && podHostProcess !== hostProcess)
      errors.push(
        invalid(
          at.child('securityContext', 'windowsOptions', 'hostProcess'),
          hostProcess,
          `pod hostProcess value must be identical if both are specified, was ${podHostProcess}`,
        ),
      );
    if (hostProcess ?? podHostProcess ?? false) hostProcesses++;
  }
  if (hostProcesses > 0) {
    if (hostProcesses !== containers)
      errors.push(invalid(path, '', 'If pod contains any hostProcess containers then all containers must be HostProcess containers'));
    const hostNetwork = spec.hostNetwork === true;
    if (!hostNetwork) errors.push(invalid(path.child('hostNetwork'), hostNetwork, 'hostNetwork must be true if pod contains any hostProcess containers'));
  }
  return errors;
}
