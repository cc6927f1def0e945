/**
 * Upstream's defaulting of a core/v1 Pod (SetDefaults_Pod, SetDefaults_PodSpec and the defaults of
 * the types a pod holds, declarative `+default` markers included), applied in place. The API server
 * runs it on create and update before validation; the node agent runs it on static pods before it
 * validates them, as the kubelet does, so that both see the same pod.
 *
 * Not done: rounding quantities up to milli precision, and the defaults of alpha features that are
 * off in 1.32 (pod-level resources, image volumes' pull policy).
 */
import type { Container, Handler, Probe } from './pod-container.ts';
import type { Pod, PodSpec } from './pod.ts';
import type { Volume } from './pod-volume.ts';

export const defaultTerminationGracePeriodSeconds = 30;
export const defaultSchedulerName = 'default-scheduler';
export const terminationMessagePathDefault = '/dev/termination-log';
/** 0644, the mode of files in configMap, secret, downwardAPI and projected volumes. */
export const defaultVolumeFileMode = 0o644;
export const defaultServiceAccountTokenExpirationSeconds = 3600;

/**
 * The tag of an image reference as upstream's ParseImageName reads it: `latest` when neither a tag
 * nor a digest is given, '' when there is a digest only or the reference does not parse.
 */
export function imageTag(image: string): string {
  // A Docker reference: [domain/]path[:tag][@digest]; path components are lower case.
  const match =
    /^(?:((?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?)\/)?([a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*)(?::([\w][\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$/.exec(
      image,
    );
  if (!match) return '';
  const [, , , tag, digest] = match;
  if (tag) return tag;
  return digest ? '' : 'latest';
}

/** Always for `:latest` or no tag, IfNotPresent otherwise (upstream's SetDefaults_Container). */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  return imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultHandler(handler: Handler | undefined): void {
  const get = handler?.httpGet;
  if (!get) return;
  get.path ||= '/';
  get.scheme ||= 'HTTP';
}

function defaultProbe(probe: Probe | undefined): void {
  if (!probe) return;
  defaultHandler(probe);
  probe.timeoutSeconds ||= 1;
  probe.periodSeconds ||= 10;
  probe.successThreshold ||= 1;
  probe.failureThreshold ||= 3;
}

function defaultContainer(container: Container, hostNetwork: boolean, requestsFromLimits: boolean): void {
  container.imagePullPolicy ||= defaultPullPolicy(container.image ?? '');
  container.terminationMessagePath ||= terminationMessagePathDefault;
  container.terminationMessagePolicy ||= 'File';
  for (const port of container.ports ?? []) {
    port.protocol ||= 'TCP';
    if (hostNetwork && !port.hostPort) port.hostPort = port.containerPort ?? 0;
  }
  for (const env of container.env ?? []) {
    const fieldRef = env.valueFrom?.fieldRef;
    if (fieldRef) fieldRef.apiVersion ||= 'v1';
  }
  defaultProbe(container.livenessProbe);
  defaultProbe(container.readinessProbe);
  defaultProbe(container.startupProbe);
  defaultHandler(container.lifecycle?.postStart);
  defaultHandler(container.lifecycle?.preStop);
  const resources = container.resources;
  if (requestsFromLimits && resources?.limits) {
    // Requests default to limits, resource by resource (SetDefaults_Pod, not for pod templates).
    resources.requests ??= {};
    for (const [name, value] of Object.entries(resources.limits)) if (!Object.hasOwn(resources.requests, name)) resources.requests[name] = value;
  }
}

const volumeSourceKeys = (volume: Volume): string[] => Object.keys(volume).filter((key) => key !== 'name' && volume[key] !== undefined && volume[key] !== null);

function defaultVolume(volume: Volume): void {
  if (volumeSourceKeys(volume).length === 0) volume.emptyDir = {};
  if (volume.hostPath) volume.hostPath.type ??= '';
  if (volume.secret) volume.secret.defaultMode ??= defaultVolumeFileMode;
  if (volume.configMap) volume.configMap.defaultMode ??= defaultVolumeFileMode;
  if (volume.downwardAPI) volume.downwardAPI.defaultMode ??= defaultVolumeFileMode;
  if (volume.projected) {
    volume.projected.defaultMode ??= defaultVolumeFileMode;
    for (const source of volume.projected.sources ?? []) {
      if (source.serviceAccountToken) source.serviceAccountToken.expirationSeconds ??= defaultServiceAccountTokenExpirationSeconds;
      for (const item of source.downwardAPI?.items ?? []) if (item.fieldRef) item.fieldRef.apiVersion ||= 'v1';
    }
  }
  for (const item of volume.downwardAPI?.items ?? []) if (item.fieldRef) item.fieldRef.apiVersion ||= 'v1';
  const iscsi = volume.iscsi;
  if (iscsi) iscsi.iscsiInterface ||= 'default';
  const rbd = volume.rbd as { pool?: string; user?: string; keyring?: string } | undefined;
  if (rbd) {
    rbd.pool ||= 'rbd';
    rbd.user ||= 'admin';
    rbd.keyring ||= '/etc/ceph/keyring';
  }
  const scaleIO = volume.scaleIO as { storageMode?: string; fsType?: string } | undefined;
  if (scaleIO) {
    scaleIO.storageMode ||= 'ThinProvisioned';
    scaleIO.fsType ||= 'xfs';
  }
  const azureDisk = volume.azureDisk as { cachingMode?: string; fsType?: string; readOnly?: boolean; kind?: string } | undefined;
  if (azureDisk) {
    azureDisk.cachingMode ??= 'ReadWrite';
    azureDisk.fsType ??= 'ext4';
    azureDisk.readOnly ??= false;
    azureDisk.kind ??= 'Shared';
  }
  const claimSpec = volume.ephemeral?.volumeClaimTemplate?.spec;
  if (claimSpec) claimSpec.volumeMode ??= 'Filesystem';
}

/**
 * SetDefaults_PodSpec and the defaults of what a spec holds; `isPod` adds SetDefaults_Pod's
 * container rules (requests from limits, host ports under hostNetwork), which pod templates lack.
 */
export function applyPodSpecDefaults(spec: PodSpec, isPod = false): void {
  spec.dnsPolicy ||= 'ClusterFirst';
  spec.restartPolicy ||= 'Always';
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= defaultTerminationGracePeriodSeconds;
  spec.schedulerName ||= defaultSchedulerName;
  const hostNetwork = spec.hostNetwork === true && isPod;
  for (const c of spec.containers ?? []) defaultContainer(c, hostNetwork, isPod);
  for (const c of spec.initContainers ?? []) defaultContainer(c, hostNetwork, isPod);
  // Ephemeral containers take neither ports nor requests from limits (their resources are forbidden).
  for (const c of spec.ephemeralContainers ?? []) defaultContainer(c, false, false);
  for (const volume of spec.volumes ?? []) defaultVolume(volume);
}

/** Upstream's defaulting of a Pod, in place: the spec's, plus what only a Pod gets (SetDefaults_Pod). */
export function applyPodDefaults(pod: Pod): void {
  pod.spec ??= {};
  applyPodSpecDefaults(pod.spec, true);
  pod.spec.enableServiceLinks ??= true;
}
