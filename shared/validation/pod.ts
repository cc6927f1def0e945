/**
 * Upstream's validation of a core/v1 Pod (ValidatePodSpec, ValidatePodCreate's spec part,
 * ValidatePodUpdate and ValidatePodStatusUpdate) with upstream's field paths and messages, on a
 * defaulted pod (pod-defaults.ts). The API server adds the generic metadata checks (the store);
 * the node agent calls validatePodCreate on static pods, the same code the server runs.
 *
 * The spec's parts live beside this file: containers (pod-container.ts, with pod-ports.ts,
 * pod-probes.ts, pod-resources.ts and pod-security-context.ts), volumes (volume.ts), affinity
 * (pod-affinity.ts), topology spread (pod-topology-spread.ts), DNS config and host aliases
 * (pod-dns.ts), the operating system (pod-os.ts). Not covered: the pod-specific annotations
 * (mirror pod, seccomp and AppArmor annotations against the fields), service account token volumes
 * of a pod without a service account, privileged containers under a cluster policy that forbids
 * them, the mutations a gated pod may make to its node selector and affinity on update, and the
 * alpha features off in 1.32 (pod-level resources, relaxed DNS search validation, zero-second
 * sleep actions).
 */
import { isDeepStrictEqual } from 'node:util';
import { append } from '../api/append.ts';
import { FieldPath, duplicate, forbidden, invalid, notSupported, required, type FieldError } from '../api/field.ts';
import type { Container } from '../api/pod-container.ts';
import type { Toleration } from '../api/pod-scheduling.ts';
import type { ContainerStatus, PodStatus } from '../api/pod-status.ts';
import type { Pod, PodSpec } from '../api/pod.ts';
import { isDNS1123Label, isDNS1123Subdomain, isValidLabelValue } from './names.ts';
import { ipFamily } from './network.ts';
import { validateLabels } from './objectmeta.ts';
import { validateAffinity } from './pod-affinity.ts';
import { validateContainers, validateEphemeralContainers, validateImageWhitespace, validateInitContainers, type ContainerContext } from './pod-container.ts';
import { validateHostAliases, validatePodDNSConfig } from './pod-dns.ts';
import { validatePodOS, validateWindowsHostProcessPod } from './pod-os.ts';
import { validateHostNetworkPorts } from './pod-ports.ts';
import { podClaimNames, validateOverhead, validatePodResourceClaims } from './pod-resources.ts';
import { validateHostUsers, validatePodSecurityContext } from './pod-security-context.ts';
import { validateTopologySpreadConstraints } from './pod-topology-spread.ts';
import { validateQualifiedName } from './qualified-name.ts';
import { validateVolumes } from './volume.ts';

export { portNameProblems } from './pod-ports.ts';
export { envVarNameProblems } from './pod-container.ts';

const inclusiveRange = (low: number, high: number): string => `must be between ${low} and ${high}, inclusive`;
const maxInt32 = 2 ** 31 - 1;

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

/** validateImagePullSecrets: a reference holds its name only. */
function validateImagePullSecrets(secrets: PodSpec['imagePullSecrets'], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  (secrets ?? []).forEach((secret, i) => {
    if (Object.entries(secret).some(([key, value]) => key !== 'name' && value !== undefined && value !== null))
      errors.push(invalid(path.index(i), secret, 'only name may be set'));
  });
  return errors;
}

/** validateReadinessGates and validateSchedulingGates: qualified names, gates once each. */
function validateGates(spec: PodSpec, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  (spec.readinessGates ?? []).forEach((gate, i) =>
    append(errors, validateQualifiedName(gate.conditionType ?? '', path.child('readinessGates').index(i).child('conditionType'))),
  );
  const seen = new Set<string>();
  (spec.schedulingGates ?? []).forEach((gate, i) => {
    const name = gate.name ?? '';
    const at = path.child('schedulingGates').index(i);
    append(errors, validateQualifiedName(name, at));
    if (seen.has(name)) errors.push(duplicate(at, name));
    seen.add(name);
  });
  return errors;
}

const preemptionPolicies = ['PreemptLowerPriority', 'Never'];

/** The fields ValidatePodSpec checks last: names, deadlines, tolerations, host aliases, classes, overhead and the OS. */
function validatePodSpecFields(spec: PodSpec, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const serviceAccount = spec.serviceAccountName ?? '';
  if (serviceAccount) for (const msg of isDNS1123Subdomain(serviceAccount)) errors.push(invalid(path.child('serviceAccountName'), serviceAccount, msg));
  const nodeName = spec.nodeName ?? '';
  if (nodeName) for (const msg of isDNS1123Subdomain(nodeName)) errors.push(invalid(path.child('nodeName'), nodeName, msg));
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null) {
    const value = spec.activeDeadlineSeconds;
    if (value < 1 || value > maxInt32) errors.push(invalid(path.child('activeDeadlineSeconds'), value, inclusiveRange(1, maxInt32)));
  }
  if (spec.terminationGracePeriodSeconds !== undefined && spec.terminationGracePeriodSeconds < 0)
    errors.push(invalid(path.child('terminationGracePeriodSeconds'), spec.terminationGracePeriodSeconds, 'must be greater than or equal to 0'));
  if (spec.hostname) for (const msg of isDNS1123Label(spec.hostname)) errors.push(invalid(path.child('hostname'), spec.hostname, msg));
  if (spec.subdomain) for (const msg of isDNS1123Label(spec.subdomain)) errors.push(invalid(path.child('subdomain'), spec.subdomain, msg));
  append(errors, validateTolerations(spec.tolerations ?? [], path.child('tolerations')));
  append(errors, validateHostAliases(spec.hostAliases, path.child('hostAliases')));
  const priorityClass = spec.priorityClassName ?? '';
  if (priorityClass) for (const msg of isDNS1123Subdomain(priorityClass)) errors.push(invalid(path.child('priorityClassName'), priorityClass, msg));
  const runtimeClass = spec.runtimeClassName ?? undefined;
  if (runtimeClass !== undefined) for (const msg of isDNS1123Subdomain(runtimeClass)) errors.push(invalid(path.child('runtimeClassName'), runtimeClass, msg));
  const preemption = spec.preemptionPolicy ?? undefined;
  if (preemption === '') errors.push(required(path.child('preemptionPolicy')));
  else if (preemption !== undefined && !preemptionPolicies.includes(preemption))
    errors.push(notSupported(path.child('preemptionPolicy'), preemption, preemptionPolicies));
  if (spec.overhead) append(errors, validateOverhead(spec.overhead, path.child('overhead')));
  append(errors, validatePodOS(spec, path));
  return errors;
}

/**
 * ValidatePodSpec: the spec at `path` (`spec` for a pod), in upstream's order. `podName` checks the
 * names of the claims ephemeral volumes create; leave it out where the name is not known yet.
 */
export function validatePodSpec(spec: PodSpec, path: FieldPath, podName?: string): FieldError[] {
  const { names: volumes, errors } = validateVolumes(spec.volumes ?? [], path.child('volumes'), podName);
  const restartPolicy = spec.restartPolicy ?? '';
  const context: ContainerContext = {
    volumes,
    claimNames: podClaimNames(spec),
    gracePeriod: spec.terminationGracePeriodSeconds ?? undefined,
    restartPolicy,
    hostUsers: spec.hostUsers !== false,
  };
  append(errors, validatePodResourceClaims(spec.resourceClaims, path.child('resourceClaims')));
  append(errors, validateContainers(spec.containers ?? [], context, path.child('containers')));
  append(errors, validateInitContainers(spec, context, path.child('initContainers')));
  append(errors, validateEphemeralContainers(spec, context, path.child('ephemeralContainers')));
  append(errors, validateHostNetworkPorts(spec, path));
  append(errors, validateRestartPolicy(spec.restartPolicy, path.child('restartPolicy')));
  append(errors, validateDNSPolicy(spec.dnsPolicy, path.child('dnsPolicy')));
  append(errors, validateLabels(spec.nodeSelector, path.child('nodeSelector')));
  append(errors, validatePodSecurityContext(spec, path.child('securityContext')));
  append(errors, validateImagePullSecrets(spec.imagePullSecrets, path.child('imagePullSecrets')));
  append(errors, validateAffinity(spec.affinity, path.child('affinity')));
  append(errors, validatePodDNSConfig(spec, path.child('dnsConfig')));
  append(errors, validateGates(spec, path));
  append(errors, validateTopologySpreadConstraints(spec.topologySpreadConstraints ?? [], path.child('topologySpreadConstraints')));
  append(errors, validateWindowsHostProcessPod(spec, path));
  append(errors, validateHostUsers(spec, path));
  append(errors, validatePodSpecFields(spec, path));
  return errors;
}

/** The spec and what upstream checks of pods only (validatePodMetadataAndSpec's spec part): images without surrounding whitespace. */
function validatePodMetadataAndSpec(pod: Pod): FieldError[] {
  const spec = pod.spec ?? {};
  const specPath = FieldPath.root('spec');
  const errors = validatePodSpec(spec, specPath, pod.metadata.name);
  (spec.containers ?? []).forEach((c, i) => append(errors, validateImageWhitespace(c, specPath.child('containers').index(i))));
  (spec.initContainers ?? []).forEach((c, i) => append(errors, validateImageWhitespace(c, specPath.child('initContainers').index(i))));
  return errors;
}

/**
 * The kind-specific validation of a new pod (ValidatePodCreate without the generic metadata checks,
 * which the API server's store runs): its spec, no ephemeral containers (only their subresource
 * adds them), and no node while scheduling gates remain. The node agent runs it on static pods,
 * defaulted first (applyPodDefaults).
 */
export function validatePodCreate(pod: Pod): FieldError[] {
  const errors = validatePodMetadataAndSpec(pod);
  const spec = pod.spec ?? {};
  const specPath = FieldPath.root('spec');
  if ((spec.ephemeralContainers ?? []).length > 0) errors.push(forbidden(specPath.child('ephemeralContainers'), 'cannot be set on create'));
  if (spec.nodeName && (spec.schedulingGates ?? []).length > 0)
    errors.push(forbidden(specPath.child('nodeName'), 'cannot be set until all schedulingGates have been cleared'));
  return errors;
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

/** validateOnlyDeletedSchedulingGates: an update may remove scheduling gates, never add one. */
function validateOnlyDeletedSchedulingGates(next: readonly { name?: string }[], old: readonly { name?: string }[], path: FieldPath): FieldError[] {
  const added = new Map<string, number>();
  next.forEach((gate, i) => added.set(gate.name ?? '', i));
  for (const gate of old) added.delete(gate.name ?? '');
  return [...added].map(([name, i]) => forbidden(path.index(i).child('name'), `only deletion is allowed, but found new scheduling gate '${name}'`));
}

/**
 * ValidatePodUpdate without the generic metadata checks: the new spec is valid, and only images,
 * activeDeadlineSeconds (set once, then only shortened), added tolerations, removed scheduling
 * gates and a negative terminationGracePeriodSeconds turned to 1 may change.
 */
export function validatePodUpdate(pod: Pod, old: Pod): FieldError[] {
  const specPath = FieldPath.root('spec');
  const spec = pod.spec ?? {};
  const oldSpec = old.spec ?? {};
  const errors = validatePodMetadataAndSpec(pod);
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
  if (spec.schedulingGates !== undefined) munged.schedulingGates = spec.schedulingGates;
  else delete munged.schedulingGates;
  if ((oldSpec.terminationGracePeriodSeconds ?? 0) < 0 && spec.terminationGracePeriodSeconds === 1) munged.terminationGracePeriodSeconds = 1;
  append(errors, validateOnlyAddedTolerations(spec.tolerations ?? [], oldSpec.tolerations ?? [], specPath.child('tolerations')));
  append(errors, validateOnlyDeletedSchedulingGates(spec.schedulingGates ?? [], oldSpec.schedulingGates ?? [], specPath.child('schedulingGates')));
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
