/**
 * Upstream's ValidateKubeletConfiguration (pkg/kubelet/apis/config/validation/validation.go) over
 * the 1.32 fields: every rule's message as upstream words it, every problem listed (upstream
 * aggregates them), in upstream's order. Host-dependent rules (cgroup v1, Windows) and those of
 * fields corral does not carry are left out; see the README of this folder.
 */
import { posix } from 'node:path';
import { formatGoDuration } from '../../shared/go/duration.ts';
import { goQuote } from '../../shared/go/format.ts';
import { isQualifiedName, isValidLabelValue } from '../../shared/validation/names.ts';
import type { FeatureGates } from './feature-gates.ts';
import type { KubeletConfiguration } from './fields.ts';
import { validateShowHiddenMetricsVersion } from '../../shared/version.ts';

const invalid = (message: string): string => `invalid configuration: ${message}`;
const inRange = (value: number, min: number, max: number): boolean => value >= min && value <= max;
const isPort = (value: number): boolean => inRange(value, 1, 65535);
/** Go's %q of a []string: `["a" "b"]`. */
const quoteList = (values: readonly string[]): string => `[${values.map(goQuote).join(' ')}]`;

const topologyPolicies = ['none', 'best-effort', 'restricted', 'single-numa-node'];
const hairpinModes = { none: 'none', veth: 'hairpin-veth', bridge: 'promiscuous-bridge' };

/** Go's filepath.Clean on Linux. */
function goClean(path: string): string {
  if (path === '') return '.';
  const normalized = posix.normalize(path);
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}

/** strconv.Atoi's error for text that is not a decimal int. */
function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`strconv.Atoi: parsing ${goQuote(text)}: invalid syntax`);
  return Number(text);
}

/** k8s.io/utils/cpuset.Parse: `0-3,7`; throws its error. */
export function parseCpuSet(text: string): number[] {
  const cpus = new Set<number>();
  if (text === '') return [];
  for (const range of text.split(',')) {
    const dash = range.indexOf('-');
    if (dash < 0) {
      cpus.add(atoi(range));
      continue;
    }
    const start = atoi(range.slice(0, dash));
    const end = atoi(range.slice(dash + 1));
    if (start > end) throw new Error(`invalid range ${goQuote(range)} (${start} > ${end})`);
    for (let cpu = start; cpu <= end; cpu++) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}

/** pkg/util/taints CheckTaintValidation: a qualified key, a label value, a known effect. */
function isValidTaint(taint: KubeletConfiguration['registerWithTaints'][number]): boolean {
  return (
    isQualifiedName(taint.key).length === 0 &&
    (taint.value === '' || isValidLabelValue(taint.value).length === 0) &&
    (taint.effect === '' || ['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(taint.effect))
  );
}

function validateEnforceNodeAllocatable(kc: KubeletConfiguration, errors: string[]): void {
  const enforce = kc.enforceNodeAllocatable;
  const has = (key: string): boolean => enforce.includes(key);
  const onlyTogether = (a: string, b: string): void => {
    if (has(a) && has(b))
      errors.push(invalid(`both ${goQuote(a)} and ${goQuote(b)} cannot be specified together in enforceNodeAllocatable (--enforce-node-allocatable)`));
  };
  onlyTogether('system-reserved', 'system-reserved-compressible');
  onlyTogether('kube-reserved', 'kube-reserved-compressible');
  const seen = new Set<string>();
  for (const value of enforce) {
    if (seen.has(value)) {
      errors.push(invalid(`duplicated enforcements ${goQuote(value)} in enforceNodeAllocatable (--enforce-node-allocatable)`));
      continue;
    }
    seen.add(value);
    switch (value) {
      case 'pods':
        break;
      case 'system-reserved':
      case 'system-reserved-compressible':
        if (kc.systemReservedCgroup === '') {
          errors.push(
            invalid(
              'systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" or "system-reserved-compressible" included in enforceNodeAllocatable (--enforce-node-allocatable)',
            ),
          );
        }
        break;
      case 'kube-reserved':
      case 'kube-reserved-compressible':
        if (kc.kubeReservedCgroup === '') {
          errors.push(
            invalid(
              'kubeReservedCgroup (--kube-reserved-cgroup) must be specified when "kube-reserved" or "kube-reserved-compressible" included in enforceNodeAllocatable (--enforce-node-allocatable)',
            ),
          );
        }
        break;
      case 'none':
        if (enforce.length > 1)
          errors.push(invalid('enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when "none" is specified'));
        continue;
      default:
        errors.push(
          invalid(
            `option ${goQuote(value)} specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "pods", "system-reserved", "system-reserved-compressible", "kube-reserved", "kube-reserved-compressible" or "none"`,
          ),
        );
        continue;
    }
    if (!kc.cgroupsPerQOS)
      errors.push(
        invalid(
          `cgroupsPerQOS (--cgroups-per-qos) must be set to true when ${goQuote(value)} contained in enforceNodeAllocatable (--enforce-node-allocatable)`,
        ),
      );
  }
}

function validateShutdown(kc: KubeletConfiguration, gates: FeatureGates, errors: string[]): void {
  const period = kc.shutdownGracePeriod;
  const critical = kc.shutdownGracePeriodCriticalPods;
  if (gates.enabled('GracefulNodeShutdown')) {
    if (critical > period)
      errors.push(invalid(`shutdownGracePeriodCriticalPods ${formatGoDuration(critical)} must be <= shutdownGracePeriod ${formatGoDuration(period)}`));
    if (period < 0 || (period > 0 && period < 1000))
      errors.push(invalid(`shutdownGracePeriod ${formatGoDuration(period)} must be either zero or otherwise >= 1 sec`));
    if (critical < 0 || (critical > 0 && critical < 1000)) {
      errors.push(invalid(`shutdownGracePeriodCriticalPods ${formatGoDuration(critical)} must be either zero or otherwise >= 1 sec`));
    }
  }
  if ((period > 0 || critical > 0) && !gates.enabled('GracefulNodeShutdown')) {
    errors.push(invalid('specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown'));
  }
  const byPriority = kc.shutdownGracePeriodByPodPriority.length > 0;
  if (gates.enabled('GracefulNodeShutdownBasedOnPodPriority')) {
    if (byPriority && (period > 0 || critical > 0))
      errors.push(invalid('Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time'));
  } else if (byPriority) {
    errors.push(invalid('Specifying shutdownGracePeriodByPodPriority requires feature gate GracefulNodeShutdownBasedOnPodPriority'));
  }
}

function validatePodLogsDir(dir: string, errors: string[]): void {
  if (dir === '') errors.push(invalid('podLogsDir was not specified'));
  if (!dir.startsWith('/')) errors.push(invalid(`pod logs path ${goQuote(dir)} must be absolute path`));
  if (goClean(dir) !== dir) errors.push(invalid(`pod logs path ${goQuote(dir)} must be normalized`));
  // upstream's message, typo included
  if ([...dir].some((ch) => (ch.codePointAt(0) ?? 0) > 0x7f)) errors.push(invalid(`pod logs path ${goQuote(dir)} mut contains ASCII characters only`));
}

/** Every problem of `kc` with the feature gates in effect, as upstream words them; empty when valid. */
export function validateKubeletConfiguration(kc: KubeletConfiguration, gates: FeatureGates): string[] {
  const errors: string[] = [];
  const push = (bad: boolean, message: string): void => {
    if (bad) errors.push(invalid(message));
  };
  push(kc.nodeLeaseDurationSeconds <= 0, 'nodeLeaseDurationSeconds must be greater than 0');
  push(kc.systemCgroups !== '' && kc.cgroupRoot === '', 'systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified');
  push(kc.eventBurst < 0, `eventBurst (--event-burst) ${kc.eventBurst} must not be a negative number`);
  push(kc.eventRecordQPS < 0, `eventRecordQPS (--event-qps) ${kc.eventRecordQPS} must not be a negative number`);
  push(kc.healthzPort !== 0 && !isPort(kc.healthzPort), `healthzPort (--healthz-port) ${kc.healthzPort} must be between 1 and 65535, inclusive`);
  const cfsPeriod = formatGoDuration(kc.cpuCFSQuotaPeriod);
  if (!gates.enabled('CustomCPUCFSQuotaPeriod')) {
    push(kc.cpuCFSQuotaPeriod !== 100, `cpuCFSQuotaPeriod (--cpu-cfs-quota-period) ${cfsPeriod} requires feature gate CustomCPUCFSQuotaPeriod`);
  } else {
    push(!inRange(kc.cpuCFSQuotaPeriod, 1, 1000), `cpuCFSQuotaPeriod (--cpu-cfs-quota-period) ${cfsPeriod} must be between 1ms and 1sec, inclusive`);
  }
  const high = kc.imageGCHighThresholdPercent;
  const low = kc.imageGCLowThresholdPercent;
  push(!inRange(high, 0, 100), `imageGCHighThresholdPercent (--image-gc-high-threshold) ${high} must be between 0 and 100, inclusive`);
  push(!inRange(low, 0, 100), `imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be between 0 and 100, inclusive`);
  push(
    low >= high,
    `imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) ${high}`,
  );
  const minAge = kc.imageMinimumGCAge;
  const maxAge = kc.imageMaximumGCAge;
  push(maxAge !== 0 && !gates.enabled('ImageMaximumGCAge'), 'ImageMaximumGCAge feature gate is required for Kubelet configuration option imageMaximumGCAge');
  push(minAge < 0, `imageMinimumGCAge ${formatGoDuration(minAge)} must not be negative`);
  push(maxAge < 0, `imageMaximumGCAge ${formatGoDuration(maxAge)} must not be negative`);
  push(maxAge > 0 && maxAge <= minAge, `imageMaximumGCAge ${formatGoDuration(maxAge)} must be greater than imageMinimumGCAge ${formatGoDuration(minAge)}`);
  push(!inRange(kc.iptablesDropBit, 0, 31), `iptablesDropBit (--iptables-drop-bit) ${kc.iptablesDropBit} must be between 0 and 31, inclusive`);
  push(
    !inRange(kc.iptablesMasqueradeBit, 0, 31),
    `iptablesMasqueradeBit (--iptables-masquerade-bit) ${kc.iptablesMasqueradeBit} must be between 0 and 31, inclusive`,
  );
  push(kc.kubeAPIBurst < 0, `kubeAPIBurst (--kube-api-burst) ${kc.kubeAPIBurst} must not be a negative number`);
  push(kc.kubeAPIQPS < 0, `kubeAPIQPS (--kube-api-qps) ${kc.kubeAPIQPS} must not be a negative number`);
  push(kc.nodeStatusMaxImages < -1, `nodeStatusMaxImages (--node-status-max-images) ${kc.nodeStatusMaxImages} must be -1 or greater`);
  push(kc.maxOpenFiles < 0, `maxOpenFiles (--max-open-files) ${kc.maxOpenFiles} must not be a negative number`);
  push(kc.maxPods < 0, `maxPods (--max-pods) ${kc.maxPods} must not be a negative number`);
  push(!inRange(kc.oomScoreAdj, -1000, 1000), `oomScoreAdj (--oom-score-adj) ${kc.oomScoreAdj} must be between -1000 and 1000, inclusive`);
  push(kc.podsPerCore < 0, `podsPerCore (--pods-per-core) ${kc.podsPerCore} must not be a negative number`);
  push(!isPort(kc.port), `port (--port) ${kc.port} must be between 1 and 65535, inclusive`);
  push(kc.readOnlyPort !== 0 && !isPort(kc.readOnlyPort), `readOnlyPort (--read-only-port) ${kc.readOnlyPort} must be between 0 and 65535, inclusive`);
  push(kc.registryBurst < 0, `registryBurst (--registry-burst) ${kc.registryBurst} must not be a negative number`);
  push(kc.registryPullQPS < 0, `registryPullQPS (--registry-qps) ${kc.registryPullQPS} must not be a negative number`);
  const parallel = kc.maxParallelImagePulls;
  push(parallel !== null && parallel < 1, `maxParallelImagePulls ${parallel} must be a positive number`);
  push(
    kc.serializeImagePulls && parallel !== null && parallel > 1,
    'maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls (--serialize-image-pulls) is set to false',
  );
  push(
    kc.serverTLSBootstrap && !gates.enabled('RotateKubeletServerCertificate'),
    `serverTLSBootstrap ${kc.serverTLSBootstrap} requires feature gate RotateKubeletServerCertificate`,
  );
  push(kc.runOnce, `runOnce (--runOnce) ${kc.runOnce}, Runonce mode has been deprecated and should not be set`);
  for (const taint of kc.registerWithTaints) {
    if (!isValidTaint(taint))
      errors.push(`invalid taint: {${taint.key} ${taint.value} ${taint.effect} ${taint.timeAdded === null ? '<nil>' : taint.timeAdded}}`);
    push(taint.timeAdded !== null, 'taint.TimeAdded is not nil');
  }
  push(
    !topologyPolicies.includes(kc.topologyManagerPolicy),
    `topologyManagerPolicy (--topology-manager-policy) ${goQuote(kc.topologyManagerPolicy)} must be one of: ${quoteList(topologyPolicies)}`,
  );
  push(
    kc.topologyManagerScope !== 'container' && kc.topologyManagerScope !== 'pod',
    `topologyManagerScope (--topology-manager-scope) ${goQuote(kc.topologyManagerScope)} must be one of: "container", or "pod"`,
  );
  validateShutdown(kc, gates, errors);
  const swap = kc.memorySwap.swapBehavior;
  if (gates.enabled('NodeSwap')) {
    push(!['', 'NoSwap', 'LimitedSwap'].includes(swap), `memorySwap.swapBehavior ${goQuote(swap)} must be one of: "", "LimitedSwap" or "NoSwap"`);
  } else {
    push(swap !== '', 'memorySwap.swapBehavior cannot be set when NodeSwap feature flag is disabled');
  }
  const maxRestart = kc.crashLoopBackOff.maxContainerRestartPeriod;
  if (gates.enabled('KubeletCrashLoopBackOffMax')) {
    push(maxRestart === null, 'FeatureGate KubeletCrashLoopBackOffMax is enabled, CrashLoopBackOff.MaxContainerRestartPeriod must be set');
    push(
      maxRestart !== null && !inRange(Math.trunc(maxRestart), 1000, 300000),
      `CrashLoopBackOff.MaxContainerRestartPeriod (got: ${(maxRestart ?? 0) / 1000} seconds) must be set between 1s and 300s`,
    );
  } else {
    push(maxRestart !== null, 'FeatureGate KubeletCrashLoopBackOffMax not enabled, CrashLoopBackOff.MaxContainerRestartPeriod must not be set');
  }
  validateEnforceNodeAllocatable(kc, errors);
  push(
    !Object.values(hairpinModes).includes(kc.hairpinMode),
    `option ${goQuote(kc.hairpinMode)} specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"`,
  );
  if (kc.reservedSystemCPUs !== '') {
    push(
      kc.systemReservedCgroup !== '' || kc.kubeReservedCgroup !== '',
      "can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)",
    );
    try {
      parseCpuSet(kc.reservedSystemCPUs);
    } catch (err) {
      errors.push(
        invalid(`unable to parse reservedSystemCPUs (--reserved-cpus) ${kc.reservedSystemCPUs}, error: ${err instanceof Error ? err.message : String(err)}`),
      );
    }
  }
  try {
    validateShowHiddenMetricsVersion(kc.showHiddenMetricsForVersion);
  } catch (err) {
    errors.push(err instanceof Error ? err.message : String(err));
  }
  if (kc.logging.format !== 'text' && kc.logging.format !== 'json')
    errors.push(`logging.format: Invalid value: ${goQuote(kc.logging.format)}: Unsupported log format`);
  const factor = kc.memoryThrottlingFactor;
  push(factor <= 0 || factor > 1, `memoryThrottlingFactor ${factor} must be greater than 0 and less than or equal to 1.0`);
  push(kc.containerRuntimeEndpoint === '', 'the containerRuntimeEndpoint was not specified or empty');
  push(kc.enableSystemLogQuery && !gates.enabled('NodeLogQuery'), 'NodeLogQuery feature gate is required for enableSystemLogQuery');
  push(kc.enableSystemLogQuery && !kc.enableSystemLogHandler, 'enableSystemLogHandler is required for enableSystemLogQuery');
  push(kc.containerLogMaxWorkers < 1, 'containerLogMaxWorkers must be greater than or equal to 1');
  push(kc.containerLogMonitorInterval < 3000, 'containerLogMonitorInterval must be a positive time duration greater than or equal to 3s');
  push(kc.containerLogMaxFiles <= 1, 'containerLogMaxFiles must be greater than 1');
  validatePodLogsDir(kc.podLogsDir, errors);
  return errors;
}
