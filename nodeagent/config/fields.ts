/**
 * The fields of `kubelet.config.k8s.io/v1beta1` KubeletConfiguration as of Kubernetes 1.32 (the
 * version corral reports), in one table: each field's JSON type, whether Go holds it in a pointer,
 * and its default from upstream's SetDefaults_KubeletConfiguration. The decoder's schema, the
 * defaulting and the TypeScript type of a loaded configuration all come from this table, so they
 * cannot disagree.
 *
 * Durations are held in milliseconds (Go's metav1.Duration is text on the wire: `1m0s`).
 */

/** How one field is spelled in JSON and held once decoded. */
export type FieldKind =
  'bool' | 'int32' | 'int64' | 'float64' | 'string' | 'duration' | 'quantity' | 'strings' | 'stringMap' | 'boolMap' | 'stringsMap' | 'struct' | 'structs';

export interface FieldSpec {
  kind: FieldKind;
  /**
   * The default, in the decoded form (milliseconds for durations). Applied when the field is
   * absent (`when: 'absent'`, a Go pointer or a nil list or map) or absent or zero (`when:
   * 'zero'`, a Go value). Fields without one keep Go's zero value.
   */
  default?: unknown;
  when?: 'absent' | 'zero';
  /** A Go pointer without a default: null when absent. */
  nullable?: true;
  /** The fields of a struct, or of each item of a list of structs. */
  fields?: FieldTable;
}

export type FieldTable = Readonly<Record<string, FieldSpec>>;

// Each helper keeps its kind literal, so that the type of a decoded field follows from the table.
const valued = <K extends FieldKind>(kind: K, def: unknown, pointer: boolean) =>
  def === undefined ? { kind } : { kind, default: def, when: pointer ? ('absent' as const) : ('zero' as const) };
const bool = (def?: boolean, pointer = false) => valued('bool', def, pointer);
const int32 = (def?: number, pointer = false) => valued('int32', def, pointer);
const int64 = (def?: number) => valued('int64', def, false);
const string = (def?: string, pointer = false) => valued('string', def, pointer);
const duration = (ms?: number, pointer = false) => valued('duration', ms, pointer);
const strings = (def?: string[]) => valued('strings', def, true);
const stringMap = (def?: Readonly<Record<string, string>>) => valued('stringMap', def, true);
const nullable = <K extends FieldKind>(kind: K) => ({ kind, nullable: true as const });
const nullableStruct = <T extends FieldTable>(fields: T) => ({ kind: 'struct' as const, nullable: true as const, fields });
const struct = <T extends FieldTable>(fields: T) => ({ kind: 'struct' as const, fields });
const structs = <T extends FieldTable>(fields: T) => ({ kind: 'structs' as const, fields });

const second = 1000;
const minute = 60 * second;

/** LoggingConfiguration (component-base logs/api/v1) with SetRecommendedLoggingConfiguration's defaults. */
const loggingFields = {
  format: string('text'),
  flushFrequency: duration(5 * second),
  verbosity: int32(),
  vmodule: structs({ filePattern: string(), verbosity: int32() }),
  options: struct({
    text: struct({ splitStream: bool(), infoBufferSize: { kind: 'quantity' } }),
    json: struct({ splitStream: bool(), infoBufferSize: { kind: 'quantity' } }),
  }),
} as const satisfies FieldTable;

/** Upstream's DefaultEvictionHard on Linux (pkg/kubelet/apis/config/v1beta1/defaults_linux.go). */
export const defaultEvictionHard: Readonly<Record<string, string>> = {
  'memory.available': '100Mi',
  'nodefs.available': '10%',
  'nodefs.inodesFree': '5%',
  'imagefs.available': '15%',
};

/**
 * Every field of KubeletConfiguration v1beta1 (1.32), in upstream's order. Three defaults depend
 * on other fields and are applied by defaults.ts: nodeStatusReportFrequency, podPidsLimit and
 * serializeImagePulls.
 */
export const kubeletFields = {
  enableServer: bool(true, true),
  staticPodPath: string(),
  podLogsDir: string('/var/log/pods'),
  syncFrequency: duration(minute),
  fileCheckFrequency: duration(20 * second),
  httpCheckFrequency: duration(20 * second),
  staticPodURL: string(),
  staticPodURLHeader: { kind: 'stringsMap' },
  address: string('0.0.0.0'),
  port: int32(10250),
  readOnlyPort: int32(),
  tlsCertFile: string(),
  tlsPrivateKeyFile: string(),
  tlsCipherSuites: strings(),
  tlsMinVersion: string(),
  rotateCertificates: bool(),
  serverTLSBootstrap: bool(),
  authentication: struct({
    x509: struct({ clientCAFile: string() }),
    webhook: struct({ enabled: bool(true, true), cacheTTL: duration(2 * minute) }),
    anonymous: struct({ enabled: bool(false, true) }),
  }),
  authorization: struct({
    mode: string('Webhook'),
    webhook: struct({ cacheAuthorizedTTL: duration(5 * minute), cacheUnauthorizedTTL: duration(30 * second) }),
  }),
  registryPullQPS: int32(5, true),
  registryBurst: int32(10),
  eventRecordQPS: int32(50, true),
  eventBurst: int32(100),
  enableDebuggingHandlers: bool(true, true),
  enableContentionProfiling: bool(),
  healthzPort: int32(10248, true),
  healthzBindAddress: string('127.0.0.1'),
  oomScoreAdj: int32(-999, true),
  clusterDomain: string(),
  clusterDNS: strings(),
  streamingConnectionIdleTimeout: duration(4 * 60 * minute),
  nodeStatusUpdateFrequency: duration(10 * second),
  nodeStatusReportFrequency: duration(),
  nodeLeaseDurationSeconds: int32(40),
  imageMinimumGCAge: duration(2 * minute),
  imageMaximumGCAge: duration(),
  imageGCHighThresholdPercent: int32(85, true),
  imageGCLowThresholdPercent: int32(80, true),
  volumeStatsAggPeriod: duration(minute),
  kubeletCgroups: string(),
  systemCgroups: string(),
  cgroupRoot: string(),
  cgroupsPerQOS: bool(true, true),
  cgroupDriver: string('cgroupfs'),
  cpuManagerPolicy: string('none'),
  singleProcessOOMKill: nullable('bool'),
  cpuManagerPolicyOptions: stringMap(),
  cpuManagerReconcilePeriod: duration(10 * second),
  memoryManagerPolicy: string('None'),
  topologyManagerPolicy: string('none'),
  topologyManagerScope: string('container'),
  topologyManagerPolicyOptions: stringMap(),
  qosReserved: stringMap(),
  runtimeRequestTimeout: duration(2 * minute),
  hairpinMode: string('promiscuous-bridge'),
  maxPods: int32(110),
  podCIDR: string(),
  podPidsLimit: { kind: 'int64' },
  resolvConf: string('/etc/resolv.conf', true),
  runOnce: bool(),
  cpuCFSQuota: bool(true, true),
  cpuCFSQuotaPeriod: duration(100, true),
  nodeStatusMaxImages: int32(50, true),
  maxOpenFiles: int64(1000000),
  contentType: string('application/vnd.kubernetes.protobuf'),
  kubeAPIQPS: int32(50, true),
  kubeAPIBurst: int32(100),
  serializeImagePulls: { kind: 'bool' },
  maxParallelImagePulls: nullable('int32'),
  evictionHard: stringMap(defaultEvictionHard),
  evictionSoft: stringMap(),
  evictionSoftGracePeriod: stringMap(),
  evictionPressureTransitionPeriod: duration(5 * minute),
  evictionMaxPodGracePeriod: int32(),
  evictionMinimumReclaim: stringMap(),
  podsPerCore: int32(),
  enableControllerAttachDetach: bool(true, true),
  protectKernelDefaults: bool(),
  makeIPTablesUtilChains: bool(true, true),
  iptablesMasqueradeBit: int32(14, true),
  iptablesDropBit: int32(15, true),
  featureGates: { kind: 'boolMap' },
  failSwapOn: bool(true, true),
  memorySwap: struct({ swapBehavior: string() }),
  containerLogMaxSize: string('10Mi'),
  containerLogMaxFiles: int32(5, true),
  containerLogMaxWorkers: int32(1, true),
  containerLogMonitorInterval: duration(10 * second, true),
  configMapAndSecretChangeDetectionStrategy: string('Watch'),
  systemReserved: stringMap(),
  kubeReserved: stringMap(),
  reservedSystemCPUs: string(),
  showHiddenMetricsForVersion: string(),
  systemReservedCgroup: string(),
  kubeReservedCgroup: string(),
  enforceNodeAllocatable: strings(['pods']),
  allowedUnsafeSysctls: strings(),
  volumePluginDir: string('/usr/libexec/kubernetes/kubelet-plugins/volume/exec/'),
  providerID: string(),
  kernelMemcgNotification: bool(),
  logging: struct(loggingFields),
  enableSystemLogHandler: bool(true, true),
  enableSystemLogQuery: bool(false, true),
  shutdownGracePeriod: duration(),
  shutdownGracePeriodCriticalPods: duration(),
  shutdownGracePeriodByPodPriority: structs({ priority: int32(), shutdownGracePeriodSeconds: int64() }),
  crashLoopBackOff: struct({ maxContainerRestartPeriod: nullable('duration') }),
  reservedMemory: structs({ numaNode: int32(), limits: stringMap() }),
  enableProfilingHandler: bool(true, true),
  enableDebugFlagsHandler: bool(true, true),
  seccompDefault: bool(false, true),
  memoryThrottlingFactor: { kind: 'float64', default: 0.9, when: 'absent' },
  registerWithTaints: structs({ key: string(), value: string(), effect: string(), timeAdded: nullable('string') }),
  registerNode: bool(true, true),
  tracing: nullableStruct({ endpoint: nullable('string'), samplingRatePerMillion: nullable('int32') }),
  localStorageCapacityIsolation: bool(true, true),
  containerRuntimeEndpoint: string('unix:///run/containerd/containerd.sock'),
  imageServiceEndpoint: string(),
  failCgroupV1: bool(false, true),
  userNamespaces: nullableStruct({ idsPerPod: nullable('int64') }),
} as const satisfies FieldTable;

interface Scalars {
  bool: boolean;
  int32: number;
  int64: number;
  float64: number;
  string: string;
  duration: number;
  quantity: string;
  strings: string[];
  stringMap: Record<string, string>;
  boolMap: Record<string, boolean>;
  stringsMap: Record<string, string[]>;
}

/** The decoded value of a field described by F. */
export type FieldValue<F extends FieldSpec> =
  | (F extends { nullable: true } ? null : never)
  | (F extends { kind: 'struct'; fields: infer T extends FieldTable }
      ? Decoded<T>
      : F extends { kind: 'structs'; fields: infer T extends FieldTable }
        ? Decoded<T>[]
        : F['kind'] extends keyof Scalars
          ? Scalars[F['kind']]
          : never);

/** An object decoded with table T. */
export type Decoded<T extends FieldTable> = { -readonly [K in keyof T]: FieldValue<T[K]> };

/** A KubeletConfiguration once decoded and defaulted (internal form: the kubelet's view of it). */
export type KubeletConfiguration = Decoded<typeof kubeletFields>;

/** The group, version and kind of the file. */
export const kubeletConfigGroup = 'kubelet.config.k8s.io';
export const kubeletConfigVersion = `${kubeletConfigGroup}/v1beta1`;
export const kubeletConfigKind = 'KubeletConfiguration';
