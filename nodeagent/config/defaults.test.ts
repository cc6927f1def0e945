import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultKubeletConfiguration, flagDefaultKubeletConfiguration } from './defaults.ts';
import { FeatureGates } from './feature-gates.ts';
import { validateKubeletConfiguration } from './validation.ts';

const second = 1000;
const minute = 60 * second;

/** Every value SetDefaults_KubeletConfiguration (1.32) sets on an empty v1beta1 object. */
const upstreamDefaults = {
  enableServer: true,
  podLogsDir: '/var/log/pods',
  syncFrequency: minute,
  fileCheckFrequency: 20 * second,
  httpCheckFrequency: 20 * second,
  address: '0.0.0.0',
  port: 10250,
  authentication: { x509: { clientCAFile: '' }, webhook: { enabled: true, cacheTTL: 2 * minute }, anonymous: { enabled: false } },
  authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: 5 * minute, cacheUnauthorizedTTL: 30 * second } },
  registryPullQPS: 5,
  registryBurst: 10,
  eventRecordQPS: 50,
  eventBurst: 100,
  enableDebuggingHandlers: true,
  healthzPort: 10248,
  healthzBindAddress: '127.0.0.1',
  oomScoreAdj: -999,
  streamingConnectionIdleTimeout: 4 * 60 * minute,
  nodeStatusReportFrequency: 5 * minute,
  nodeStatusUpdateFrequency: 10 * second,
  nodeLeaseDurationSeconds: 40,
  imageMinimumGCAge: 2 * minute,
  imageGCHighThresholdPercent: 85,
  imageGCLowThresholdPercent: 80,
  volumeStatsAggPeriod: minute,
  cgroupsPerQOS: true,
  cgroupDriver: 'cgroupfs',
  cpuManagerPolicy: 'none',
  cpuManagerReconcilePeriod: 10 * second,
  memoryManagerPolicy: 'None',
  topologyManagerPolicy: 'none',
  topologyManagerScope: 'container',
  runtimeRequestTimeout: 2 * minute,
  hairpinMode: 'promiscuous-bridge',
  maxPods: 110,
  podPidsLimit: -1,
  resolvConf: '/etc/resolv.conf',
  cpuCFSQuota: true,
  cpuCFSQuotaPeriod: 100,
  nodeStatusMaxImages: 50,
  maxOpenFiles: 1000000,
  contentType: 'application/vnd.kubernetes.protobuf',
  kubeAPIQPS: 50,
  kubeAPIBurst: 100,
  serializeImagePulls: true,
  maxParallelImagePulls: null,
  evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%', 'imagefs.available': '15%' },
  evictionPressureTransitionPeriod: 5 * minute,
  enableControllerAttachDetach: true,
  makeIPTablesUtilChains: true,
  iptablesMasqueradeBit: 14,
  iptablesDropBit: 15,
  failSwapOn: true,
  containerLogMaxSize: '10Mi',
  containerLogMaxFiles: 5,
  containerLogMaxWorkers: 1,
  containerLogMonitorInterval: 10 * second,
  configMapAndSecretChangeDetectionStrategy: 'Watch',
  enforceNodeAllocatable: ['pods'],
  volumePluginDir: '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/',
  logging: {
    format: 'text',
    flushFrequency: 5 * second,
    verbosity: 0,
    vmodule: [],
    options: { text: { splitStream: false, infoBufferSize: '0' }, json: { splitStream: false, infoBufferSize: '0' } },
  },
  enableSystemLogHandler: true,
  enableProfilingHandler: true,
  enableDebugFlagsHandler: true,
  seccompDefault: false,
  memoryThrottlingFactor: 0.9,
  registerNode: true,
  localStorageCapacityIsolation: true,
  containerRuntimeEndpoint: 'unix:///run/containerd/containerd.sock',
  failCgroupV1: false,
};

describe('KubeletConfiguration defaults', () => {
  it("an empty file gets upstream's defaults, other fields Go's zero values, and is valid", () => {
    const config = defaultKubeletConfiguration({});
    for (const [field, value] of Object.entries(upstreamDefaults)) assert.deepEqual(config[field as keyof typeof config], value, field);
    assert.equal(config.readOnlyPort, 0);
    assert.equal(config.staticPodPath, '');
    assert.deepEqual(config.featureGates, {});
    assert.equal(config.tracing, null);
    assert.deepEqual(validateKubeletConfiguration(config, FeatureGates.from({}).gates), []);
  });

  it('keeps an explicit zero in a pointer field and defaults a zero in a value field', () => {
    const config = defaultKubeletConfiguration({ healthzPort: 0, registryPullQPS: 0, port: 0, maxPods: 0, syncFrequency: '0s', resolvConf: '' });
    assert.equal(config.healthzPort, 0);
    assert.equal(config.registryPullQPS, 0);
    assert.equal(config.port, 10250);
    assert.equal(config.maxPods, 110);
    assert.equal(config.syncFrequency, minute);
    assert.equal(config.resolvConf, '');
  });

  it('keeps an explicit empty list or map (not nil to upstream)', () => {
    const config = defaultKubeletConfiguration({ enforceNodeAllocatable: [], evictionHard: {} });
    assert.deepEqual(config.enforceNodeAllocatable, []);
    assert.deepEqual(config.evictionHard, {});
  });

  it('nodeStatusReportFrequency follows an explicit nodeStatusUpdateFrequency', () => {
    assert.equal(defaultKubeletConfiguration({ nodeStatusUpdateFrequency: '20s' }).nodeStatusReportFrequency, 20 * second);
    assert.equal(defaultKubeletConfiguration({ nodeStatusUpdateFrequency: '20s', nodeStatusReportFrequency: '1m' }).nodeStatusReportFrequency, minute);
  });

  it('podPidsLimit: negative becomes -1, a positive value stays', () => {
    assert.equal(defaultKubeletConfiguration({ podPidsLimit: -5 }).podPidsLimit, -1);
    assert.equal(defaultKubeletConfiguration({ podPidsLimit: 1024 }).podPidsLimit, 1024);
  });

  it('serializeImagePulls defaults to false when maxParallelImagePulls allows parallel pulls', () => {
    assert.equal(defaultKubeletConfiguration({ maxParallelImagePulls: 5 }).serializeImagePulls, false);
    assert.equal(defaultKubeletConfiguration({ maxParallelImagePulls: 1 }).serializeImagePulls, true);
    assert.equal(defaultKubeletConfiguration({ maxParallelImagePulls: 5, serializeImagePulls: true }).serializeImagePulls, true);
  });

  it('the command line starts from the legacy defaults where they differ from the file', () => {
    const config = flagDefaultKubeletConfiguration();
    assert.equal(config.authentication.anonymous.enabled, true);
    assert.equal(config.authentication.webhook.enabled, false);
    assert.equal(config.authorization.mode, 'AlwaysAllow');
    assert.equal(config.readOnlyPort, 10255);
    assert.equal(config.port, 10250);
  });
});
