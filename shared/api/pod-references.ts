/**
 * The objects of its namespace a pod refers to (upstream's VisitPodSecretNames,
 * VisitPodConfigmapNames and the claims of its volumes): the Node authorizer lets a node read
 * exactly these for the pods bound to it, NodeRestriction forbids mirror pods any of them, and the
 * node agent fetches them to run the pod. Every container list counts, ephemeral containers too.
 */
import type { Container, EphemeralContainer } from './pod-container.ts';
import type { Pod } from './pod.ts';

export interface PodReferences {
  secrets: Set<string>;
  configMaps: Set<string>;
  persistentVolumeClaims: Set<string>;
  /** spec.serviceAccountName, when set. */
  serviceAccount?: string;
}

type Fields = Record<string, unknown>;
const fieldsOf = (value: unknown): Fields | undefined => (typeof value === 'object' && value !== null ? (value as Fields) : undefined);
const nameOf = (ref: unknown, key = 'name'): string => {
  const value = fieldsOf(ref)?.[key];
  return typeof value === 'string' ? value : '';
};

/** Volume sources that name a Secret in a local reference, as upstream visits them. */
const secretRefSources = ['cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos'];

export function podReferences(pod: Pod): PodReferences {
  const refs: PodReferences = { secrets: new Set(), configMaps: new Set(), persistentVolumeClaims: new Set() };
  const add = (set: Set<string>, name: string): void => {
    if (name) set.add(name);
  };
  const spec = pod.spec ?? {};
  for (const secret of spec.imagePullSecrets ?? []) add(refs.secrets, secret.name ?? '');
  const containers: (Container | EphemeralContainer)[] = [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
  for (const container of containers) {
    for (const source of container.envFrom ?? []) {
      add(refs.secrets, source.secretRef?.name ?? '');
      add(refs.configMaps, source.configMapRef?.name ?? '');
    }
    for (const env of container.env ?? []) {
      add(refs.secrets, env.valueFrom?.secretKeyRef?.name ?? '');
      add(refs.configMaps, env.valueFrom?.configMapKeyRef?.name ?? '');
    }
  }
  for (const volume of spec.volumes ?? []) {
    add(refs.secrets, volume.secret?.secretName ?? '');
    add(refs.configMaps, volume.configMap?.name ?? '');
    add(refs.secrets, nameOf(volume.azureFile, 'secretName'));
    for (const source of secretRefSources) add(refs.secrets, nameOf(fieldsOf(volume[source])?.secretRef));
    add(refs.secrets, volume.csi?.nodePublishSecretRef?.name ?? '');
    for (const projection of volume.projected?.sources ?? []) {
      add(refs.secrets, projection.secret?.name ?? '');
      add(refs.configMaps, projection.configMap?.name ?? '');
    }
    add(refs.persistentVolumeClaims, volume.persistentVolumeClaim?.claimName ?? '');
    // An ephemeral volume's claim is named after the pod and the volume.
    if (volume.ephemeral && pod.metadata.name && volume.name) add(refs.persistentVolumeClaims, `${pod.metadata.name}-${volume.name}`);
  }
  if (spec.serviceAccountName) refs.serviceAccount = spec.serviceAccountName;
  return refs;
}
