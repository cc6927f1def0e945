/**
 * Upstream's ValidateVolumes and validateVolumeSource (core validation) for the volumes of a pod:
 * names are unique DNS labels, exactly one source is set, and each source is checked by its own
 * rules. Messages and field paths are upstream's, quirks included: an extra source of a volume is
 * reported under the source's name (`cephFS`, `downwarAPI` for downwardAPI), gcePersistentDisk's
 * fields under `persistentDisk`, cephfs's under `cephfs`, a missing serviceAccountToken path under
 * the projected volume (`projected.path`), and a bad CSI secret name under `csi.name`.
 */
import { posix } from 'node:path';
import { append } from '../api/append.ts';
import { duplicate, forbidden, invalid, notSupported, required, type FieldError, type FieldPath } from '../api/field.ts';
import { parseQuantity } from '../api/quantity.ts';
import type { DownwardAPIVolumeFile, KeyToPath, PersistentVolumeClaimTemplate, Volume, VolumeSource } from '../api/pod-volume.ts';
import { validateCSIDriverName } from './csi-driver-name.ts';
import { validateLabelSelector } from './label-selector.ts';
import { isDNS1123Label, isDNS1123Subdomain } from './names.ts';
import { validateAnnotations, validateLabels } from './objectmeta.ts';

/** Upstream's fileModeErrorMsg. */
export const fileModeErrorMessage = 'must be a number between 0 and 0777 (octal), both inclusive';

const inclusiveRange = (low: number, high: number): string => `must be between ${low} and ${high}, inclusive`;

/** The volume sources in the order upstream counts them, with the name an extra one is reported under. */
const sourceOrder: readonly [key: string, reportedAs: string][] = [
  ['emptyDir', 'emptyDir'],
  ['hostPath', 'hostPath'],
  ['gitRepo', 'gitRepo'],
  ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['secret', 'secret'],
  ['nfs', 'nfs'],
  ['iscsi', 'iscsi'],
  ['glusterfs', 'glusterfs'],
  ['flocker', 'flocker'],
  ['persistentVolumeClaim', 'persistentVolumeClaim'],
  ['rbd', 'rbd'],
  ['cinder', 'cinder'],
  ['cephfs', 'cephFS'],
  ['quobyte', 'quobyte'],
  ['downwardAPI', 'downwarAPI'],
  ['fc', 'fc'],
  ['flexVolume', 'flexVolume'],
  ['configMap', 'configMap'],
  ['azureFile', 'azureFile'],
  ['vsphereVolume', 'vsphereVolume'],
  ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'],
  ['azureDisk', 'azureDisk'],
  ['storageos', 'storageos'],
  ['projected', 'projected'],
  ['scaleIO', 'scaleIO'],
  ['csi', 'csi'],
  ['ephemeral', 'ephemeral'],
  ['image', 'image'],
];

/** The sources a volume sets (Go's non-nil pointers: JSON null is unset). */
export function volumeSourcesOf(source: VolumeSource): string[] {
  return sourceOrder.map(([key]) => key).filter((key) => source[key] !== undefined && source[key] !== null);
}

type Fields = Record<string, unknown>;
const fieldsOf = (value: unknown): Fields => (typeof value === 'object' && value !== null ? (value as Fields) : {});
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** validatePathNoBacksteps: no `..` element. */
export function validatePathNoBacksteps(target: string, path: FieldPath): FieldError[] {
  return target.split('/').includes('..') ? [invalid(path, target, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath: relative, without `..` elements. */
export function validateLocalDescendingPath(target: string, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (posix.isAbsolute(target)) errors.push(invalid(path, target, 'must be a relative path'));
  return append(errors, validatePathNoBacksteps(target, path));
}

/** ValidateLocalNonReservedPath: a descending path that does not start with `..` either. */
export function validateLocalNonReservedPath(target: string, path: FieldPath): FieldError[] {
  const errors = validateLocalDescendingPath(target, path);
  if (target.startsWith('..') && !target.startsWith('../')) errors.push(invalid(path, target, "must not start with '..'"));
  return errors;
}

function validateMode(mode: number | undefined, path: FieldPath): FieldError[] {
  return mode !== undefined && (mode > 0o777 || mode < 0) ? [invalid(path, mode, fileModeErrorMessage)] : [];
}

function validateKeyToPath(item: KeyToPath, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!item.key) errors.push(required(path.child('key')));
  if (!item.path) errors.push(required(path.child('path')));
  append(errors, validateLocalNonReservedPath(item.path ?? '', path.child('path')));
  return append(errors, validateMode(item.mode, path.child('mode')));
}

const volumeFieldPaths = new Set(['metadata.name', 'metadata.namespace', 'metadata.labels', 'metadata.annotations', 'metadata.uid']);
const volumeResources = new Set(['limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage']);

/** validateObjectFieldSelector with the paths a downward API volume may read. */
function validateVolumeFieldRef(ref: Fields, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const apiVersion = str(ref.apiVersion);
  const fieldPath = str(ref.fieldPath);
  if (!apiVersion) errors.push(required(path.child('apiVersion')));
  else if (apiVersion !== 'v1') errors.push(invalid(path.child('apiVersion'), apiVersion, 'unsupported version'));
  if (!fieldPath) {
    errors.push(required(path.child('fieldPath')));
    return errors;
  }
  // Subscripted label and annotation paths (metadata.labels['x']) are allowed.
  const base = /^metadata\.(labels|annotations)\[/.test(fieldPath) ? '' : fieldPath;
  if (base && !volumeFieldPaths.has(base)) errors.push(notSupported(path.child('fieldPath'), fieldPath, [...volumeFieldPaths].sort()));
  return errors;
}

function validateDownwardAPIFile(file: DownwardAPIVolumeFile, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!file.path) errors.push(required(path.child('path')));
  append(errors, validateLocalNonReservedPath(file.path ?? '', path.child('path')));
  if (file.fieldRef) {
    append(errors, validateVolumeFieldRef(fieldsOf(file.fieldRef), path.child('fieldRef')));
    if (file.resourceFieldRef) errors.push(invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (file.resourceFieldRef) {
    const ref = file.resourceFieldRef;
    const refPath = path.child('resourceFieldRef');
    if (!ref.containerName) errors.push(required(refPath.child('containerName')));
    const resource = ref.resource ?? '';
    if (!resource) errors.push(required(refPath.child('resource')));
    else if (!volumeResources.has(resource) && !/^(limits|requests)\.hugepages-/.test(resource))
      errors.push(notSupported(refPath.child('resource'), resource, [...volumeResources].sort()));
  } else {
    errors.push(required(path, 'one of fieldRef and resourceFieldRef is required'));
  }
  return append(errors, validateMode(file.mode, path.child('mode')));
}

function validateProjected(source: Fields, path: FieldPath): FieldError[] {
  const errors = validateMode(source.defaultMode as number | undefined, path.child('defaultMode'));
  const paths = new Set<string>();
  const claimPath = (file: string, name: unknown): void => {
    if (!file) return;
    if (paths.has(file)) errors.push(invalid(path, name, 'conflicting duplicate paths'));
    else paths.add(file);
  };
  const sources = Array.isArray(source.sources) ? (source.sources as Fields[]) : [];
  sources.forEach((projection, i) => {
    const at = path.child('sources').index(i);
    let count = 0;
    for (const kind of ['secret', 'configMap'] as const) {
      const ref = projection[kind];
      if (ref === undefined || ref === null) continue;
      count++;
      const fields = fieldsOf(ref);
      if (!str(fields.name)) errors.push(required(at.child(kind, 'name')));
      const items = Array.isArray(fields.items) ? (fields.items as KeyToPath[]) : [];
      items.forEach((item, j) => {
        append(errors, validateKeyToPath(item, at.child(kind, 'items').index(j)));
        claimPath(item.path ?? '', str(fields.name));
      });
    }
    if (projection.downwardAPI !== undefined && projection.downwardAPI !== null) {
      count++;
      const files = fieldsOf(projection.downwardAPI).items;
      for (const file of Array.isArray(files) ? (files as DownwardAPIVolumeFile[]) : []) {
        append(errors, validateDownwardAPIFile(file, at.child('downwardAPI')));
        claimPath(file.path ?? '', file.path ?? '');
      }
    }
    if (projection.serviceAccountToken !== undefined && projection.serviceAccountToken !== null) {
      count++;
      const token = fieldsOf(projection.serviceAccountToken);
      // Defaulting made an absent expirationSeconds one hour.
      const expiration = typeof token.expirationSeconds === 'number' ? token.expirationSeconds : 3600;
      const expirationPath = at.child('serviceAccountToken', 'expirationSeconds');
      if (expiration < 600) errors.push(invalid(expirationPath, expiration, 'may not specify a duration less than 10 minutes'));
      if (expiration > 2 ** 32) errors.push(invalid(expirationPath, expiration, 'may not specify a duration larger than 2^32 seconds'));
      const tokenPath = str(token.path);
      if (!tokenPath) errors.push(required(path.child('path')));
      else append(errors, validateLocalNonReservedPath(tokenPath, path.child('path')));
    }
    if (projection.clusterTrustBundle !== undefined && projection.clusterTrustBundle !== null) {
      count++;
      const bundle = fieldsOf(projection.clusterTrustBundle);
      const bundlePath = at.child('clusterTrustBundlePEM');
      const byName = bundle.name !== undefined && bundle.name !== null;
      const bySigner = bundle.signerName !== undefined && bundle.signerName !== null;
      if (byName && bySigner) errors.push(invalid(bundlePath, bundle, 'only one of name and signerName may be used'));
      else if (byName) {
        if (!str(bundle.name)) errors.push(required(bundlePath.child('name'), 'must be a valid object name'));
        if (bundle.labelSelector !== undefined && bundle.labelSelector !== null)
          errors.push(invalid(bundlePath.child('labelSelector'), bundle.labelSelector, 'labelSelector must be unset if name is specified'));
      } else if (bySigner) {
        if (!str(bundle.signerName)) errors.push(required(bundlePath.child('signerName'), 'must be a valid signer name'));
      } else errors.push(required(bundlePath, 'either name or signerName must be specified'));
      const file = str(bundle.path);
      if (!file) errors.push(required(bundlePath.child('path')));
      append(errors, validateLocalNonReservedPath(file, bundlePath.child('path')));
      claimPath(file, file);
    }
    if (count > 1) errors.push(forbidden(at, 'may not specify more than 1 volume type'));
  });
  return errors;
}

const iqnFormat = /^iqn\.\d{4}-\d{2}\.([A-Za-z0-9.-]+)(:[^,;*&$|\s]+)$/;
const euiFormat = /^eui\.[A-Fa-f0-9]{16}$/;
const naaFormat = /^naa\.[A-Fa-f0-9]{32}$/;

/** An iSCSI qualified name: iqn, eui or naa, each in its format. */
function iscsiNameProblem(value: string, prefixMessage: string): string | undefined {
  if (!value.startsWith('iqn') && !value.startsWith('eui') && !value.startsWith('naa')) return prefixMessage;
  if (value.startsWith('iqn') && !iqnFormat.test(value)) return 'must be valid format';
  if (value.startsWith('eui') && !euiFormat.test(value)) return 'must be valid format';
  if (value.startsWith('naa') && !naaFormat.test(value)) return 'must be valid format';
  return undefined;
}

function validateISCSI(iscsi: Fields, volumeName: string, path: FieldPath, volumePath: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!str(iscsi.targetPortal)) errors.push(required(path.child('targetPortal')));
  const iqn = str(iscsi.iqn);
  if (!iqn) errors.push(required(path.child('iqn')));
  else {
    const problem = iscsiNameProblem(iqn, 'must be valid format starting with iqn, eui, or naa');
    if (problem) errors.push(invalid(path.child('iqn'), iqn, problem));
  }
  const lun = num(iscsi.lun);
  if (lun < 0 || lun > 255) errors.push(invalid(path.child('lun'), lun, inclusiveRange(0, 255)));
  if ((iscsi.chapAuthDiscovery === true || iscsi.chapAuthSession === true) && (iscsi.secretRef === undefined || iscsi.secretRef === null))
    errors.push(required(path.child('secretRef')));
  if (typeof iscsi.initiatorName === 'string') {
    const initiator = iscsi.initiatorName;
    if (!initiator.startsWith('iqn') && !initiator.startsWith('eui') && !initiator.startsWith('naa'))
      errors.push(invalid(path.child('initiatorname'), initiator, 'must be valid format starting with iqn, eui, or naa'));
    const problem = iscsiNameProblem(initiator, '');
    if (problem) errors.push(invalid(path.child('initiatorname'), initiator, problem));
    if (`${volumeName}:${str(iscsi.targetPortal)}`.length > 64)
      errors.push(
        invalid(
          volumePath.child('name'),
          volumeName,
          'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.',
        ),
      );
  }
  return errors;
}

const supportedAccessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];

/** ValidatePersistentVolumeClaimTemplate: labels and annotations only, and a claim spec. */
function validateClaimTemplate(template: PersistentVolumeClaimTemplate, path: FieldPath): FieldError[] {
  const metaPath = path.child('metadata');
  const meta = template.metadata ?? {};
  const errors = validateAnnotations(meta.annotations, metaPath.child('annotations'));
  append(errors, validateLabels(meta.labels, metaPath.child('labels')));
  for (const [key, value] of Object.entries(meta)) {
    if (key === 'labels' || key === 'annotations' || value === undefined || value === null || value === '') continue;
    if (Array.isArray(value) && value.length === 0) continue;
    // Upstream names the field by its Go name.
    const goName = key.charAt(0).toUpperCase() + key.slice(1);
    errors.push(forbidden(metaPath.child(goName), 'cannot be set'));
  }
  const spec = template.spec ?? {};
  const specPath = path.child('spec');
  const modes = spec.accessModes ?? [];
  if (modes.length === 0) errors.push(required(specPath.child('accessModes'), 'at least 1 access mode is required'));
  for (const mode of modes) if (!supportedAccessModes.includes(mode)) errors.push(notSupported(specPath.child('accessModes'), mode, supportedAccessModes));
  if (modes.includes('ReadWriteOncePod') && modes.some((m) => m !== 'ReadWriteOncePod' && supportedAccessModes.includes(m)))
    errors.push(forbidden(specPath.child('accessModes'), 'may not use ReadWriteOncePod with other access modes'));
  if (spec.selector) append(errors, validateLabelSelector(spec.selector, false, specPath.child('selector')));
  const storage = spec.resources?.requests?.storage;
  const storagePath = specPath.child('resources').key('storage');
  if (storage === undefined) errors.push(required(storagePath));
  else {
    const value = parseQuantity(storage);
    if (value !== null && value <= 0) errors.push(invalid(storagePath, String(storage), 'must be greater than zero'));
  }
  return errors;
}

/** validateVolumeSource: exactly one source, each checked by its own rules. */
function validateVolumeSource(volume: Volume, path: FieldPath, podName: string | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const name = volume.name ?? '';
  let count = 0;
  for (const [key, reportedAs] of sourceOrder) {
    const value = volume[key];
    if (value === undefined || value === null) continue;
    if (count > 0) {
      errors.push(forbidden(path.child(reportedAs), 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    append(errors, validateSource(key, fieldsOf(value), path, name, podName));
  }
  if (count === 0) errors.push(required(path, 'must specify a volume type'));
  return errors;
}

function requireFields(source: Fields, path: FieldPath, names: readonly string[]): FieldError[] {
  return names.filter((n) => !str(source[n])).map((n) => required(path.child(n)));
}

function validateSource(key: string, source: Fields, volumePath: FieldPath, volumeName: string, podName: string | undefined): FieldError[] {
  const path = volumePath.child(key);
  const errors: FieldError[] = [];
  switch (key) {
    case 'emptyDir': {
      const limit = parseQuantity(source.sizeLimit);
      if (limit !== null && limit < 0) errors.push(forbidden(path.child('sizeLimit'), 'SizeLimit field must be a valid resource quantity'));
      break;
    }
    case 'hostPath': {
      const hostPath = str(source.path);
      if (!hostPath) return [required(path.child('path'))];
      append(errors, validatePathNoBacksteps(hostPath, path.child('path')));
      const types = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
      if (typeof source.type === 'string' && !types.includes(source.type)) errors.push(notSupported(path.child('type'), source.type, types));
      break;
    }
    case 'gitRepo':
      append(errors, requireFields(source, path, ['repository']));
      append(errors, validateLocalDescendingPath(str(source.directory), path.child('directory')));
      break;
    case 'gcePersistentDisk':
    case 'awsElasticBlockStore': {
      const at = key === 'gcePersistentDisk' ? volumePath.child('persistentDisk') : path;
      append(errors, requireFields(source, at, [key === 'gcePersistentDisk' ? 'pdName' : 'volumeID']));
      const partition = num(source.partition);
      if (partition < 0 || partition > 255) errors.push(invalid(at.child('partition'), partition, inclusiveRange(1, 255)));
      break;
    }
    case 'secret':
    case 'configMap': {
      append(errors, requireFields(source, path, [key === 'secret' ? 'secretName' : 'name']));
      append(errors, validateMode(source.defaultMode as number | undefined, path.child('defaultMode')));
      const items = Array.isArray(source.items) ? (source.items as KeyToPath[]) : [];
      items.forEach((item, i) => append(errors, validateKeyToPath(item, path.child('items').index(i))));
      break;
    }
    case 'nfs': {
      append(errors, requireFields(source, path, ['server', 'path']));
      if (!posix.isAbsolute(str(source.path))) errors.push(invalid(path.child('path'), str(source.path), 'must be an absolute path'));
      break;
    }
    case 'iscsi':
      return validateISCSI(source, volumeName, path, volumePath);
    case 'glusterfs':
      return requireFields(source, path, ['endpoints', 'path']);
    case 'flocker': {
      const name = str(source.datasetName);
      const uuid = str(source.datasetUUID);
      if (!name && !uuid) errors.push(required(path, 'one of datasetName and datasetUUID is required'));
      if (name && uuid) errors.push(invalid(path, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
      if (name.includes('/')) errors.push(invalid(path.child('datasetName'), name, "must not contain '/'"));
      break;
    }
    case 'persistentVolumeClaim':
      return requireFields(source, path, ['claimName']);
    case 'rbd': {
      if (!Array.isArray(source.monitors) || source.monitors.length === 0) errors.push(required(path.child('monitors')));
      return append(errors, requireFields(source, path, ['image']));
    }
    case 'cinder': {
      append(errors, requireFields(source, path, ['volumeID']));
      if (source.secretRef !== undefined && source.secretRef !== null && !str(fieldsOf(source.secretRef).name))
        errors.push(required(path.child('secretRef', 'name')));
      break;
    }
    case 'cephfs':
      if (!Array.isArray(source.monitors) || source.monitors.length === 0) errors.push(required(volumePath.child('cephfs', 'monitors')));
      break;
    case 'quobyte': {
      const registry = str(source.registry);
      const hostPorts = 'must be a host:port pair or multiple pairs separated by commas';
      if (!registry) errors.push(required(path.child('registry'), hostPorts));
      else if (str(source.tenant).length >= 65) errors.push(required(path.child('tenant'), 'must be a UUID and may not exceed a length of 64 characters'));
      else
        for (const pair of registry.split(','))
          if (!/^(\[[^\]]*\]|[^:[\]]*):[^:]*$/.test(pair)) errors.push(invalid(path.child('registry'), registry, hostPorts));
      append(errors, requireFields(source, path, ['volume']));
      break;
    }
    case 'downwardAPI': {
      append(errors, validateMode(source.defaultMode as number | undefined, path.child('defaultMode')));
      const items = Array.isArray(source.items) ? (source.items as DownwardAPIVolumeFile[]) : [];
      // Upstream reports the files' errors under the volume source, without their index.
      for (const item of items) append(errors, validateDownwardAPIFile(item, path));
      break;
    }
    case 'fc': {
      const wwns = Array.isArray(source.targetWWNs) ? source.targetWWNs : [];
      const wwids = Array.isArray(source.wwids) ? source.wwids : [];
      if (wwns.length < 1 && wwids.length < 1) errors.push(required(path.child('targetWWNs'), 'must specify either targetWWNs or wwids, but not both'));
      if (wwns.length !== 0 && wwids.length !== 0)
        errors.push(invalid(path.child('targetWWNs'), wwns, 'targetWWNs and wwids can not be specified simultaneously'));
      if (wwns.length !== 0) {
        if (typeof source.lun !== 'number') errors.push(required(path.child('lun'), 'lun is required if targetWWNs is specified'));
        else if (source.lun < 0 || source.lun > 255) errors.push(invalid(path.child('lun'), source.lun, inclusiveRange(0, 255)));
      }
      break;
    }
    case 'flexVolume': {
      append(errors, requireFields(source, path, ['driver']));
      for (const option of Object.keys(fieldsOf(source.options))) {
        const slash = option.indexOf('/');
        const namespace = `.${(slash >= 0 ? option.slice(0, slash) : option).toLowerCase()}`;
        if (namespace.endsWith('.kubernetes.io') || namespace.endsWith('.k8s.io'))
          errors.push(invalid(path.child('options').key(option), option, 'kubernetes.io and k8s.io namespaces are reserved'));
      }
      break;
    }
    case 'azureFile':
      return requireFields(source, path, ['secretName', 'shareName']);
    case 'vsphereVolume':
      return requireFields(source, path, ['volumePath']);
    case 'photonPersistentDisk':
      return requireFields(source, path, ['pdID']);
    case 'portworxVolume':
      return requireFields(source, path, ['volumeID']);
    case 'azureDisk': {
      append(errors, requireFields(source, path, ['diskName', 'diskURI']));
      const modes = ['None', 'ReadOnly', 'ReadWrite'];
      const kinds = ['Dedicated', 'Managed', 'Shared'];
      if (typeof source.cachingMode === 'string' && !modes.includes(source.cachingMode))
        errors.push(notSupported(path.child('cachingMode'), source.cachingMode, modes));
      if (typeof source.kind === 'string') {
        if (!kinds.includes(source.kind)) errors.push(notSupported(path.child('kind'), source.kind, kinds));
        const uri = str(source.diskURI);
        if (source.kind === 'Managed' && !uri.startsWith('/subscriptions/'))
          errors.push(
            notSupported(path.child('diskURI'), uri, ['/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}']),
          );
        if (source.kind !== 'Managed' && !uri.startsWith('https://'))
          errors.push(notSupported(path.child('diskURI'), uri, ['https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd']));
      }
      break;
    }
    case 'storageos': {
      const name = str(source.volumeName);
      if (!name) errors.push(required(path.child('volumeName')));
      else for (const msg of isDNS1123Label(name)) errors.push(invalid(path.child('volumeName'), name, msg));
      const namespace = str(source.volumeNamespace);
      if (namespace) for (const msg of isDNS1123Label(namespace)) errors.push(invalid(path.child('volumeNamespace'), namespace, msg));
      if (source.secretRef !== undefined && source.secretRef !== null && !str(fieldsOf(source.secretRef).name))
        errors.push(required(path.child('secretRef', 'name')));
      break;
    }
    case 'projected':
      return validateProjected(source, path);
    case 'scaleIO':
      return requireFields(source, path, ['gateway', 'system', 'volumeName']);
    case 'csi': {
      append(errors, validateCSIDriverName(str(source.driver), path.child('driver')));
      const ref = source.nodePublishSecretRef;
      if (ref !== undefined && ref !== null) {
        const secret = str(fieldsOf(ref).name);
        if (!secret) errors.push(required(path.child('nodePublishSecretRef', 'name')));
        else for (const msg of isDNS1123Subdomain(secret)) errors.push(invalid(path.child('name'), secret, msg));
      }
      break;
    }
    case 'ephemeral': {
      const template = source.volumeClaimTemplate;
      if (template === undefined || template === null) errors.push(required(path.child('volumeClaimTemplate')));
      else append(errors, validateClaimTemplate(template as PersistentVolumeClaimTemplate, path.child('volumeClaimTemplate')));
      if (podName && volumeName) {
        const claim = `${podName}-${volumeName}`;
        for (const msg of isDNS1123Subdomain(claim)) errors.push(invalid(volumePath.child('name'), volumeName, `PVC name "${claim}": ${msg}`));
      }
      break;
    }
    case 'image':
      // ImageVolume is alpha and off in 1.32: upstream drops the field on create, so it is never validated.
      break;
  }
  return errors;
}

/**
 * ValidateVolumes: every volume, and the names of the valid ones (which volume mounts may name).
 * `podName`, when known, checks the claims ephemeral volumes create.
 */
export function validateVolumes(volumes: readonly Volume[], path: FieldPath, podName?: string): { names: Map<string, Volume>; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const names = new Map<string, Volume>();
  const created = new Set(podName ? volumes.filter((v) => v.ephemeral).map((v) => `${podName}-${v.name ?? ''}`) : []);
  volumes.forEach((volume, i) => {
    const at = path.index(i);
    const namePath = at.child('name');
    const name = volume.name ?? '';
    const own = validateVolumeSource(volume, at, podName);
    if (!name) own.push(required(namePath));
    else for (const msg of isDNS1123Label(name)) own.push(invalid(namePath, name, msg));
    if (names.has(name)) own.push(duplicate(namePath, name));
    if (own.length === 0) names.set(name, volume);
    else append(errors, own);
    const claim = volume.persistentVolumeClaim?.claimName;
    if (claim && created.has(claim))
      errors.push(invalid(at.child('persistentVolumeClaim', 'claimName'), claim, 'must not reference a PVC that gets created for an ephemeral volume'));
  });
  return { names, errors };
}
