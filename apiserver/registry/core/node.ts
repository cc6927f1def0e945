/**
 * Node (v1, cluster scoped). Unlike most kinds a node may carry status on create (the kubelet
 * registers itself with it); afterwards the main resource keeps status and `status` keeps spec.
 * podCIDRs and providerID may be set once; the removed dynamic kubelet configuration
 * (spec.configSource, status.config) is dropped unless an old object still carries it.
 */
import { FieldPath, duplicate, forbidden, invalid, notSupported, required, type FieldError } from '../../../shared/api/field.ts';
import { parseQuantity } from '../../../shared/api/quantity.ts';
import { deepCopy, type KubeObject } from '../../../shared/api/types.ts';
import {
  array,
  atomicArray,
  boolean,
  describe,
  int32,
  int64,
  kindSchema,
  map,
  named,
  object,
  pb,
  quantity,
  string,
  time,
  type Schema,
} from '../../../shared/api/schema.ts';
import { isConfigMapKey, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../../shared/validation/names.ts';
import { parseCIDR, validateCIDR } from '../../../shared/validation/network.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { age, ageColumn, nameColumn } from '../../endpoints/table.ts';
import { mergedByType, validateQualifiedName } from './shared-validation.ts';
import { append } from '../../../shared/api/append.ts';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface ConfigMapNodeConfigSource {
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  kubeletConfigKey?: string;
}

export interface NodeConfigSource {
  configMap?: ConfigMapNodeConfigSource;
}

export interface NodeAddress {
  type: string;
  address: string;
}

export interface NodeSpec {
  podCIDR?: string;
  podCIDRs?: string[];
  providerID?: string;
  unschedulable?: boolean;
  taints?: Taint[];
  configSource?: NodeConfigSource;
  externalID?: string;
}

export interface NodeStatus {
  capacity?: Record<string, string | number>;
  allocatable?: Record<string, string | number>;
  phase?: string;
  conditions?: { type: string; status: string; [field: string]: unknown }[];
  addresses?: NodeAddress[];
  config?: { assigned?: NodeConfigSource; active?: NodeConfigSource; lastKnownGood?: NodeConfigSource; error?: string };
  [field: string]: unknown;
}

export interface Node extends KubeObject {
  spec?: NodeSpec;
  status?: NodeStatus;
}

const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/**
 * podCIDR and podCIDRs on the wire are one list inside (upstream's conversion): podCIDR wins when
 * the two disagree, fills an empty list, and is always written back as the list's first entry.
 */
function normalizePodCIDRs(node: Node): void {
  const spec = node.spec;
  if (!spec) return;
  const single = spec.podCIDR ?? '';
  const list = spec.podCIDRs ?? [];
  if (single && (list.length === 0 || list[0] !== single)) spec.podCIDRs = [single];
  const first = spec.podCIDRs?.[0];
  if (first) spec.podCIDR = first;
}

function validateTaints(taints: readonly Taint[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Map<string, Set<string>>();
  taints.forEach((taint, i) => {
    const at = path.index(i);
    append(errors, validateQualifiedName(taint.key ?? '', at.child('key')));
    const valueProblems = isValidLabelValue(taint.value ?? '');
    if (valueProblems.length) errors.push(invalid(at.child('value'), taint.value ?? '', valueProblems.join(';')));
    const effect = taint.effect ?? '';
    if (!effect) errors.push(required(at.child('effect')));
    else if (!taintEffects.includes(effect)) errors.push(notSupported(at.child('effect'), effect, taintEffects));
    const keys = seen.get(effect) ?? new Set<string>();
    if (keys.has(taint.key ?? '')) {
      errors.push({ ...duplicate(at, taint), detail: 'taints must be unique by key and effect pair' });
      return;
    }
    keys.add(taint.key ?? '');
    seen.set(effect, keys);
  });
  return errors;
}

const integerResources = new Set([
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

/** Extended resources (`example.com/gpu`) are counted in whole units, like object counts. */
function isIntegerResourceName(name: string): boolean {
  if (integerResources.has(name)) return true;
  const native = !name.includes('/') || name.includes('kubernetes.io/');
  return !native && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
}

/** capacity and allocatable: non-negative, whole for integer resources; paths are `status.capacity.<name>`. */
function validateNodeResources(node: Node): FieldError[] {
  const errors: FieldError[] = [];
  for (const list of ['capacity', 'allocatable'] as const) {
    for (const [name, raw] of Object.entries(node.status?.[list] ?? {})) {
      const path = FieldPath.root('status').child(list, name);
      const value = parseQuantity(raw);
      if (value === null) continue; // malformed quantities are rejected while decoding
      if (value < 0) errors.push(invalid(path, String(raw), 'must be greater than or equal to 0'));
      if (isIntegerResourceName(name) && !Number.isInteger(value)) errors.push(invalid(path, String(raw), 'must be an integer'));
    }
  }
  return errors;
}

function validatePodCIDRs(cidrs: readonly string[]): FieldError[] {
  const path = FieldPath.root('spec').child('podCIDRs');
  const errors = cidrs.flatMap((cidr, i) => validateCIDR(path.index(i), cidr));
  if (cidrs.length < 2) return errors;
  const parsed = cidrs.map(parseCIDR);
  const bad = cidrs.find((_, i) => !parsed[i]);
  if (bad !== undefined) {
    errors.push({
      type: 'InternalError',
      field: path.toString(),
      value: null,
      detail: `invalid PodCIDRs. failed to check with dual stack with error:failed to parse cidr value:${JSON.stringify(bad)} with error:invalid CIDR address: ${bad}`,
    });
  }
  const families = new Set(parsed.map((p) => p?.family));
  const dualStack = bad === undefined && families.has(4) && families.has(6);
  if (!dualStack || cidrs.length > 2) errors.push(invalid(path, cidrs, 'may specify no more than one CIDR for each IP family'));
  const seen = new Set<string>();
  cidrs.forEach((cidr, i) => {
    if (seen.has(cidr)) errors.push(duplicate(path.index(i), cidr));
    seen.add(cidr);
  });
  return errors;
}

function validateNode(node: Node): FieldError[] {
  // Upstream reports taints under `metadata.taints`, a path kept for compatibility.
  const errors = validateTaints(node.spec?.taints ?? [], FieldPath.root('metadata').child('taints'));
  append(errors, validateNodeResources(node));
  const cidrs = node.spec?.podCIDRs ?? [];
  if (cidrs.length) append(errors, validatePodCIDRs(cidrs));
  return errors;
}

/** Checks shared by the configMap reference in spec.configSource and status.config. */
function validateConfigMapSource(source: ConfigMapNodeConfigSource, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const checks: [keyof ConfigMapNodeConfigSource, (v: string) => string[]][] = [
    ['namespace', isDNS1123Label],
    ['name', isDNS1123Subdomain],
    ['kubeletConfigKey', isConfigMapKey],
  ];
  for (const [field, rule] of checks) {
    const value = source[field] ?? '';
    if (!value) errors.push(required(path.child(field), `${field} must be set`));
    else append(errors, rule(value).map((msg) => invalid(path.child(field), value, msg)));
  }
  return errors;
}

/** In spec the reference names a config map; in status it pins the exact version (uid, resourceVersion). */
function validateConfigSource(source: NodeConfigSource, path: FieldPath, where: 'spec' | 'status'): FieldError[] {
  const errors: FieldError[] = [];
  const cm = source.configMap;
  if (cm) {
    const at = path.child('configMap');
    for (const field of ['uid', 'resourceVersion'] as const) {
      if (where === 'spec' && cm[field]) errors.push(forbidden(at.child(field), `${field} must not be set in spec`));
      if (where === 'status' && !cm[field]) errors.push(required(at.child(field), `${field} must be set in status`));
    }
    append(errors, validateConfigMapSource(cm, at));
  } else {
    errors.push(invalid(path, source, 'exactly one reference subfield must be non-nil'));
  }
  return errors;
}

const mayNotChange = (what: string): string => `node updates may not change ${what} except from "" to valid`;

function validateNodeUpdate(node: Node, old: Node): FieldError[] {
  const errors = validateNodeResources(node);
  const addresses = new Set<string>();
  (node.status?.addresses ?? []).forEach((address, i) => {
    const key = JSON.stringify([address.type, address.address]);
    if (addresses.has(key)) errors.push(duplicate(FieldPath.root('status').child('addresses').index(i), address));
    addresses.add(key);
  });

  const spec = FieldPath.root('spec');
  const oldCIDRs = old.spec?.podCIDRs ?? [];
  const newCIDRs = node.spec?.podCIDRs ?? [];
  if (oldCIDRs.length) {
    if (oldCIDRs.length !== newCIDRs.length) errors.push(forbidden(spec.child('podCIDRs'), mayNotChange('podCIDR')));
    else for (const [i, cidr] of oldCIDRs.entries()) if (cidr !== newCIDRs[i]) errors.push(forbidden(spec.child('podCIDRs'), mayNotChange('podCIDR')));
  }
  const oldProvider = old.spec?.providerID ?? '';
  if (oldProvider && oldProvider !== (node.spec?.providerID ?? '')) errors.push(forbidden(spec.child('providerID'), mayNotChange('providerID')));

  if (node.spec?.configSource) append(errors, validateConfigSource(node.spec.configSource, spec.child('configSource'), 'spec'));
  const config = node.status?.config;
  if (config) {
    const at = FieldPath.root('status').child('config');
    for (const which of ['assigned', 'active', 'lastKnownGood'] as const) {
      const source = config[which];
      if (source) append(errors, validateConfigSource(source, at.child(which), 'status'));
    }
  }
  append(errors, validateTaints(node.spec?.taints ?? [], FieldPath.root('metadata').child('taints')));
  if ((node.spec?.externalID ?? '') !== (old.spec?.externalID ?? '')) errors.push(forbidden(spec.child('externalID'), 'may not be updated'));
  return errors;
}

function keepStatus(node: Node, old: Node): void {
  if (old.status) node.status = deepCopy(old.status);
  else delete node.status;
}

function nodeWarnings(node: Node): string[] {
  const warnings: string[] = [];
  if (node.spec?.configSource) warnings.push('spec.configSource: the feature is removed');
  if (node.spec?.externalID) warnings.push('spec.externalID: this field is deprecated, and is unused by Kubernetes');
  return warnings;
}

const configMapSourceSchema = (): Schema =>
  named(
    'io.k8s.api.core.v1.ConfigMapNodeConfigSource',
    'A config map holding a kubelet configuration, for the removed dynamic kubelet configuration feature.',
    object(
      {
        namespace: pb(1, string('Namespace of the config map. Required.'), 'keepZero'),
        name: pb(2, string('Name of the config map. Required.'), 'keepZero'),
        uid: pb(3, string('UID of the config map; forbidden in spec, required in status.')),
        resourceVersion: pb(4, string('Resource version of the config map; forbidden in spec, required in status.')),
        kubeletConfigKey: pb(5, string('Key of the config map whose value is the KubeletConfiguration. Required.'), 'keepZero'),
      },
      ['namespace', 'name', 'kubeletConfigKey'],
    ),
  );
/** NodeConfigSource; upstream retired field 1 (configMapRef). */
const configSourceSchema = (): Schema =>
  named(
    'io.k8s.api.core.v1.NodeConfigSource',
    'Where a kubelet configuration comes from; the dynamic kubelet configuration feature that used it is removed.',
    object({ configMap: pb(2, describe(configMapSourceSchema(), 'The config map holding the configuration.'), 'optional') }),
  );
const conditionSchema = (): Schema =>
  named(
    'io.k8s.api.core.v1.NodeCondition',
    'One aspect of a node\'s health as the kubelet or a controller sees it.',
    object(
      {
        type: pb(1, string('Which aspect: Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable, ...'), 'keepZero'),
        status: pb(2, string('True, False or Unknown.'), 'keepZero'),
        lastHeartbeatTime: pb(3, time('When the condition was last confirmed.')),
        lastTransitionTime: pb(4, time('When status last changed.')),
        reason: pb(5, string('Machine-readable reason of the last transition, in CamelCase.')),
        message: pb(6, string('Human-readable details of the last transition.')),
      },
      ['type', 'status'],
    ),
  );
const taint = (): Schema =>
  named(
    'io.k8s.api.core.v1.Taint',
    'A mark on a node that keeps pods off it unless they tolerate it.',
    object(
      {
        key: pb(1, string('Key of the taint, a qualified name such as example.com/dedicated. Required.'), 'keepZero'),
        value: pb(2, string('Value of the taint, matched by tolerations with operator Equal; at most 63 characters.')),
        effect: pb(
          3,
          string('What happens to pods that do not tolerate the taint: NoSchedule, PreferNoSchedule or NoExecute (running pods are evicted too). Required.'),
          'keepZero',
        ),
        timeAdded: pb(4, time('When the taint was added; set for NoExecute taints only.'), 'optional'),
      },
      ['key', 'effect'],
    ),
  );
const nodeSpec = (): Schema =>
  named(
    'io.k8s.api.core.v1.NodeSpec',
    'What a node offers and how pods may be placed on it.',
    object({
      podCIDR: pb(1, string('The IP range, as a CIDR, pods on this node get addresses from; the same as podCIDRs[0]. Set once.')),
      podCIDRs: pb(
        7,
        describe(
          array(string(), { 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' }),
          'The IP ranges, as CIDRs, pods on this node get addresses from: at most one per IP family, the first equal to podCIDR. Set once.',
        ),
      ),
      providerID: pb(3, string('The node\'s identifier at its cloud provider, as <provider>://<id>. Set once.')),
      unschedulable: pb(4, boolean('When true, no new pods are scheduled onto the node (kubectl cordon); running pods stay.')),
      taints: pb(5, describe(atomicArray(taint()), 'Taints that keep pods without a matching toleration off the node.')),
      configSource: pb(
        6,
        describe(configSourceSchema(), 'Deprecated: the removed dynamic kubelet configuration. Dropped on write unless already set.'),
        'optional',
      ),
      externalID: pb(2, string('Deprecated and unused: an external identifier of the node.')),
    }),
  );
const nodeAddressSchema = (): Schema =>
  named(
    'io.k8s.api.core.v1.NodeAddress',
    'One address the node can be reached at.',
    object(
      {
        type: pb(1, string('Kind of address: Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS.'), 'keepZero'),
        address: pb(2, string('The address itself.'), 'keepZero'),
      },
      ['type', 'address'],
    ),
  );
const daemonEndpoints = (): Schema =>
  named(
    'io.k8s.api.core.v1.NodeDaemonEndpoints',
    'Ports of the daemons running on a node.',
    object({
      kubeletEndpoint: pb(
        1,
        describe(
          named(
            'io.k8s.api.core.v1.DaemonEndpoint',
            'The port a daemon on the node listens at.',
            object({ Port: pb(1, int32('Port number. Required.'), 'keepZero') }, ['Port']),
          ),
          'Where the kubelet listens.',
        ),
      ),
    }),
  );
const nodeSystemInfo = (): Schema =>
  named(
    'io.k8s.api.core.v1.NodeSystemInfo',
    'Identity and software versions of a node, reported by its kubelet.',
    object(
      {
        machineID: pb(1, string('Machine ID of the host, from /etc/machine-id.'), 'keepZero'),
        systemUUID: pb(2, string('Hardware UUID of the host, as the firmware reports it.'), 'keepZero'),
        bootID: pb(3, string('Identifier of the current boot; changes on every reboot.'), 'keepZero'),
        kernelVersion: pb(4, string('Kernel version, as uname -r reports it.'), 'keepZero'),
        osImage: pb(5, string('Operating system release, from /etc/os-release.'), 'keepZero'),
        containerRuntimeVersion: pb(6, string('Container runtime and its version, as <runtime>://<version>.'), 'keepZero'),
        kubeletVersion: pb(7, string('Version of the kubelet.'), 'keepZero'),
        kubeProxyVersion: pb(8, string('Deprecated: version of kube-proxy, no longer reliable.'), 'keepZero'),
        operatingSystem: pb(9, string('Operating system, as Go names it: linux or windows.'), 'keepZero'),
        architecture: pb(10, string('CPU architecture, as Go names it: amd64, arm64, ...'), 'keepZero'),
      },
      ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture'],
    ),
  );
const containerImage = (): Schema =>
  named(
    'io.k8s.api.core.v1.ContainerImage',
    'A container image present on a node.',
    object({
      names: pb(1, describe(atomicArray(string()), 'Names and digests the image is known by, such as registry.k8s.io/pause:3.10.')),
      sizeBytes: pb(2, int64('Size of the image in bytes.')),
    }),
  );
const attachedVolume = (): Schema =>
  named(
    'io.k8s.api.core.v1.AttachedVolume',
    'A volume attached to a node.',
    object(
      {
        name: pb(1, string('Unique name of the volume, as the attach/detach controller knows it.'), 'keepZero'),
        devicePath: pb(2, string('Path of the device the volume is available at on the node.'), 'keepZero'),
      },
      ['name', 'devicePath'],
    ),
  );
const nodeConfigStatus = (): Schema =>
  named(
    'io.k8s.api.core.v1.NodeConfigStatus',
    'The kubelet\'s report on the removed dynamic kubelet configuration.',
    object({
      assigned: pb(1, describe(configSourceSchema(), 'The configuration the kubelet was told to use.'), 'optional'),
      active: pb(2, describe(configSourceSchema(), 'The configuration the kubelet runs with.'), 'optional'),
      lastKnownGood: pb(3, describe(configSourceSchema(), 'The configuration the kubelet falls back to when the assigned one fails.'), 'optional'),
      error: pb(4, string('Why the assigned configuration could not be used, if it could not.')),
    }),
  );
const runtimeHandler = (): Schema =>
  named(
    'io.k8s.api.core.v1.NodeRuntimeHandler',
    'A runtime handler (RuntimeClass handler) the node\'s container runtime offers.',
    object({
      name: pb(1, string('Name of the handler; empty for the default handler.'), 'keepZero'),
      features: pb(
        2,
        describe(
          named(
            'io.k8s.api.core.v1.NodeRuntimeHandlerFeatures',
            'Optional features a runtime handler supports.',
            object({
              recursiveReadOnlyMounts: pb(1, boolean('Whether the handler supports recursive read-only mounts.'), 'optional'),
              userNamespaces: pb(2, boolean('Whether the handler supports user namespaces, volumes included.'), 'optional'),
            }),
          ),
          'Features the handler supports.',
        ),
        'optional',
      ),
    }),
  );
const nodeStatus = (): Schema =>
  named(
    'io.k8s.api.core.v1.NodeStatus',
    'What a node has and how it is doing, reported by its kubelet and the node controllers.',
    object({
      capacity: pb(1, map(quantity(), 'Total amount of each resource on the node: cpu, memory, pods, ephemeral-storage, extended resources.')),
      allocatable: pb(2, map(quantity(), 'Amount of each resource available to pods: capacity minus what is reserved for the system. Defaults to capacity.')),
      phase: pb(3, string('Deprecated lifecycle phase of the node: Pending, Running or Terminated; rarely set.')),
      conditions: pb(4, describe(mergedByType(conditionSchema()), 'Health observations, at most one per type; Ready says whether pods can run.')),
      addresses: pb(5, describe(mergedByType(nodeAddressSchema()), 'Addresses the node can be reached at, from the kubelet or the cloud provider.')),
      daemonEndpoints: pb(6, describe(daemonEndpoints(), 'Ports of the daemons running on the node.')),
      nodeInfo: pb(7, describe(nodeSystemInfo(), 'Identity and software versions of the node.')),
      images: pb(8, describe(atomicArray(containerImage()), 'Container images present on the node.')),
      volumesInUse: pb(9, describe(atomicArray(string()), 'Names of the attached volumes that are mounted or in use.')),
      volumesAttached: pb(10, describe(atomicArray(attachedVolume()), 'Volumes attached to the node.')),
      config: pb(11, describe(nodeConfigStatus(), 'Deprecated: status of the removed dynamic kubelet configuration.'), 'optional'),
      runtimeHandlers: pb(12, describe(atomicArray(runtimeHandler()), 'Runtime handlers the node\'s container runtime offers.')),
      features: pb(
        13,
        describe(
          named(
            'io.k8s.api.core.v1.NodeFeatures',
            'Features the node supports.',
            object({
              supplementalGroupsPolicy: pb(1, boolean('Whether the node supports the supplementalGroupsPolicy of pods.'), 'optional'),
            }),
          ),
          'Features the node supports.',
        ),
        'optional',
      ),
    }),
  );

/** NodeStatus.addresses' swagger doc, the description of both IP columns. */
const nodeAddressesDoc =
  "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).";

/** The Status cell: the Ready condition as Ready, NotReady or Unknown, then SchedulingDisabled when cordoned. */
function nodeStatusText(node: Node): string {
  // As upstream, the last Ready condition wins when a (malformed) node lists several.
  const ready = (node.status?.conditions ?? []).filter((c) => c.type === 'Ready').at(-1);
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

const nodeRolePrefix = 'node-role.kubernetes.io/';
const nodeRoleLabel = 'kubernetes.io/role';

/** Roles from `node-role.kubernetes.io/<role>` labels and the `kubernetes.io/role` label, sorted; `<none>` without any. */
function nodeRoles(node: Node): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    if (key.startsWith(nodeRolePrefix)) {
      const role = key.slice(nodeRolePrefix.length);
      if (role) roles.add(role);
    } else if (key === nodeRoleLabel && value) {
      roles.add(value);
    }
  }
  return [...roles].sort().join(',') || '<none>';
}

/** The first address of the given type, or `<none>`. */
function nodeAddress(node: Node, type: string): string {
  return node.status?.addresses?.find((a) => a.type === type)?.address ?? '<none>';
}

/** A field of status.nodeInfo, or '' when absent. */
function nodeInfo(node: Node, field: string): string {
  const info = node.status?.nodeInfo;
  const value = info && typeof info === 'object' ? (info as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' ? value : '';
}

export const nodeDefinition = defineResource<Node>({
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  singular: 'node',
  shortNames: ['no'],
  namespaced: false,
  verbs: allVerbs,
  schema: describe(
    kindSchema({
      spec: pb(2, describe(nodeSpec(), 'How pods may be placed on the node: its pod IP ranges, taints and whether it takes new pods.')),
      status: pb(3, describe(nodeStatus(), 'What the node has and how it is doing; written by its kubelet through status.')),
    }),
    'A machine, physical or virtual, that runs pods: registered by its kubelet, which keeps its status current.',
  ),
  strategy: {
    prepareForCreate: (node) => {
      // Nodes may be created with status, but not with the removed dynamic configuration.
      if (node.spec) delete node.spec.configSource;
      if (node.status) delete node.status.config;
      normalizePodCIDRs(node);
    },
    validate: validateNode,
    prepareForUpdate: (node, old) => {
      keepStatus(node, old);
      if (node.spec && !old.spec?.configSource) delete node.spec.configSource;
      normalizePodCIDRs(node);
    },
    validateUpdate: (node, old) => [...validateNode(node), ...validateNodeUpdate(node, old)],
    warnings: nodeWarnings,
    allowCreateOnUpdate: false,
  },
  subresources: {
    status: {
      verbs: ['get', 'update', 'patch'],
      prepareForUpdate: (node, old) => {
        if (old.spec) node.spec = deepCopy(old.spec);
        else delete node.spec;
        if (node.status && !old.status?.config) delete node.status.config;
      },
      validateUpdate: validateNodeUpdate,
    },
  },
  fieldSelectors: { 'spec.unschedulable': (node) => String(node.spec?.unschedulable === true) },
  table: {
    columns: [
      nameColumn,
      { name: 'Status', type: 'string', description: 'The status of the node' },
      { name: 'Roles', type: 'string', description: 'The roles of the node' },
      ageColumn,
      { name: 'Version', type: 'string', description: 'Kubelet Version reported by the node.' },
      { name: 'Internal-IP', type: 'string', priority: 1, description: nodeAddressesDoc },
      { name: 'External-IP', type: 'string', priority: 1, description: nodeAddressesDoc },
      { name: 'OS-Image', type: 'string', priority: 1, description: 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).' },
      { name: 'Kernel-Version', type: 'string', priority: 1, description: "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)." },
      {
        name: 'Container-Runtime',
        type: 'string',
        priority: 1,
        description: 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
      },
    ],
    cells: (node, now) => [
      node.metadata.name,
      nodeStatusText(node),
      nodeRoles(node),
      age(node, now),
      nodeInfo(node, 'kubeletVersion'),
      nodeAddress(node, 'InternalIP'),
      nodeAddress(node, 'ExternalIP'),
      nodeInfo(node, 'osImage') || '<unknown>',
      nodeInfo(node, 'kernelVersion') || '<unknown>',
      nodeInfo(node, 'containerRuntimeVersion') || '<unknown>',
    ],
  },
});
