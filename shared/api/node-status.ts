/**
 * The schema of Node's status, reported by the kubelet and the node controllers: conditions,
 * addresses, daemon endpoints, system info, images, volumes, the removed dynamic kubelet
 * configuration's status, runtime handlers and features. Field numbers are upstream's generated.proto.
 */
import { atomicArray, boolean, describe, int32, int64, map, mergedByType, named, object, pb, quantity, string, time, type Schema } from './schema.ts';
import { configSourceSchema } from './node-config-source.ts';

const conditionSchema = (): Schema =>
  named(
    'io.k8s.api.core.v1.NodeCondition',
    "One aspect of a node's health as the kubelet or a controller sees it.",
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
      [
        'machineID',
        'systemUUID',
        'bootID',
        'kernelVersion',
        'osImage',
        'containerRuntimeVersion',
        'kubeletVersion',
        'kubeProxyVersion',
        'operatingSystem',
        'architecture',
      ],
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
    "The kubelet's report on the removed dynamic kubelet configuration.",
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
    "A runtime handler (RuntimeClass handler) the node's container runtime offers.",
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
export const nodeStatus = (): Schema =>
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
      runtimeHandlers: pb(12, describe(atomicArray(runtimeHandler()), "Runtime handlers the node's container runtime offers.")),
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
