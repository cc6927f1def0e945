import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultKubeletConfiguration } from './defaults.ts';
import { FeatureGates } from './feature-gates.ts';
import { parseCpuSet, validateKubeletConfiguration } from './validation.ts';

/** The errors of a defaulted configuration built from `raw`, with `gates` set. */
function errorsOf(raw: Record<string, unknown>, gates: Record<string, boolean> = {}): string[] {
  return validateKubeletConfiguration(defaultKubeletConfiguration(raw), FeatureGates.from(gates).gates);
}

const cases: [name: string, raw: Record<string, unknown>, expected: string, gates?: Record<string, boolean>][] = [
  ['nodeLeaseDurationSeconds', { nodeLeaseDurationSeconds: -1 }, 'invalid configuration: nodeLeaseDurationSeconds must be greater than 0'],
  [
    'systemCgroups without cgroupRoot',
    { systemCgroups: '/system' },
    'invalid configuration: systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified',
  ],
  ['eventBurst', { eventBurst: -1 }, 'invalid configuration: eventBurst (--event-burst) -1 must not be a negative number'],
  ['eventRecordQPS', { eventRecordQPS: -1 }, 'invalid configuration: eventRecordQPS (--event-qps) -1 must not be a negative number'],
  ['healthzPort', { healthzPort: 70000 }, 'invalid configuration: healthzPort (--healthz-port) 70000 must be between 1 and 65535, inclusive'],
  [
    'cpuCFSQuotaPeriod without its gate',
    { cpuCFSQuotaPeriod: '50ms' },
    'invalid configuration: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) 50ms requires feature gate CustomCPUCFSQuotaPeriod',
  ],
  [
    'cpuCFSQuotaPeriod out of range',
    { cpuCFSQuotaPeriod: '2s' },
    'invalid configuration: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) 2s must be between 1ms and 1sec, inclusive',
    { CustomCPUCFSQuotaPeriod: true },
  ],
  [
    'imageGCHighThresholdPercent range',
    { imageGCHighThresholdPercent: 101 },
    'invalid configuration: imageGCHighThresholdPercent (--image-gc-high-threshold) 101 must be between 0 and 100, inclusive',
  ],
  [
    'imageGCLowThresholdPercent range',
    { imageGCLowThresholdPercent: -1 },
    'invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) -1 must be between 0 and 100, inclusive',
  ],
  [
    'image GC thresholds order',
    { imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60 },
    'invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 60 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 50',
  ],
  [
    'imageMaximumGCAge without its gate',
    { imageMaximumGCAge: '1h' },
    'invalid configuration: ImageMaximumGCAge feature gate is required for Kubelet configuration option imageMaximumGCAge',
    { ImageMaximumGCAge: false },
  ],
  ['imageMinimumGCAge negative', { imageMinimumGCAge: '-1m' }, 'invalid configuration: imageMinimumGCAge -1m0s must not be negative'],
  ['imageMaximumGCAge vs minimum', { imageMaximumGCAge: '1m' }, 'invalid configuration: imageMaximumGCAge 1m0s must be greater than imageMinimumGCAge 2m0s'],
  ['iptablesDropBit', { iptablesDropBit: 32 }, 'invalid configuration: iptablesDropBit (--iptables-drop-bit) 32 must be between 0 and 31, inclusive'],
  [
    'iptablesMasqueradeBit',
    { iptablesMasqueradeBit: -1 },
    'invalid configuration: iptablesMasqueradeBit (--iptables-masquerade-bit) -1 must be between 0 and 31, inclusive',
  ],
  ['kubeAPIBurst', { kubeAPIBurst: -1 }, 'invalid configuration: kubeAPIBurst (--kube-api-burst) -1 must not be a negative number'],
  ['kubeAPIQPS', { kubeAPIQPS: -1 }, 'invalid configuration: kubeAPIQPS (--kube-api-qps) -1 must not be a negative number'],
  ['nodeStatusMaxImages', { nodeStatusMaxImages: -2 }, 'invalid configuration: nodeStatusMaxImages (--node-status-max-images) -2 must be -1 or greater'],
  ['maxOpenFiles', { maxOpenFiles: -1 }, 'invalid configuration: maxOpenFiles (--max-open-files) -1 must not be a negative number'],
  ['maxPods', { maxPods: -1 }, 'invalid configuration: maxPods (--max-pods) -1 must not be a negative number'],
  ['oomScoreAdj', { oomScoreAdj: -1001 }, 'invalid configuration: oomScoreAdj (--oom-score-adj) -1001 must be between -1000 and 1000, inclusive'],
  ['podsPerCore', { podsPerCore: -1 }, 'invalid configuration: podsPerCore (--pods-per-core) -1 must not be a negative number'],
  ['port', { port: 65536 }, 'invalid configuration: port (--port) 65536 must be between 1 and 65535, inclusive'],
  ['readOnlyPort', { readOnlyPort: -1 }, 'invalid configuration: readOnlyPort (--read-only-port) -1 must be between 0 and 65535, inclusive'],
  ['registryBurst', { registryBurst: -1 }, 'invalid configuration: registryBurst (--registry-burst) -1 must not be a negative number'],
  ['registryPullQPS', { registryPullQPS: -1 }, 'invalid configuration: registryPullQPS (--registry-qps) -1 must not be a negative number'],
  ['maxParallelImagePulls positive', { maxParallelImagePulls: 0 }, 'invalid configuration: maxParallelImagePulls 0 must be a positive number'],
  [
    'maxParallelImagePulls with serializeImagePulls',
    { maxParallelImagePulls: 3, serializeImagePulls: true },
    'invalid configuration: maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls (--serialize-image-pulls) is set to false',
  ],
  [
    'serverTLSBootstrap without its gate',
    { serverTLSBootstrap: true },
    'invalid configuration: serverTLSBootstrap true requires feature gate RotateKubeletServerCertificate',
    { RotateKubeletServerCertificate: false },
  ],
  ['runOnce', { runOnce: true }, 'invalid configuration: runOnce (--runOnce) true, Runonce mode has been deprecated and should not be set'],
  ['invalid taint', { registerWithTaints: [{ key: 'a b', effect: 'NoSchedule' }] }, 'invalid taint: {a b  NoSchedule <nil>}'],
  [
    'topologyManagerPolicy',
    { topologyManagerPolicy: 'best' },
    'invalid configuration: topologyManagerPolicy (--topology-manager-policy) "best" must be one of: ["none" "best-effort" "restricted" "single-numa-node"]',
  ],
  [
    'topologyManagerScope',
    { topologyManagerScope: 'node' },
    'invalid configuration: topologyManagerScope (--topology-manager-scope) "node" must be one of: "container", or "pod"',
  ],
  [
    'shutdown grace periods order',
    { shutdownGracePeriod: '10s', shutdownGracePeriodCriticalPods: '20s' },
    'invalid configuration: shutdownGracePeriodCriticalPods 20s must be <= shutdownGracePeriod 10s',
  ],
  [
    'shutdownGracePeriod under a second',
    { shutdownGracePeriod: '500ms' },
    'invalid configuration: shutdownGracePeriod 500ms must be either zero or otherwise >= 1 sec',
  ],
  [
    'shutdown by priority with a grace period',
    { shutdownGracePeriod: '10s', shutdownGracePeriodByPodPriority: [{ priority: 1, shutdownGracePeriodSeconds: 5 }] },
    'invalid configuration: Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time',
  ],
  [
    'swapBehavior',
    { memorySwap: { swapBehavior: 'Unlimited' } },
    'invalid configuration: memorySwap.swapBehavior "Unlimited" must be one of: "", "LimitedSwap" or "NoSwap"',
  ],
  [
    'swapBehavior without NodeSwap',
    { memorySwap: { swapBehavior: 'LimitedSwap' } },
    'invalid configuration: memorySwap.swapBehavior cannot be set when NodeSwap feature flag is disabled',
    { NodeSwap: false },
  ],
  [
    'crashLoopBackOff without its gate',
    { crashLoopBackOff: { maxContainerRestartPeriod: '10s' } },
    'invalid configuration: FeatureGate KubeletCrashLoopBackOffMax not enabled, CrashLoopBackOff.MaxContainerRestartPeriod must not be set',
  ],
  [
    'crashLoopBackOff out of range',
    { crashLoopBackOff: { maxContainerRestartPeriod: '400s' } },
    'invalid configuration: CrashLoopBackOff.MaxContainerRestartPeriod (got: 400 seconds) must be set between 1s and 300s',
    { KubeletCrashLoopBackOffMax: true },
  ],
  [
    'enforceNodeAllocatable system-reserved without its cgroup',
    { enforceNodeAllocatable: ['pods', 'system-reserved'] },
    'invalid configuration: systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" or "system-reserved-compressible" included in enforceNodeAllocatable (--enforce-node-allocatable)',
  ],
  [
    'enforceNodeAllocatable kube-reserved without its cgroup',
    { enforceNodeAllocatable: ['kube-reserved'] },
    'invalid configuration: kubeReservedCgroup (--kube-reserved-cgroup) must be specified when "kube-reserved" or "kube-reserved-compressible" included in enforceNodeAllocatable (--enforce-node-allocatable)',
  ],
  [
    'enforceNodeAllocatable none with others',
    { enforceNodeAllocatable: ['none', 'pods'] },
    'invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when "none" is specified',
  ],
  [
    'enforceNodeAllocatable unknown option',
    { enforceNodeAllocatable: ['all'] },
    'invalid configuration: option "all" specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "pods", "system-reserved", "system-reserved-compressible", "kube-reserved", "kube-reserved-compressible" or "none"',
  ],
  [
    'enforceNodeAllocatable duplicate',
    { enforceNodeAllocatable: ['pods', 'pods'] },
    'invalid configuration: duplicated enforcements "pods" in enforceNodeAllocatable (--enforce-node-allocatable)',
  ],
  [
    'enforceNodeAllocatable without cgroupsPerQOS',
    { cgroupsPerQOS: false },
    'invalid configuration: cgroupsPerQOS (--cgroups-per-qos) must be set to true when "pods" contained in enforceNodeAllocatable (--enforce-node-allocatable)',
  ],
  [
    'hairpinMode',
    { hairpinMode: 'veth' },
    'invalid configuration: option "veth" specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"',
  ],
  [
    'reservedSystemCPUs with a reserved cgroup',
    { reservedSystemCPUs: '0-1', kubeReservedCgroup: '/kube' },
    "invalid configuration: can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)",
  ],
  [
    'reservedSystemCPUs unparsable',
    { reservedSystemCPUs: '3-1' },
    'invalid configuration: unable to parse reservedSystemCPUs (--reserved-cpus) 3-1, error: invalid range "3-1" (3 > 1)',
  ],
  [
    'showHiddenMetricsForVersion',
    { showHiddenMetricsForVersion: '1.30' },
    "--show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the previous minor version is allowed",
  ],
  ['logging.format', { logging: { format: 'xml' } }, 'logging.format: Invalid value: "xml": Unsupported log format'],
  [
    'memoryThrottlingFactor',
    { memoryThrottlingFactor: 1.5 },
    'invalid configuration: memoryThrottlingFactor 1.5 must be greater than 0 and less than or equal to 1.0',
  ],
  [
    'enableSystemLogQuery without its gate',
    { enableSystemLogQuery: true },
    'invalid configuration: NodeLogQuery feature gate is required for enableSystemLogQuery',
  ],
  [
    'enableSystemLogQuery without the handler',
    { enableSystemLogQuery: true, enableSystemLogHandler: false },
    'invalid configuration: enableSystemLogHandler is required for enableSystemLogQuery',
    { NodeLogQuery: true },
  ],
  ['containerLogMaxWorkers', { containerLogMaxWorkers: 0 }, 'invalid configuration: containerLogMaxWorkers must be greater than or equal to 1'],
  [
    'containerLogMonitorInterval',
    { containerLogMonitorInterval: '1s' },
    'invalid configuration: containerLogMonitorInterval must be a positive time duration greater than or equal to 3s',
  ],
  ['containerLogMaxFiles', { containerLogMaxFiles: 1 }, 'invalid configuration: containerLogMaxFiles must be greater than 1'],
  ['podLogsDir relative', { podLogsDir: 'logs' }, 'invalid configuration: pod logs path "logs" must be absolute path'],
  ['podLogsDir not normalized', { podLogsDir: '/var/log/../pods/' }, 'invalid configuration: pod logs path "/var/log/../pods/" must be normalized'],
];

describe('ValidateKubeletConfiguration', () => {
  for (const [name, raw, expected, gates] of cases) {
    it(name, () => assert.deepEqual(errorsOf(raw, gates), [expected]));
  }

  it('lists every problem at once, in upstream order', () => {
    assert.deepEqual(errorsOf({ maxPods: -1, port: 70000, iptablesDropBit: 40, nodeLeaseDurationSeconds: -5 }), [
      'invalid configuration: nodeLeaseDurationSeconds must be greater than 0',
      'invalid configuration: iptablesDropBit (--iptables-drop-bit) 40 must be between 0 and 31, inclusive',
      'invalid configuration: maxPods (--max-pods) -1 must not be a negative number',
      'invalid configuration: port (--port) 70000 must be between 1 and 65535, inclusive',
    ]);
  });

  it('accepts the edges of each range', () => {
    assert.deepEqual(
      errorsOf({ port: 65535, oomScoreAdj: -1000, nodeStatusMaxImages: -1, iptablesDropBit: 31, iptablesMasqueradeBit: 0, maxParallelImagePulls: 1 }),
      [],
    );
    assert.deepEqual(
      errorsOf({ maxParallelImagePulls: 4, serializeImagePulls: false, enforceNodeAllocatable: ['none'], showHiddenMetricsForVersion: '1.31' }),
      [],
    );
  });
});

describe('parseCpuSet (cpuset.Parse)', () => {
  it('reads lists and ranges', () => assert.deepEqual(parseCpuSet('0-2,5,3'), [0, 1, 2, 3, 5]));
  it("rejects what strconv.Atoi rejects, with Go's message", () =>
    assert.throws(() => parseCpuSet('a'), { message: 'strconv.Atoi: parsing "a": invalid syntax' }));
});
