/**
 * Upstream's container validation: validateContainerCommon (name, image, termination message
 * policy, ports, env, envFrom, volume mounts and devices, pull policy, resources, resize policy,
 * security context) and the rules of each list: validateContainers (lifecycle and probes; no
 * restartPolicy), validateInitContainers (restartPolicy Always makes a sidecar, which alone may have
 * lifecycle hooks and probes; no resizePolicy) and validateEphemeralContainers (names unique across
 * the pod, an existing target, an allow list of fields, no subPath). Names are unique across lists.
 */
import { append } from '../api/append.ts';
import { duplicate, forbidden, invalid, notFound, notSupported, required, type FieldError, type FieldPath } from '../api/field.ts';
import type { Container, EnvVar, EphemeralContainer } from '../api/pod-container.ts';
import type { PodSpec } from '../api/pod.ts';
import type { Volume } from '../api/pod-volume.ts';
import { isDNS1123Label, isDNS1123Subdomain } from './names.ts';
import { checkHostPortConflicts, validateContainerPorts } from './pod-ports.ts';
import { forbidLifecycleAndProbes, validateLifecycleAndProbes } from './pod-probes.ts';
import { validateResizePolicy, validateResourceRequirements } from './pod-resources.ts';
import { validateContainerSecurityContext } from './pod-security-context.ts';
import { validateLocalDescendingPath } from './volume.ts';

/** What the containers of a spec are checked against. */
export interface ContainerContext {
  volumes: ReadonlyMap<string, Volume>;
  /** The names of the pod's resource claims. */
  claimNames: ReadonlySet<string>;
  /** The pod's terminationGracePeriodSeconds, bounding sleep actions. */
  gracePeriod: number | undefined;
  restartPolicy: string;
  /** False when the pod has its own user namespace (hostUsers: false). */
  hostUsers: boolean;
}

/** IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation, on by default in 1.32). */
export function envVarNameProblems(name: string): string[] {
  const problems: string[] = [];
  if (!/^[ -<>-~]+$/.test(name)) problems.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
  return problems;
}

const envFieldPaths = [
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];
const containerResources = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];

function configMapKeyProblems(key: string): string[] {
  const problems: string[] = [];
  if (!/^[-._a-zA-Z0-9]+$/.test(key))
    problems.push(
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    );
  if (key === '.') problems.push("must not be '.'");
  else if (key === '..') problems.push("must not be '..'");
  else if (key.startsWith('..')) problems.push("must not start with '..'");
  return problems;
}

function validateEnvVarSource(env: EnvVar, path: FieldPath): FieldError[] {
  const source = env.valueFrom ?? {};
  const errors: FieldError[] = [];
  let count = 0;
  if (source.fieldRef) {
    count++;
    const ref = source.fieldRef;
    const refPath = path.child('fieldRef');
    if (!ref.apiVersion) errors.push(required(refPath.child('apiVersion')));
    else if (ref.apiVersion !== 'v1') errors.push(invalid(refPath.child('apiVersion'), ref.apiVersion, 'unsupported version'));
    const fieldPath = ref.fieldPath ?? '';
    if (!fieldPath) errors.push(required(refPath.child('fieldPath')));
    else if (!/^metadata\.(labels|annotations)\['.*'\]$/.test(fieldPath) && !envFieldPaths.includes(fieldPath))
      errors.push(notSupported(refPath.child('fieldPath'), fieldPath, envFieldPaths));
  }
  if (source.resourceFieldRef) {
    count++;
    const resource = source.resourceFieldRef.resource ?? '';
    const refPath = path.child('resourceFieldRef');
    if (!resource) errors.push(required(refPath.child('resource')));
    else if (!containerResources.includes(resource) && !/^(limits|requests)\.hugepages-/.test(resource))
      errors.push(notSupported(refPath.child('resource'), resource, containerResources));
  }
  for (const kind of ['configMapKeyRef', 'secretKeyRef'] as const) {
    const ref = source[kind];
    if (!ref) continue;
    count++;
    const refPath = path.child(kind);
    if (!ref.name) errors.push(required(refPath.child('name')));
    if (!ref.key) errors.push(required(refPath.child('key')));
    else for (const msg of configMapKeyProblems(ref.key)) errors.push(invalid(refPath.child('key'), ref.key, msg));
  }
  if (count === 0) errors.push(invalid(path, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
  else if (env.value) errors.push(invalid(path, '', 'may not be specified when `value` is not empty'));
  else if (count > 1) errors.push(invalid(path, '', 'may not have more than one field specified at a time'));
  return errors;
}

function validateEnv(envs: readonly EnvVar[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  envs.forEach((env, i) => {
    const at = path.index(i);
    const name = env.name ?? '';
    if (!name) errors.push(required(at.child('name')));
    else for (const msg of envVarNameProblems(name)) errors.push(invalid(at.child('name'), name, msg));
    if (env.valueFrom) append(errors, validateEnvVarSource(env, at.child('valueFrom')));
  });
  return errors;
}

function validateEnvFrom(container: Container, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  (container.envFrom ?? []).forEach((source, i) => {
    const at = path.index(i);
    if (source.prefix) for (const msg of envVarNameProblems(source.prefix)) errors.push(invalid(at.child('prefix'), source.prefix, msg));
    let count = 0;
    for (const kind of ['configMapRef', 'secretRef'] as const) {
      const ref = source[kind];
      if (!ref) continue;
      count++;
      const name = ref.name ?? '';
      for (const msg of isDNS1123Subdomain(name)) errors.push(invalid(at.child(kind, 'name'), name, msg));
    }
    if (count === 0) errors.push(invalid(at, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (count > 1) errors.push(invalid(at, '', 'may not have more than one field specified at a time'));
  });
  return errors;
}

const propagationModes = ['Bidirectional', 'HostToContainer', 'None'];
const recursiveReadOnlyModes = ['Disabled', 'Enabled', 'IfPossible'];

/**
 * ValidateVolumeMounts. Upstream reports the subPath, subPathExpr, mountPropagation and
 * recursiveReadOnly problems at the list (`volumeMounts.subPath`), not at the mount.
 */
function validateVolumeMounts(container: Container, volumes: ReadonlyMap<string, Volume>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const mountPaths = new Set<string>();
  const devices = new Map((container.volumeDevices ?? []).map((d) => [d.name ?? '', d.devicePath ?? '']));
  const devicePaths = new Set(devices.values());
  (container.volumeMounts ?? []).forEach((mount, i) => {
    const at = path.index(i);
    const name = mount.name ?? '';
    if (!name) errors.push(required(at.child('name')));
    if (!volumes.has(name)) errors.push(notFound(at.child('name'), name));
    const mountPath = mount.mountPath ?? '';
    if (!mountPath) errors.push(required(at.child('mountPath')));
    if (mountPaths.has(mountPath)) errors.push(invalid(at.child('mountPath'), mountPath, 'must be unique'));
    mountPaths.add(mountPath);
    if (devices.has(name)) errors.push(invalid(at.child('name'), name, 'must not already exist in volumeDevices'));
    if (devicePaths.has(mountPath)) errors.push(invalid(at.child('mountPath'), mountPath, 'must not already exist as a path in volumeDevices'));
    if (volumes.get(name)?.image) {
      if (mount.subPath) errors.push(invalid(at.child('subPath'), mount.subPath, 'not allowed in image volume sources'));
      if (mount.subPathExpr) errors.push(invalid(at.child('subPathExpr'), mount.subPathExpr, 'not allowed in image volume sources'));
    }
    if (mount.subPath) append(errors, validateLocalDescendingPath(mount.subPath, path.child('subPath')));
    if (mount.subPathExpr) {
      if (mount.subPath) errors.push(invalid(at.child('subPathExpr'), mount.subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      append(errors, validateLocalDescendingPath(mount.subPathExpr, path.child('subPathExpr')));
    }
    const propagation = mount.mountPropagation ?? undefined;
    if (propagation !== undefined) {
      if (!propagationModes.includes(propagation)) errors.push(notSupported(path.child('mountPropagation'), propagation, propagationModes));
      if (propagation === 'Bidirectional' && container.securityContext?.privileged !== true)
        errors.push(forbidden(path.child('mountPropagation'), 'Bidirectional mount propagation is available only to privileged containers'));
    }
    const recursive = mount.recursiveReadOnly ?? undefined;
    if (recursive === 'Enabled' || recursive === 'IfPossible') {
      if (mount.readOnly !== true) errors.push(forbidden(path.child('recursiveReadOnly'), 'may only be specified when readOnly is true'));
      if (propagation !== undefined && propagation !== 'None')
        errors.push(forbidden(path.child('recursiveReadOnly'), 'may only be specified when mountPropagation is None or not specified'));
    } else if (recursive !== undefined && recursive !== 'Disabled') {
      errors.push(notSupported(path.child('recursiveReadOnly'), recursive, recursiveReadOnlyModes));
    }
  });
  return errors;
}

/** ValidateVolumeDevices: block volumes of claims, at unique paths without backsteps, apart from the mounts. */
function validateVolumeDevices(container: Container, volumes: ReadonlyMap<string, Volume>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  const devicePaths = new Set<string>();
  const mounted = new Map((container.volumeMounts ?? []).map((m) => [m.name ?? '', m.mountPath ?? '']));
  const mountPaths = new Set(mounted.values());
  (container.volumeDevices ?? []).forEach((device, i) => {
    const at = path.index(i);
    const name = device.name ?? '';
    const devicePath = device.devicePath ?? '';
    if (!name) errors.push(required(at.child('name')));
    if (names.has(name)) errors.push(invalid(at.child('name'), name, 'must be unique'));
    const volume = volumes.get(name);
    if (volume && !volume.persistentVolumeClaim && !volume.ephemeral)
      errors.push(invalid(at.child('name'), name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'));
    if (!volume) errors.push(notFound(at.child('name'), name));
    if (!devicePath) errors.push(required(at.child('devicePath')));
    if (devicePaths.has(devicePath)) errors.push(invalid(at.child('devicePath'), devicePath, 'must be unique'));
    if (devicePath && devicePath.split('/').includes('..')) errors.push(invalid(at.child('devicePath'), devicePath, "can not contain backsteps ('..')"));
    else devicePaths.add(devicePath);
    if (mounted.has(name)) errors.push(invalid(at.child('name'), name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(devicePath)) errors.push(invalid(at.child('devicePath'), devicePath, 'must not already exist as a path in volumeMounts'));
    if (name) names.add(name);
  });
  return errors;
}

const pullPolicies = ['Always', 'IfNotPresent', 'Never'];

/** validateContainerCommon: what every container, whatever its list, must satisfy. */
function validateContainerCommon(container: Container, context: ContainerContext, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const name = container.name ?? '';
  if (!name) errors.push(required(path.child('name')));
  else for (const msg of isDNS1123Label(name)) errors.push(invalid(path.child('name'), name, msg));
  if (!container.image) errors.push(required(path.child('image')));
  switch (container.terminationMessagePolicy ?? '') {
    case 'File':
    case 'FallbackToLogsOnError':
      break;
    case '':
      errors.push(required(path.child('terminationMessagePolicy'), "must be 'File' or 'FallbackToLogsOnError'"));
      break;
    default:
      errors.push(notSupported(path.child('terminationMessagePolicy'), container.terminationMessagePolicy, ['File', 'FallbackToLogsOnError']));
  }
  append(errors, validateContainerPorts(container.ports ?? [], path.child('ports')));
  append(errors, validateEnv(container.env ?? [], path.child('env')));
  append(errors, validateEnvFrom(container, path.child('envFrom')));
  append(errors, validateVolumeMounts(container, context.volumes, path.child('volumeMounts')));
  append(errors, validateVolumeDevices(container, context.volumes, path.child('volumeDevices')));
  const pullPolicy = container.imagePullPolicy ?? '';
  if (!pullPolicy) errors.push(required(path.child('imagePullPolicy')));
  else if (!pullPolicies.includes(pullPolicy)) errors.push(notSupported(path.child('imagePullPolicy'), pullPolicy, pullPolicies));
  append(errors, validateResourceRequirements(container.resources, context.claimNames, path.child('resources')));
  append(errors, validateResizePolicy(container.resizePolicy ?? [], context.restartPolicy, path.child('resizePolicy')));
  append(errors, validateContainerSecurityContext(container.securityContext, context.hostUsers, path.child('securityContext')));
  return errors;
}

/** validateContainerOnlyForPod: an image without surrounding whitespace (pods only, not templates). */
export function validateImageWhitespace(container: Container, path: FieldPath): FieldError[] {
  const image = container.image ?? '';
  return image.trim() !== image ? [invalid(path.child('image'), image, 'must not have leading or trailing whitespace')] : [];
}

/** validateContainers: the regular containers, at least one. */
export function validateContainers(containers: readonly Container[], context: ContainerContext, path: FieldPath): FieldError[] {
  if (containers.length === 0) return [required(path)];
  const errors: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((container, i) => {
    const at = path.index(i);
    append(errors, validateContainerCommon(container, context, at));
    const name = container.name ?? '';
    if (names.has(name)) errors.push(duplicate(at.child('name'), name));
    else names.add(name);
    append(errors, validateLifecycleAndProbes(container, context.gracePeriod, at));
    if (container.restartPolicy !== undefined && container.restartPolicy !== null)
      errors.push(forbidden(at.child('restartPolicy'), 'may not be set for non-init containers'));
  });
  append(
    errors,
    checkHostPortConflicts(
      containers.map((container, index) => ({ container, index })),
      path,
    ),
  );
  return errors;
}

/** validateInitContainers: names unique with the regular containers'; only sidecars have lifecycle hooks and probes. */
export function validateInitContainers(spec: PodSpec, context: ContainerContext, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set((spec.containers ?? []).map((c) => c.name ?? ''));
  (spec.initContainers ?? []).forEach((container, i) => {
    const at = path.index(i);
    append(errors, validateContainerCommon(container, context, at));
    const restartPolicy = container.restartPolicy ?? undefined;
    if (restartPolicy !== undefined && restartPolicy !== 'Always') errors.push(notSupported(at.child('restartPolicy'), restartPolicy, ['Always']));
    const name = container.name ?? '';
    if (names.has(name)) errors.push(duplicate(at.child('name'), name));
    else if (name) names.add(name);
    // Upstream checks each init container alone, as the first of a list.
    append(errors, checkHostPortConflicts([{ container, index: 0 }], path));
    if (restartPolicy === 'Always') append(errors, validateLifecycleAndProbes(container, context.gracePeriod, at));
    else append(errors, forbidLifecycleAndProbes(container, at));
    if ((container.resizePolicy ?? []).length > 0)
      errors.push(invalid(at.child('resizePolicy'), container.resizePolicy, 'must not be set for init containers'));
  });
  return errors;
}

/** The fields of EphemeralContainerCommon an ephemeral container may not set, in upstream's struct order. */
const ephemeralForbidden = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'] as const;

/** Whether a field holds something other than Go's zero value. */
function isNonZero(container: EphemeralContainer, field: (typeof ephemeralForbidden)[number]): boolean {
  const value = container[field];
  if (value === undefined || value === null) return false;
  if (field === 'resources') {
    const resources = container.resources ?? {};
    return [resources.limits, resources.requests, resources.claims].some((v) => v !== undefined && v !== null);
  }
  return true;
}

/** validateEphemeralContainers: names unique across the pod, an existing target, the allowed fields only, no subPath. */
export function validateEphemeralContainers(spec: PodSpec, context: ContainerContext, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const others = new Set([...(spec.containers ?? []), ...(spec.initContainers ?? [])].map((c) => c.name ?? ''));
  const names = new Set(others);
  (spec.ephemeralContainers ?? []).forEach((container, i) => {
    const at = path.index(i);
    append(errors, validateContainerCommon(container, context, at));
    append(errors, validateImageWhitespace(container, at));
    const name = container.name ?? '';
    if (names.has(name)) errors.push(duplicate(at.child('name'), name));
    else names.add(name);
    const target = container.targetContainerName ?? '';
    if (target && !others.has(target)) errors.push(notFound(at.child('targetContainerName'), target));
    for (const field of ephemeralForbidden)
      if (isNonZero(container, field)) errors.push(forbidden(at.child(field), 'cannot be set for an Ephemeral Container'));
    (container.volumeMounts ?? []).forEach((mount, j) => {
      const mountPath = at.child('volumeMounts').index(j);
      if (mount.subPath) errors.push(forbidden(mountPath.child('subPath'), 'cannot be set for an Ephemeral Container'));
      if (mount.subPathExpr) errors.push(forbidden(mountPath.child('subPathExpr'), 'cannot be set for an Ephemeral Container'));
    });
  });
  return errors;
}
