/**
 * Upstream's validation of a core/v1 Pod (ValidatePodSpec, ValidatePodCreate's spec part,
 * ValidatePodUpdate and ValidatePodStatusUpdate) with upstream's field paths and messages, on a
 * defaulted pod (pod-defaults.ts). The API server adds the generic metadata checks (the store);
 * the node agent calls validatePodCreate on static pods, the same code the server runs.
 *
 * Covered: containers and init containers (names, images, ports, env, envFrom, volume mounts and
 * devices, resources, pull and termination message policies), volumes (volume.ts), restartPolicy,
 * dnsPolicy, nodeName, nodeSelector, serviceAccountName, hostname and subdomain, tolerations,
 * activeDeadlineSeconds, terminationGracePeriodSeconds. Not covered yet: probes and lifecycle
 * handlers, security contexts, affinity, topology spread, DNS config, host aliases, ephemeral
 * containers' own rules, sidecar restart policies, resource claims and the alpha features.
 */
import { isDeepStrictEqual } from 'node:util';
import { append } from '../api/append.ts';
import { FieldPath, duplicate, forbidden, invalid, notFound, notSupported, required, type FieldError } from '../api/field.ts';
import { parseQuantity } from '../api/quantity.ts';
import type { Container, ContainerPort, EnvVar, ResourceRequirements } from '../api/pod-container.ts';
import type { Toleration } from '../api/pod-scheduling.ts';
import type { ContainerStatus, PodStatus } from '../api/pod-status.ts';
import type { Pod, PodSpec } from '../api/pod.ts';
import type { Volume } from '../api/pod-volume.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from './names.ts';
import { ipFamily } from './network.ts';
import { validateLabels } from './objectmeta.ts';
import { validateQualifiedName } from './qualified-name.ts';
import { validateResourceQuantityValue } from './resource-quantity.ts';
import { validateLocalDescendingPath, validateVolumes } from './volume.ts';

const inclusiveRange = (low: number, high: number): string => `must be between ${low} and ${high}, inclusive`;
const maxInt32 = 2 ** 31 - 1;

/** Upstream's IsValidPortNum message. */
const portRangeMessage = inclusiveRange(1, 65535);

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

/** IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation, on by default in 1.32). */
export function envVarNameProblems(name: string): string[] {
  const problems: string[] = [];
  if (!/^[ -<>-~]+$/.test(name)) problems.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
  return problems;
}

const supportedProtocols = ['SCTP', 'TCP', 'UDP'];

function validateContainerPorts(ports: readonly ContainerPort[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = path.index(i);
    const name = port.name ?? '';
    if (name) {
      for (const msg of portNameProblems(name)) errors.push(invalid(at.child('name'), name, msg));
      if (names.has(name)) errors.push(duplicate(at.child('name'), name));
      else names.add(name);
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

function validateVolumeMounts(container: Container, volumes: ReadonlyMap<string, Volume>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const mountPaths = new Set<string>();
  (container.volumeMounts ?? []).forEach((mount, i) => {
    const at = path.index(i);
    const name = mount.name ?? '';
    if (!name) errors.push(required(at.child('name')));
    if (!volumes.has(name)) errors.push(notFound(at.child('name'), name));
    const mountPath = mount.mountPath ?? '';
    if (!mountPath) errors.push(required(at.child('mountPath')));
    if (mountPaths.has(mountPath)) errors.push(invalid(at.child('mountPath'), mountPath, 'must be unique'));
    mountPaths.add(mountPath);
    if (mount.subPathExpr) {
      if (mount.subPath) errors.push(invalid(at.child('subPathExpr'), mount.subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      append(errors, validateLocalDescendingPath(mount.subPathExpr, at.child('subPathExpr')));
    }
    if (mount.subPath) append(errors, validateLocalDescendingPath(mount.subPath, at.child('subPath')));
    const propagation = mount.mountPropagation;
    if (propagation !== undefined) {
      const supported = ['Bidirectional', 'HostToContainer', 'None'];
      if (!supported.includes(propagation)) errors.push(notSupported(at.child('mountPropagation'), propagation, supported));
      else if (propagation === 'Bidirectional' && container.securityContext?.privileged !== true)
        errors.push(forbidden(at.child('mountPropagation'), 'Bidirectional mount propagation is available only to privileged containers'));
    }
  });
  return errors;
}

function validateVolumeDevices(container: Container, volumes: ReadonlyMap<string, Volume>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const devicePaths = new Set<string>();
  const mounted = new Map((container.volumeMounts ?? []).map((m) => [m.name ?? '', m.mountPath ?? '']));
  (container.volumeDevices ?? []).forEach((device, i) => {
    const at = path.index(i);
    const name = device.name ?? '';
    const devicePath = device.devicePath ?? '';
    if (!name) errors.push(required(at.child('name')));
    const volume = volumes.get(name);
    if (!volume) errors.push(notFound(at.child('name'), name));
    else if (!volume.persistentVolumeClaim && !volume.ephemeral)
      errors.push(invalid(at.child('name'), name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'));
    if (!devicePath) errors.push(required(at.child('devicePath')));
    if (devicePaths.has(devicePath)) errors.push(invalid(at.child('devicePath'), devicePath, 'must be unique'));
    if (devicePath && validateLocalDescendingPath(devicePath, at.child('devicePath')).length === 0)
      errors.push(invalid(at.child('devicePath'), devicePath, 'must be an absolute path'));
    devicePaths.add(devicePath);
    if (mounted.has(name)) errors.push(invalid(at.child('name'), name, 'must not already exist in volumeMounts'));
    if ([...mounted.values()].includes(devicePath))
      errors.push(invalid(at.child('devicePath'), devicePath, 'must not already exist as a path in volumeMounts'));
  });
  return errors;
}

const standardContainerResources = new Set(['cpu', 'memory', 'ephemeral-storage']);

/** validateContainerResourceName: qualified, and standard for containers or an extended resource. */
function validateContainerResourceName(name: string, path: FieldPath): FieldError[] {
  const errors = isQualifiedName(name).map((msg) => invalid(path, name, msg));
  if (!name.includes('/')) {
    if (!standardContainerResources.has(name) && !name.startsWith('hugepages-')) errors.push(invalid(path, name, 'must be a standard resource for containers'));
  } else if (!name.includes('kubernetes.io/') && isQualifiedName(`requests.${name}`).length > 0) {
    errors.push(invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errors;
}

function validateResources(resources: ResourceRequirements | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const limits = resources?.limits ?? {};
  const requests = resources?.requests ?? {};
  for (const [name, quantity] of Object.entries(limits)) {
    const at = path.child('limits').key(name);
    append(errors, validateContainerResourceName(name, at));
    append(errors, validateResourceQuantityValue(name, quantity, at));
  }
  for (const [name, quantity] of Object.entries(requests)) {
    const at = path.child('requests').key(name);
    append(errors, validateContainerResourceName(name, at));
    append(errors, validateResourceQuantityValue(name, quantity, at));
    const limit = limits[name];
    if (limit === undefined) continue;
    const request = parseQuantity(quantity);
    const max = parseQuantity(limit);
    if (request !== null && max !== null && request > max)
      errors.push(invalid(at, String(quantity), `must be less than or equal to ${name} limit of ${String(limit)}`));
  }
  return errors;
}

const pullPolicies = ['Always', 'IfNotPresent', 'Never'];

/** validateContainerCommon and the rules of regular containers, for one container. */
function validateContainer(container: Container, volumes: ReadonlyMap<string, Volume>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const image = container.image ?? '';
  if (!image) errors.push(required(path.child('image')));
  else if (image.trim() !== image) errors.push(invalid(path.child('image'), image, 'must not have leading or trailing whitespace'));
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
  append(errors, validateVolumeMounts(container, volumes, path.child('volumeMounts')));
  append(errors, validateVolumeDevices(container, volumes, path.child('volumeDevices')));
  const pullPolicy = container.imagePullPolicy ?? '';
  if (!pullPolicy) errors.push(required(path.child('imagePullPolicy')));
  else if (!pullPolicies.includes(pullPolicy)) errors.push(notSupported(path.child('imagePullPolicy'), pullPolicy, pullPolicies));
  append(errors, validateResources(container.resources, path.child('resources')));
  return errors;
}

/** Containers of one list; `names` holds the names of every list seen so far (unique across the pod). */
function validateContainers(containers: readonly Container[], volumes: ReadonlyMap<string, Volume>, names: Set<string>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  containers.forEach((container, i) => {
    const at = path.index(i);
    const name = container.name ?? '';
    if (!name) errors.push(required(at.child('name')));
    else for (const msg of isDNS1123Label(name)) errors.push(invalid(at.child('name'), name, msg));
    if (names.has(name)) errors.push(duplicate(at.child('name'), name));
    else names.add(name);
    append(errors, validateContainer(container, volumes, at));
  });
  return errors;
}

function validateRestartPolicy(policy: string | undefined, path: FieldPath): FieldError[] {
  switch (policy ?? '') {
    case 'Always':
    case 'OnFailure':
    case 'Never':
      return [];
    case '':
      return [required(path)];
    default:
      return [notSupported(path, policy, ['Always', 'OnFailure', 'Never'])];
  }
}

function validateDNSPolicy(policy: string | undefined, path: FieldPath): FieldError[] {
  switch (policy ?? '') {
    case 'ClusterFirstWithHostNet':
    case 'ClusterFirst':
    case 'Default':
    case 'None':
      return [];
    case '':
      return [required(path)];
    default:
      return [notSupported(path, policy, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'])];
  }
}

const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** validateTolerations. */
export function validateTolerations(tolerations: readonly Toleration[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  tolerations.forEach((toleration, i) => {
    const at = path.index(i);
    const key = toleration.key ?? '';
    const operator = toleration.operator ?? '';
    if (key) append(errors, validateQualifiedName(key, at.child('key')));
    if (!key && operator !== 'Exists')
      errors.push(invalid(at.child('operator'), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    if (toleration.tolerationSeconds !== undefined && toleration.effect !== 'NoExecute')
      errors.push(invalid(at.child('effect'), toleration.effect ?? '', "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    switch (operator) {
      case '':
      case 'Equal':
        for (const msg of isValidLabelValue(toleration.value ?? '')) errors.push(invalid(at.child('operator'), toleration.value ?? '', msg));
        break;
      case 'Exists':
        if (toleration.value) errors.push(invalid(at.child('operator'), toleration, "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errors.push(notSupported(at.child('operator'), operator, ['Equal', 'Exists']));
    }
    const effect = toleration.effect ?? '';
    if (effect && !taintEffects.includes(effect)) errors.push(notSupported(at.child('effect'), effect, taintEffects));
  });
  return errors;
}

/**
 * ValidatePodSpec: the spec at `path` (`spec` for a pod). `podName` checks the names of the claims
 * ephemeral volumes create; leave it out where the name is not known yet.
 */
export function validatePodSpec(spec: PodSpec, path: FieldPath, podName?: string): FieldError[] {
  const { names: volumes, errors } = validateVolumes(spec.volumes ?? [], path.child('volumes'), podName);
  const containerNames = new Set<string>();
  append(errors, validateContainers(spec.initContainers ?? [], volumes, containerNames, path.child('initContainers')));
  const containers = spec.containers ?? [];
  if (containers.length === 0) errors.push(required(path.child('containers')));
  append(errors, validateContainers(containers, volumes, containerNames, path.child('containers')));
  append(errors, validateRestartPolicy(spec.restartPolicy, path.child('restartPolicy')));
  append(errors, validateDNSPolicy(spec.dnsPolicy, path.child('dnsPolicy')));
  append(errors, validateLabels(spec.nodeSelector, path.child('nodeSelector')));
  const serviceAccount = spec.serviceAccountName ?? '';
  if (serviceAccount) for (const msg of isDNS1123Subdomain(serviceAccount)) errors.push(invalid(path.child('serviceAccountName'), serviceAccount, msg));
  const nodeName = spec.nodeName ?? '';
  if (nodeName) for (const msg of isDNS1123Subdomain(nodeName)) errors.push(invalid(path.child('nodeName'), nodeName, msg));
  if (spec.activeDeadlineSeconds !== undefined) {
    const value = spec.activeDeadlineSeconds;
    if (value < 1 || value > maxInt32) errors.push(invalid(path.child('activeDeadlineSeconds'), value, inclusiveRange(1, maxInt32)));
  }
  if (spec.terminationGracePeriodSeconds !== undefined && spec.terminationGracePeriodSeconds < 0)
    errors.push(invalid(path.child('terminationGracePeriodSeconds'), spec.terminationGracePeriodSeconds, 'must be greater than or equal to 0'));
  if (spec.hostname) for (const msg of isDNS1123Label(spec.hostname)) errors.push(invalid(path.child('hostname'), spec.hostname, msg));
  if (spec.subdomain) for (const msg of isDNS1123Label(spec.subdomain)) errors.push(invalid(path.child('subdomain'), spec.subdomain, msg));
  append(errors, validateTolerations(spec.tolerations ?? [], path.child('tolerations')));
  return errors;
}

/**
 * The kind-specific validation of a new pod (ValidatePodCreate without the generic metadata checks,
 * which the API server's store runs): its spec, and no status beyond what create clears. The node
 * agent runs it on static pods, defaulted first (applyPodDefaults).
 */
export function validatePodCreate(pod: Pod): FieldError[] {
  return validatePodSpec(pod.spec ?? {}, FieldPath.root('spec'), pod.metadata.name);
}

/** Upstream's list of what a pod update may change, in its words. */
export const podUpdatableFields =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** Where two specs differ, one line per top-level field (upstream prints a go-cmp diff instead). */
function specDiff(old: PodSpec, next: PodSpec): string {
  const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])].sort();
  const lines: string[] = [];
  for (const key of keys) {
    const a = (old as Record<string, unknown>)[key];
    const b = (next as Record<string, unknown>)[key];
    if (isDeepStrictEqual(a, b)) continue;
    lines.push(`-  ${key}: ${JSON.stringify(a)}`, `+  ${key}: ${JSON.stringify(b)}`);
  }
  return lines.join('\n');
}

/** Every old toleration is still there, unchanged but for tolerationSeconds (validateOnlyAddedTolerations). */
function validateOnlyAddedTolerations(next: readonly Toleration[], old: readonly Toleration[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const strip = (t: Toleration): Toleration => ({ key: t.key ?? '', operator: t.operator ?? '', value: t.value ?? '', effect: t.effect ?? '' });
  old.forEach((oldToleration, i) => {
    const kept = next.some((t) => isDeepStrictEqual(strip(t), strip(oldToleration)));
    if (!kept) errors.push(forbidden(path.index(i), 'existing toleration can not be modified except its tolerationSeconds'));
  });
  return errors;
}

/**
 * ValidatePodUpdate without the generic metadata checks: the new spec is valid, and only images,
 * activeDeadlineSeconds (set once, then only shortened), added tolerations and a negative
 * terminationGracePeriodSeconds turned to 1 may change.
 */
export function validatePodUpdate(pod: Pod, old: Pod): FieldError[] {
  const specPath = FieldPath.root('spec');
  const spec = pod.spec ?? {};
  const oldSpec = old.spec ?? {};
  const errors = validatePodSpec(spec, specPath, pod.metadata.name);
  const deadlinePath = specPath.child('activeDeadlineSeconds');
  if (spec.activeDeadlineSeconds !== undefined) {
    const value = spec.activeDeadlineSeconds;
    if (value < 0 || value > maxInt32) return [...errors, invalid(deadlinePath, value, inclusiveRange(0, maxInt32))];
    if (oldSpec.activeDeadlineSeconds !== undefined && oldSpec.activeDeadlineSeconds < value)
      return [...errors, invalid(deadlinePath, value, 'must be less than or equal to previous value')];
  } else if (oldSpec.activeDeadlineSeconds !== undefined) {
    errors.push(invalid(deadlinePath, null, 'must not update from a positive integer to nil value'));
  }
  if ((spec.containers ?? []).length !== (oldSpec.containers ?? []).length) {
    errors.push(forbidden(specPath.child('containers'), 'pod updates may not add or remove containers'));
    return errors;
  }
  // Carry what may change from the new spec into a copy of the old, then compare.
  const munged: PodSpec = structuredClone(oldSpec);
  const copyImages = (to: Container[] | undefined, from: Container[] | undefined): void =>
    to?.forEach((c, i) => {
      const image = from?.[i]?.image;
      if (image !== undefined) c.image = image;
      else delete c.image;
    });
  copyImages(munged.containers, spec.containers);
  copyImages(munged.initContainers, spec.initContainers);
  if (spec.activeDeadlineSeconds !== undefined) munged.activeDeadlineSeconds = spec.activeDeadlineSeconds;
  else delete munged.activeDeadlineSeconds;
  if (spec.tolerations !== undefined) munged.tolerations = spec.tolerations;
  else delete munged.tolerations;
  if ((oldSpec.terminationGracePeriodSeconds ?? 0) < 0 && spec.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = 1;
  append(errors, validateOnlyAddedTolerations(spec.tolerations ?? [], oldSpec.tolerations ?? [], specPath.child('tolerations')));
  if (!isDeepStrictEqual(munged, spec)) errors.push(forbidden(specPath, `${podUpdatableFields}\n${specDiff(munged, spec)}`));
  return errors;
}

function validateIPs(entries: readonly { ip?: string }[] | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const list = entries ?? [];
  const families = new Set<number>();
  list.forEach((entry, i) => {
    const ip = entry.ip ?? '';
    const family = ipFamily(ip);
    if (!family) errors.push(invalid(path.index(i), ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    else families.add(family);
  });
  if (list.length > 2 || (list.length === 2 && families.size === 1)) errors.push(invalid(path, list, 'may specify no more than one IP for each IP family'));
  const ips = list.map((e) => e.ip ?? '');
  ips.forEach((ip, i) => {
    if (ips.indexOf(ip) !== i) errors.push(duplicate(path.index(i), ip));
  });
  return errors;
}

/** Containers that terminated under restartPolicy Never may not run again (validateContainerStatusNoAllocatedResourcesStatus aside). */
function validateTerminatedStatuses(next: readonly ContainerStatus[], old: readonly ContainerStatus[], path: FieldPath, restartPolicy: string): FieldError[] {
  const errors: FieldError[] = [];
  if (restartPolicy !== 'Never') return errors;
  next.forEach((status, i) => {
    const previous = old.find((o) => o.name === status.name);
    if (previous?.state?.terminated && !status.state?.terminated)
      errors.push(forbidden(path.index(i).child('state'), 'may not be transitioned to non-terminated state'));
  });
  return errors;
}

/**
 * ValidatePodStatusUpdate without the generic metadata checks: nominatedNodeName, the pod and host
 * IPs, and no container of a never-restarting pod running again.
 */
export function validatePodStatusUpdate(pod: Pod, old: Pod): FieldError[] {
  const errors: FieldError[] = [];
  const statusPath = FieldPath.root('status');
  const status: PodStatus = pod.status ?? {};
  const oldStatus: PodStatus = old.status ?? {};
  const nominated = status.nominatedNodeName ?? '';
  if (nominated) for (const msg of isDNS1123Subdomain(nominated)) errors.push(invalid(statusPath.child('nominatedNodeName'), nominated, msg));
  const restartPolicy = pod.spec?.restartPolicy ?? '';
  append(
    errors,
    validateTerminatedStatuses(status.containerStatuses ?? [], oldStatus.containerStatuses ?? [], statusPath.child('containerStatuses'), restartPolicy),
  );
  append(
    errors,
    validateTerminatedStatuses(
      status.initContainerStatuses ?? [],
      oldStatus.initContainerStatuses ?? [],
      statusPath.child('initContainerStatuses'),
      restartPolicy,
    ),
  );
  append(errors, validateIPs(status.podIPs, statusPath.child('podIPs')));
  append(errors, validateIPs(status.hostIPs, statusPath.child('hostIPs')));
  return errors;
}
