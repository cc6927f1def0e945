import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { defaultKubeletConfiguration } from '../config/defaults.ts';
import type { KubeletConfiguration } from '../config/fields.ts';
import type { HostFacts, HostUsage } from './host.ts';
import {
  binaryQuantity,
  computeCapacity,
  computeNodeStatus,
  cpuQuantity,
  statusChanged,
  thresholdValue,
  type NodeCondition,
  type StatusInputs,
} from './status.ts';

const Ki = 1024;
const Mi = 1024 * Ki;
const Gi = 1024 * Mi;

const facts: HostFacts = {
  cpuCount: 4,
  memoryBytes: 8 * Gi,
  diskBytes: 100 * Gi,
  machineID: 'machine-1',
  systemUUID: 'uuid-1',
  bootID: 'boot-1',
  kernelVersion: '6.8.0',
  osImage: 'Ubuntu 24.04 LTS',
  operatingSystem: 'linux',
  architecture: 'amd64',
  defaultAddress: '192.168.1.10',
};

/** Plenty of everything: no pressure under the default thresholds. */
const relaxed: HostUsage = { memoryAvailableBytes: 4 * Gi, diskAvailableBytes: 50 * Gi, pidMax: 4_194_304, processes: 300 };

function config(overrides: Partial<KubeletConfiguration> = {}): KubeletConfiguration {
  return { ...defaultKubeletConfiguration({}), ...overrides };
}

const t0 = Date.parse('2026-01-01T00:00:00Z');

function inputs(overrides: Partial<StatusInputs> = {}): StatusInputs {
  return {
    config: config(),
    facts,
    usage: relaxed,
    hostname: 'node-1',
    nodeIP: undefined,
    kubeletVersion: 'v1.32.0',
    containerRuntimeVersion: 'corral://0.1.0',
    previous: [],
    now: t0,
    ...overrides,
  };
}

function conditionOf(conditions: readonly NodeCondition[], type: string): NodeCondition {
  const found = conditions.find((c) => c.type === type);
  assert.ok(found, `no ${type} condition`);
  return found;
}

describe('binaryQuantity', () => {
  it('prints bytes with the largest binary suffix that divides them', () => {
    assert.equal(binaryQuantity(0), '0');
    assert.equal(binaryQuantity(1024), '1Ki');
    assert.equal(binaryQuantity(1536), '1536');
    assert.equal(binaryQuantity(2 ** 30), '1Gi');
    assert.equal(binaryQuantity(3 * Mi), '3Mi');
    assert.equal(binaryQuantity(1.5 * Gi), '1536Mi');
    assert.equal(binaryQuantity(2 ** 60), '1Ei');
    assert.equal(binaryQuantity(512), '512');
  });

  it('never prints a negative or fractional quantity', () => {
    assert.equal(binaryQuantity(-5 * Mi), '0');
    assert.equal(binaryQuantity(1024.9), '1Ki');
  });

  it('prints values below 1024 in DecimalSI, as Quantity.String does (1000 is 1k)', () => {
    assert.equal(binaryQuantity(1000), '1k');
  });
});

describe('cpuQuantity', () => {
  it('prints whole cores, else millicores', () => {
    assert.equal(cpuQuantity(2), '2');
    assert.equal(cpuQuantity(1.9), '1900m');
    assert.equal(cpuQuantity(0.25), '250m');
    assert.equal(cpuQuantity(0), '0');
    assert.equal(cpuQuantity(-0.5), '0');
  });
});

describe('thresholdValue', () => {
  it('takes a percentage of the capacity, a quantity as it is, and 0 when unset or malformed', () => {
    assert.equal(thresholdValue('10%', 1000), 100);
    assert.equal(thresholdValue('100Mi', 8 * Gi), 100 * Mi);
    assert.equal(thresholdValue('1G', 8 * Gi), 1e9);
    assert.equal(thresholdValue(undefined, 1000), 0);
    assert.equal(thresholdValue('', 1000), 0);
    assert.equal(thresholdValue('x%', 1000), 0);
    assert.equal(thresholdValue('lots', 1000), 0);
  });

  it("ignores 0% and 100%, as upstream's parseThresholdStatement does", () => {
    assert.equal(thresholdValue('0%', 1000), 0);
    assert.equal(thresholdValue('100%', 1000), 0);
  });
});

describe('computeCapacity', () => {
  it('reports the host as capacity', () => {
    const { capacity } = computeCapacity(config({ maxPods: 42 }), facts);
    assert.deepEqual(capacity, {
      cpu: '4',
      'ephemeral-storage': '100Gi',
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
      memory: '8Gi',
      pods: '42',
    });
  });

  it('subtracts kubeReserved, systemReserved and the hard eviction thresholds for allocatable', () => {
    const { allocatable } = computeCapacity(
      config({
        kubeReserved: { cpu: '100m', memory: '100Mi', 'ephemeral-storage': '1Gi' },
        systemReserved: { cpu: '200m', memory: '200Mi' },
        evictionHard: { 'memory.available': '300Mi', 'nodefs.available': '1Gi' },
        maxPods: 42,
      }),
      facts,
    );
    assert.deepEqual(allocatable, {
      cpu: '3700m',
      'ephemeral-storage': '98Gi',
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
      memory: '7592Mi',
      pods: '42',
    });
  });

  it('applies percentage thresholds to the capacity and never goes below zero', () => {
    const { allocatable } = computeCapacity(
      config({
        kubeReserved: { cpu: '3', memory: '9Gi' },
        systemReserved: { cpu: '2' },
        evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '25%' },
      }),
      facts,
    );
    assert.equal(allocatable['cpu'], '0');
    assert.equal(allocatable['memory'], '0');
    assert.equal(allocatable['ephemeral-storage'], '75Gi');
  });

  it('with the defaults, reserves 100Mi of memory and 10 % of the disk', () => {
    const { allocatable } = computeCapacity(config(), facts);
    assert.equal(allocatable['cpu'], '4');
    assert.equal(allocatable['memory'], '8092Mi');
    assert.equal(allocatable['pods'], '110');
  });

  it("computes a percentage threshold as upstream does (float32 percentage, truncated to bytes), matching a real node's allocatable", () => {
    // A node with 101430960Ki of disk and the default nodefs.available=10% reports 93478772582.
    const { allocatable } = computeCapacity(config(), { ...facts, diskBytes: 101430960 * Ki });
    assert.equal(allocatable['ephemeral-storage'], '93478772582');
  });
});

describe('computeNodeStatus', () => {
  it("reports no pressure with upstream's reasons and messages, and Ready", () => {
    const status = computeNodeStatus(inputs());
    const stamp = '2026-01-01T00:00:00Z';
    assert.deepEqual(status.conditions, [
      {
        type: 'MemoryPressure',
        status: 'False',
        lastHeartbeatTime: stamp,
        lastTransitionTime: stamp,
        reason: 'KubeletHasSufficientMemory',
        message: 'kubelet has sufficient memory available',
      },
      {
        type: 'DiskPressure',
        status: 'False',
        lastHeartbeatTime: stamp,
        lastTransitionTime: stamp,
        reason: 'KubeletHasNoDiskPressure',
        message: 'kubelet has no disk pressure',
      },
      {
        type: 'PIDPressure',
        status: 'False',
        lastHeartbeatTime: stamp,
        lastTransitionTime: stamp,
        reason: 'KubeletHasSufficientPID',
        message: 'kubelet has sufficient PID available',
      },
      {
        type: 'Ready',
        status: 'True',
        lastHeartbeatTime: stamp,
        lastTransitionTime: stamp,
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
      },
    ]);
  });

  it("reports pressure below the hard eviction thresholds, with upstream's reasons and messages", () => {
    const status = computeNodeStatus(
      inputs({
        config: config({ evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%', 'pid.available': '1000' } }),
        usage: { memoryAvailableBytes: 99 * Mi, diskAvailableBytes: 9 * Gi, pidMax: 32_768, processes: 32_000 },
      }),
    );
    const summary = status.conditions.map((c) => [c.type, c.status, c.reason, c.message]);
    assert.deepEqual(summary, [
      ['MemoryPressure', 'True', 'KubeletHasInsufficientMemory', 'kubelet has insufficient memory available'],
      ['DiskPressure', 'True', 'KubeletHasDiskPressure', 'kubelet has disk pressure'],
      ['PIDPressure', 'True', 'KubeletHasInsufficientPID', 'kubelet has insufficient PID available'],
      ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
    ]);
  });

  it('counts imagefs.available against the disk too', () => {
    const status = computeNodeStatus(
      inputs({ config: config({ evictionHard: { 'imagefs.available': '15%' } }), usage: { ...relaxed, diskAvailableBytes: 14 * Gi } }),
    );
    assert.equal(conditionOf(status.conditions, 'DiskPressure').status, 'True');
    assert.equal(conditionOf(status.conditions, 'MemoryPressure').status, 'False');
  });

  it('keeps a transition time while the status stays, and moves it when the status changes', () => {
    const before = computeNodeStatus(inputs());
    const later = t0 + 60_000;
    const same = computeNodeStatus(inputs({ previous: before.conditions, now: later }));
    const memory = conditionOf(same.conditions, 'MemoryPressure');
    assert.equal(memory.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.equal(memory.lastHeartbeatTime, '2026-01-01T00:01:00Z');
    assert.equal(conditionOf(same.conditions, 'Ready').lastTransitionTime, '2026-01-01T00:00:00Z');

    const pressed = computeNodeStatus(inputs({ previous: same.conditions, now: later + 60_000, usage: { ...relaxed, memoryAvailableBytes: Mi } }));
    assert.equal(conditionOf(pressed.conditions, 'MemoryPressure').lastTransitionTime, '2026-01-01T00:02:00Z');
    assert.equal(conditionOf(pressed.conditions, 'DiskPressure').lastTransitionTime, '2026-01-01T00:00:00Z');
  });

  it('reports --node-ip addresses (dual stack) or the host default, then the hostname', () => {
    assert.deepEqual(computeNodeStatus(inputs()).addresses, [
      { type: 'InternalIP', address: '192.168.1.10' },
      { type: 'Hostname', address: 'node-1' },
    ]);
    assert.deepEqual(computeNodeStatus(inputs({ nodeIP: '10.0.0.5, fd00::5' })).addresses, [
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'InternalIP', address: 'fd00::5' },
      { type: 'Hostname', address: 'node-1' },
    ]);
  });

  it('reports nodeInfo and the kubelet endpoint', () => {
    const status = computeNodeStatus(inputs({ config: config({ port: 10251 }) }));
    assert.deepEqual(status.daemonEndpoints, { kubeletEndpoint: { Port: 10251 } });
    assert.deepEqual(status.nodeInfo, {
      machineID: 'machine-1',
      systemUUID: 'uuid-1',
      bootID: 'boot-1',
      kernelVersion: '6.8.0',
      osImage: 'Ubuntu 24.04 LTS',
      containerRuntimeVersion: 'corral://0.1.0',
      kubeletVersion: 'v1.32.0',
      operatingSystem: 'linux',
      architecture: 'amd64',
    });
    assert.equal(status.capacity['memory'], '8Gi');
  });
});

describe('statusChanged', () => {
  it('ignores heartbeat times only', () => {
    const first = computeNodeStatus(inputs());
    const heartbeat = computeNodeStatus(inputs({ previous: first.conditions, now: t0 + 10_000 }));
    assert.notDeepEqual(heartbeat.conditions, first.conditions);
    assert.equal(statusChanged(first, heartbeat), false);

    const pressed = computeNodeStatus(inputs({ previous: first.conditions, now: t0 + 10_000, usage: { ...relaxed, memoryAvailableBytes: Mi } }));
    assert.equal(statusChanged(first, pressed), true);
    assert.equal(statusChanged(first, computeNodeStatus(inputs({ nodeIP: '10.0.0.9' }))), true);
    assert.equal(statusChanged(first, computeNodeStatus(inputs({ facts: { ...facts, memoryBytes: 16 * Gi } }))), true);
    assert.equal(statusChanged(first, { ...first, conditions: first.conditions.map((c) => ({ ...c, lastTransitionTime: '2025-01-01T00:00:00Z' })) }), true);
    // The order of keys is not a change; a key more or less is.
    const reordered = { ...first, nodeInfo: Object.fromEntries(Object.entries(first.nodeInfo).reverse()) };
    assert.equal(statusChanged(first, reordered), false);
    assert.equal(statusChanged(first, { ...first, nodeInfo: { ...first.nodeInfo, extra: '' } }), true);
    const { bootID: _bootID, ...withoutBootID } = first.nodeInfo;
    assert.equal(statusChanged(first, { ...first, nodeInfo: withoutBootID }), true);
    assert.equal(statusChanged(first, { ...first, conditions: first.conditions.slice(1) }), true);
  });

  it('computes capacity once for statuses of the same configuration and host facts, again for new facts', () => {
    const config = inputs().config;
    const a = computeNodeStatus(inputs({ config }));
    const b = computeNodeStatus(inputs({ config, now: t0 + 10_000 }));
    assert.equal(a.capacity, b.capacity, 'one record for both');
    // Another configuration in between (the agents of two simulations in one process) keeps its own.
    const other = computeNodeStatus(inputs({ config: { ...config, maxPods: 7 } }));
    assert.equal(other.capacity['pods'], '7');
    assert.equal(computeNodeStatus(inputs({ config })).capacity, a.capacity);
    const bigger = computeNodeStatus(inputs({ config, facts: { ...facts, memoryBytes: 16 * Gi } }));
    assert.notEqual(bigger.capacity, a.capacity);
    assert.notEqual(bigger.capacity['memory'], a.capacity['memory']);
  });
});
