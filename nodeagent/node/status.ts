/**
 * The Node's status as the kubelet's status setters compute it, from the host, the configuration
 * and the status last reported:
 *
 * - addresses: InternalIP (`--node-ip`, else the host's first address) and Hostname;
 * - capacity: cpu, memory, ephemeral-storage (the root directory's file system), pods (maxPods),
 *   hugepages-1Gi and -2Mi (corral manages none: 0);
 * - allocatable: capacity less kubeReserved, systemReserved and the hard eviction thresholds
 *   (upstream's node allocatable arithmetic), never below zero;
 * - conditions MemoryPressure, DiskPressure, PIDPressure (from the hard eviction thresholds and
 *   the host's current usage) and Ready, with upstream's reasons and messages; a condition's
 *   lastTransitionTime moves only when its status changes;
 * - nodeInfo and daemonEndpoints.
 *
 * Ready is True: the agent is up and reporting. That pods cannot run here (no container runtime)
 * is said on the pods themselves, where it is true, not by making the node NotReady.
 */
import { valuesEqual } from '../../shared/apply/fieldpath.ts';
import { formatTimeOf } from '../../shared/go/time.ts';
import { canonicalQuantity, parseQuantity } from '../../shared/api/quantity.ts';
import { isObject, type KubeObject } from '../../shared/api/types.ts';
import type { KubeletConfiguration } from '../config/fields.ts';
import type { HostFacts, HostUsage } from './host.ts';

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastHeartbeatTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface NodeAddress {
  type: 'InternalIP' | 'ExternalIP' | 'Hostname' | 'InternalDNS' | 'ExternalDNS';
  address: string;
}

export interface NodeStatus {
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
  conditions: NodeCondition[];
  addresses: NodeAddress[];
  daemonEndpoints: { kubeletEndpoint: { Port: number } };
  nodeInfo: Record<string, string>;
}

export interface StatusInputs {
  config: KubeletConfiguration;
  facts: HostFacts;
  usage: HostUsage;
  hostname: string;
  /** `--node-ip`; undefined: the host's default address. */
  nodeIP: string | undefined;
  kubeletVersion: string;
  /** `<runtime name>://<version>`. */
  containerRuntimeVersion: string;
  /** The conditions last reported (their transition times carry over). */
  previous: readonly NodeCondition[];
  now: number;
}

const KI = 1024;

/**
 * A byte count as resource.NewQuantity(n, BinarySI) prints it: the largest binary suffix that
 * divides it; below 1024, as a decimal quantity (upstream's CanonicalizeBytes: 1000 is `1k`).
 */
export function binaryQuantity(bytes: number): string {
  const n = Math.max(0, Math.floor(bytes));
  if (n < KI) return canonicalQuantity(String(n));
  const suffixes = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
  let value = n;
  let i = 0;
  while (i < suffixes.length - 1 && value % KI === 0) {
    value /= KI;
    i++;
  }
  return `${value}${suffixes[i]}`;
}

/** CPU as upstream prints it: whole cores, else millicores. */
export function cpuQuantity(cores: number): string {
  const milli = Math.max(0, Math.round(cores * 1000));
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/**
 * A threshold (`100Mi`, `10%`) against a capacity, in the capacity's units; 0 when unset or
 * malformed. A percentage is upstream's float32 fraction of the capacity, truncated to a whole
 * unit; `0%` and `100%` are no threshold at all (upstream's parseThresholdStatement drops them).
 */
export function thresholdValue(threshold: string | undefined, capacity: number): number {
  if (!threshold) return 0;
  if (threshold.endsWith('%')) {
    const percent = Number(threshold.slice(0, -1));
    if (!Number.isFinite(percent) || percent <= 0 || percent >= 100) return 0;
    return Math.trunc(capacity * Math.fround(Math.fround(percent) / 100));
  }
  return parseQuantity(threshold) ?? 0;
}

function reserved(config: KubeletConfiguration, resource: string): number {
  return (parseQuantity(config.kubeReserved[resource] ?? '0') ?? 0) + (parseQuantity(config.systemReserved[resource] ?? '0') ?? 0);
}

export function computeCapacity(config: KubeletConfiguration, facts: HostFacts): { capacity: Record<string, string>; allocatable: Record<string, string> } {
  const memoryEviction = thresholdValue(config.evictionHard['memory.available'], facts.memoryBytes);
  const diskEviction = thresholdValue(config.evictionHard['nodefs.available'], facts.diskBytes);
  const capacity = {
    cpu: cpuQuantity(facts.cpuCount),
    'ephemeral-storage': binaryQuantity(facts.diskBytes),
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
    memory: binaryQuantity(facts.memoryBytes),
    pods: String(config.maxPods),
  };
  const allocatable = {
    cpu: cpuQuantity(facts.cpuCount - reserved(config, 'cpu')),
    'ephemeral-storage': binaryQuantity(facts.diskBytes - reserved(config, 'ephemeral-storage') - diskEviction),
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
    memory: binaryQuantity(facts.memoryBytes - reserved(config, 'memory') - memoryEviction),
    pods: String(config.maxPods),
  };
  return { capacity, allocatable };
}

interface ConditionState {
  type: string;
  pressure: boolean;
  trueReason: string;
  trueMessage: string;
  falseReason: string;
  falseMessage: string;
}

function pressureConditions(config: KubeletConfiguration, figures: HostFigures, usage: HostUsage): ConditionState[] {
  const memory = usage.memoryAvailableBytes < figures.memoryEviction;
  const disk = usage.diskAvailableBytes < figures.nodefsEviction || usage.diskAvailableBytes < figures.imagefsEviction;
  const pid = usage.pidMax > 0 && usage.pidMax - usage.processes < thresholdValue(config.evictionHard['pid.available'], usage.pidMax);
  return [
    {
      type: 'MemoryPressure',
      pressure: memory,
      trueReason: 'KubeletHasInsufficientMemory',
      trueMessage: 'kubelet has insufficient memory available',
      falseReason: 'KubeletHasSufficientMemory',
      falseMessage: 'kubelet has sufficient memory available',
    },
    {
      type: 'DiskPressure',
      pressure: disk,
      trueReason: 'KubeletHasDiskPressure',
      trueMessage: 'kubelet has disk pressure',
      falseReason: 'KubeletHasNoDiskPressure',
      falseMessage: 'kubelet has no disk pressure',
    },
    {
      type: 'PIDPressure',
      pressure: pid,
      trueReason: 'KubeletHasInsufficientPID',
      trueMessage: 'kubelet has insufficient PID available',
      falseReason: 'KubeletHasSufficientPID',
      falseMessage: 'kubelet has sufficient PID available',
    },
  ];
}

export function computeNodeStatus(inputs: StatusInputs): NodeStatus {
  const { config, facts, usage, now } = inputs;
  const stamp = formatTimeOf(new Date(now));
  const condition = (type: string, status: 'True' | 'False', reason: string, message: string): NodeCondition => {
    const before = inputs.previous.find((c) => c.type === type);
    const transition = before && before.status === status ? before.lastTransitionTime : stamp;
    return { type, status, lastHeartbeatTime: stamp, lastTransitionTime: transition, reason, message };
  };
  const figures = hostFigures(config, facts);
  const conditions = pressureConditions(config, figures, usage).map((c) =>
    c.pressure ? condition(c.type, 'True', c.trueReason, c.trueMessage) : condition(c.type, 'False', c.falseReason, c.falseMessage),
  );
  conditions.push(condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'));
  const addresses: NodeAddress[] = [];
  for (const ip of (inputs.nodeIP ?? facts.defaultAddress).split(',').filter(Boolean)) addresses.push({ type: 'InternalIP', address: ip.trim() });
  addresses.push({ type: 'Hostname', address: inputs.hostname });
  return {
    capacity: figures.capacity,
    allocatable: figures.allocatable,
    conditions,
    addresses,
    daemonEndpoints: { kubeletEndpoint: { Port: config.port } },
    nodeInfo: {
      machineID: facts.machineID,
      systemUUID: facts.systemUUID,
      bootID: facts.bootID,
      kernelVersion: facts.kernelVersion,
      osImage: facts.osImage,
      containerRuntimeVersion: inputs.containerRuntimeVersion,
      kubeletVersion: inputs.kubeletVersion,
      operatingSystem: facts.operatingSystem,
      architecture: facts.architecture,
    },
  };
}

/** What a configuration makes of the host's facts: capacity, allocatable and the hard eviction thresholds in bytes. */
interface HostFigures extends ReturnType<typeof computeCapacity> {
  memoryEviction: number;
  nodefsEviction: number;
  imagefsEviction: number;
}

/**
 * HostFigures for a configuration and the host facts they were last computed with, when they are
 * the same objects: the agents of a simulation share both (and the host's facts are read once a
 * second at most), so that 5,000 agents computing their status every 10 s do the arithmetic and
 * parse the quantities once per configuration. The capacity records are shared between the
 * statuses made from them: statuses are read, never changed.
 */
const figuresByConfig = new WeakMap<KubeletConfiguration, { facts: HostFacts; figures: HostFigures }>();

function hostFigures(config: KubeletConfiguration, facts: HostFacts): HostFigures {
  const known = figuresByConfig.get(config);
  if (known?.facts === facts) return known.figures;
  const figures: HostFigures = {
    ...computeCapacity(config, facts),
    memoryEviction: thresholdValue(config.evictionHard['memory.available'], facts.memoryBytes),
    nodefsEviction: thresholdValue(config.evictionHard['nodefs.available'], facts.diskBytes),
    imagefsEviction: thresholdValue(config.evictionHard['imagefs.available'], facts.diskBytes),
  };
  figuresByConfig.set(config, { facts, figures });
  return figures;
}

/** Whether two statuses differ in anything but heartbeat times (upstream reports on change, else every nodeStatusReportFrequency). */
export function statusChanged(a: NodeStatus, b: NodeStatus): boolean {
  const { conditions: before, ...restA } = a;
  const { conditions: after, ...restB } = b;
  if (!valuesEqual(restA, restB) || before.length !== after.length) return true;
  return before.some((condition, i) => !valuesEqual({ ...condition, lastHeartbeatTime: '' }, { ...after[i], lastHeartbeatTime: '' }));
}

/** The addresses of a Node as stored (InternalIP, Hostname...), for its serving certificate's names. */
export function nodeAddresses(node: KubeObject | undefined): string[] {
  const status = isObject(node?.['status']) ? node['status'] : {};
  const addresses = Array.isArray(status['addresses']) ? status['addresses'] : [];
  return addresses.flatMap((a) => (isObject(a) && typeof a['address'] === 'string' ? [a['address']] : []));
}
