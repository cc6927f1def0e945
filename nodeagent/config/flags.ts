/**
 * The node agent's command line, as the kubelet's: its own flags (KubeletFlags: --config,
 * --kubeconfig, --cert-dir, ...) and the flags that set configuration fields, every one of them
 * deprecated in favour of the file. The latter are one table, flag → field path and value type, so
 * that each works the same way: parsed with pflag's rules and wording, written into the
 * configuration only when given, and warned about as pflag warns about a deprecated flag.
 */
import { goQuote } from '../../shared/go/format.ts';
import { isObject } from '../../shared/api/types.ts';
import { FlagReader, parseBoolFlag, parseDuration, parseFlagTable, type FlagSpec, type ParsedFlags } from '../../shared/process/flags.ts';
import { parseFeatureGatesFlag } from './feature-gates.ts';
import type { KubeletConfiguration } from './fields.ts';

/** How a configuration flag's text becomes its field's value (pflag's and cliflag's value types). */
export type ConfigFlagType = 'bool' | 'int32' | 'int64' | 'duration' | 'string' | 'ip' | 'strings' | 'map' | 'langleMap' | 'featureGates';

export interface ConfigFlag {
  type: ConfigFlagType;
  /** The field it sets, dotted: `authentication.anonymous.enabled`. */
  field: string;
  help: string;
}

const flag = (type: ConfigFlagType, field: string, help: string): ConfigFlag => ({ type, field, help });

/** What pflag prints for each of them (AddKubeletConfigFlags marks them all deprecated). */
export const configFlagDeprecation =
  "This parameter should be set via the config file specified by the Kubelet's --config flag. See https://kubernetes.io/docs/tasks/administer-cluster/kubelet-config-file/ for more information.";

/** The deprecated flags that set KubeletConfiguration fields (upstream's names). */
export const configFlags: Readonly<Record<string, ConfigFlag>> = {
  'enable-server': flag('bool', 'enableServer', "Enable the Kubelet's server"),
  'pod-manifest-path': flag('string', 'staticPodPath', 'Path to the directory containing static pod files to run, or the path to a single static pod file'),
  'pod-logs-dir': flag('string', 'podLogsDir', 'Path to the directory the kubelet places pod log files in'),
  'sync-frequency': flag('duration', 'syncFrequency', 'Max period between synchronizing running containers and config'),
  'file-check-frequency': flag('duration', 'fileCheckFrequency', 'Duration between checking config files for new data'),
  'http-check-frequency': flag('duration', 'httpCheckFrequency', 'Duration between checking http for new data'),
  'manifest-url': flag('string', 'staticPodURL', 'URL for accessing additional Pod specifications to run'),
  address: flag('ip', 'address', 'The IP address for the Kubelet to serve on (set to 0.0.0.0 or :: for listening on all interfaces)'),
  port: flag('int32', 'port', 'The port for the Kubelet to serve on'),
  'read-only-port': flag('int32', 'readOnlyPort', 'The read-only port for the Kubelet to serve on with no authentication/authorization (set to 0 to disable)'),
  'anonymous-auth': flag('bool', 'authentication.anonymous.enabled', 'Enables anonymous requests to the Kubelet server'),
  'authentication-token-webhook': flag('bool', 'authentication.webhook.enabled', 'Use the TokenReview API to determine authentication for bearer tokens'),
  'authentication-token-webhook-cache-ttl': flag(
    'duration',
    'authentication.webhook.cacheTTL',
    'The duration to cache responses from the webhook token authenticator',
  ),
  'client-ca-file': flag('string', 'authentication.x509.clientCAFile', 'Authenticates requests with a client certificate signed by one of these authorities'),
  'authorization-mode': flag('string', 'authorization.mode', 'Authorization mode for Kubelet server: AlwaysAllow or Webhook'),
  'authorization-webhook-cache-authorized-ttl': flag(
    'duration',
    'authorization.webhook.cacheAuthorizedTTL',
    "The duration to cache 'authorized' responses from the webhook authorizer",
  ),
  'authorization-webhook-cache-unauthorized-ttl': flag(
    'duration',
    'authorization.webhook.cacheUnauthorizedTTL',
    "The duration to cache 'unauthorized' responses from the webhook authorizer",
  ),
  'tls-cert-file': flag('string', 'tlsCertFile', 'File containing x509 Certificate used for serving HTTPS'),
  'tls-private-key-file': flag('string', 'tlsPrivateKeyFile', 'File containing x509 private key matching --tls-cert-file'),
  'tls-cipher-suites': flag('strings', 'tlsCipherSuites', 'Comma-separated list of cipher suites for the server'),
  'tls-min-version': flag('string', 'tlsMinVersion', 'Minimum TLS version supported'),
  'rotate-certificates': flag('bool', 'rotateCertificates', 'Auto rotate the kubelet client certificates'),
  'rotate-server-certificates': flag('bool', 'serverTLSBootstrap', 'Auto-request and rotate the kubelet serving certificates'),
  'registry-qps': flag('int32', 'registryPullQPS', 'Limit of registry pulls per second (0: unlimited)'),
  'registry-burst': flag('int32', 'registryBurst', 'Maximum size of bursty pulls'),
  'event-qps': flag('int32', 'eventRecordQPS', 'Limit of event creations per second (0: unlimited)'),
  'event-burst': flag('int32', 'eventBurst', 'Maximum size of a bursty event records'),
  'enable-debugging-handlers': flag(
    'bool',
    'enableDebuggingHandlers',
    'Enables server endpoints for log collection and local running of containers and commands',
  ),
  'contention-profiling': flag('bool', 'enableContentionProfiling', 'Enable block profiling, if profiling is enabled'),
  'healthz-port': flag('int32', 'healthzPort', 'The port of the localhost healthz endpoint (set to 0 to disable)'),
  'healthz-bind-address': flag('ip', 'healthzBindAddress', 'The IP address for the healthz server to serve on'),
  'oom-score-adj': flag('int32', 'oomScoreAdj', 'The oom-score-adj value for kubelet process'),
  'cluster-domain': flag('string', 'clusterDomain', 'Domain for this cluster'),
  'cluster-dns': flag('strings', 'clusterDNS', 'Comma-separated list of DNS server IP address'),
  'streaming-connection-idle-timeout': flag(
    'duration',
    'streamingConnectionIdleTimeout',
    'Maximum time a streaming connection can be idle before it is closed',
  ),
  'node-status-update-frequency': flag('duration', 'nodeStatusUpdateFrequency', 'How often kubelet posts node status to master'),
  'image-minimum-gc-age': flag('duration', 'imageMinimumGCAge', 'Minimum age for an unused image before it is garbage collected'),
  'image-maximum-gc-age': flag('duration', 'imageMaximumGCAge', 'Maximum age an image can be unused before it is garbage collected'),
  'image-gc-high-threshold': flag('int32', 'imageGCHighThresholdPercent', 'The percent of disk usage after which image garbage collection is always run'),
  'image-gc-low-threshold': flag('int32', 'imageGCLowThresholdPercent', 'The percent of disk usage before which image garbage collection is never run'),
  'volume-stats-agg-period': flag('duration', 'volumeStatsAggPeriod', 'How often the kubelet calculates and caches the volume disk usage for all pods'),
  'feature-gates': flag('featureGates', 'featureGates', 'A set of key=value pairs that describe feature gates for alpha/experimental features'),
  'kubelet-cgroups': flag('string', 'kubeletCgroups', 'Absolute name of cgroups to create and run the Kubelet in'),
  'system-cgroups': flag('string', 'systemCgroups', 'Absolute name of cgroups in which to place all non-kernel processes that are not already inside a cgroup'),
  'cgroup-root': flag('string', 'cgroupRoot', 'Optional root cgroup to use for pods'),
  'cgroups-per-qos': flag('bool', 'cgroupsPerQOS', 'Enable creation of QoS cgroup hierarchy'),
  'cgroup-driver': flag('string', 'cgroupDriver', 'Driver that the kubelet uses to manipulate cgroups on the host: cgroupfs or systemd'),
  'cpu-manager-policy': flag('string', 'cpuManagerPolicy', 'CPU Manager policy to use'),
  'cpu-manager-reconcile-period': flag('duration', 'cpuManagerReconcilePeriod', 'CPU Manager reconciliation period'),
  'memory-manager-policy': flag('string', 'memoryManagerPolicy', 'Memory Manager policy to use'),
  'topology-manager-policy': flag('string', 'topologyManagerPolicy', 'Topology Manager policy to use'),
  'topology-manager-scope': flag('string', 'topologyManagerScope', 'Scope to which topology hints applied'),
  'qos-reserved': flag('map', 'qosReserved', 'ResourceName=Percentage pairs reserved at the QoS level (memory only)'),
  'runtime-request-timeout': flag('duration', 'runtimeRequestTimeout', 'Timeout of all runtime requests except long running request'),
  'hairpin-mode': flag('string', 'hairpinMode', 'How should the kubelet setup hairpin NAT'),
  'max-pods': flag('int32', 'maxPods', 'Number of Pods that can run on this Kubelet'),
  'pod-cidr': flag('string', 'podCIDR', 'The CIDR to use for pod IP addresses, only used in standalone mode'),
  'pod-max-pids': flag('int64', 'podPidsLimit', 'Set the maximum number of processes per pod (-1: the node allocatable pid capacity)'),
  'resolv-conf': flag('string', 'resolvConf', 'Resolver configuration file used as the basis for the container DNS resolution configuration'),
  runonce: flag('bool', 'runOnce', 'If true, exit after spawning pods from static pod files or remote urls'),
  'cpu-cfs-quota': flag('bool', 'cpuCFSQuota', 'Enable CPU CFS quota enforcement for containers that specify CPU limits'),
  'cpu-cfs-quota-period': flag('duration', 'cpuCFSQuotaPeriod', 'Sets CPU CFS quota period value, cpu.cfs_period_us'),
  'max-open-files': flag('int64', 'maxOpenFiles', 'Number of files that can be opened by Kubelet process'),
  'kube-api-content-type': flag('string', 'contentType', 'Content type of requests sent to apiserver'),
  'kube-api-qps': flag('int32', 'kubeAPIQPS', 'QPS to use while talking with kubernetes apiserver'),
  'kube-api-burst': flag('int32', 'kubeAPIBurst', 'Burst to use while talking with kubernetes apiserver'),
  'serialize-image-pulls': flag('bool', 'serializeImagePulls', 'Pull images one at a time'),
  'eviction-hard': flag('langleMap', 'evictionHard', 'A set of eviction thresholds (e.g. memory.available<1Gi) that if met would trigger a pod eviction'),
  'eviction-soft': flag('langleMap', 'evictionSoft', 'A set of eviction thresholds that if met over a grace period would trigger a pod eviction'),
  'eviction-soft-grace-period': flag('map', 'evictionSoftGracePeriod', 'A set of eviction grace periods (e.g. memory.available=1m30s)'),
  'eviction-pressure-transition-period': flag(
    'duration',
    'evictionPressureTransitionPeriod',
    'Duration to wait before transitioning out of an eviction pressure condition',
  ),
  'eviction-max-pod-grace-period': flag(
    'int32',
    'evictionMaxPodGracePeriod',
    'Maximum allowed grace period (in seconds) when terminating pods in response to a soft eviction threshold',
  ),
  'eviction-minimum-reclaim': flag('map', 'evictionMinimumReclaim', 'A set of minimum reclaims (e.g. imagefs.available=2Gi)'),
  'pods-per-core': flag('int32', 'podsPerCore', 'Number of Pods per core that can run on this Kubelet'),
  'enable-controller-attach-detach': flag(
    'bool',
    'enableControllerAttachDetach',
    'Enables the Attach/Detach controller to manage attachment/detachment of volumes',
  ),
  'protect-kernel-defaults': flag('bool', 'protectKernelDefaults', 'Default kubelet behaviour for kernel tuning'),
  'make-iptables-util-chains': flag('bool', 'makeIPTablesUtilChains', 'If true, kubelet will ensure iptables utility rules are present on host'),
  'iptables-masquerade-bit': flag('int32', 'iptablesMasqueradeBit', 'The bit of the fwmark space to mark packets for SNAT'),
  'iptables-drop-bit': flag('int32', 'iptablesDropBit', 'The bit of the fwmark space to mark packets for dropping'),
  'fail-swap-on': flag('bool', 'failSwapOn', 'Makes the Kubelet fail to start if swap is enabled on the node'),
  'container-log-max-size': flag('string', 'containerLogMaxSize', 'Maximum size of the container log file before it is rotated'),
  'container-log-max-files': flag('int32', 'containerLogMaxFiles', 'Maximum number of container log files that can be present for a container'),
  'system-reserved': flag('map', 'systemReserved', 'ResourceName=ResourceQuantity pairs reserved for non-kubernetes components'),
  'kube-reserved': flag('map', 'kubeReserved', 'ResourceName=ResourceQuantity pairs reserved for kubernetes system components'),
  'reserved-cpus': flag('string', 'reservedSystemCPUs', 'A comma-separated list of CPUs or CPU ranges reserved for system and kubernetes usage'),
  'system-reserved-cgroup': flag('string', 'systemReservedCgroup', 'Absolute name of the top level cgroup used to enforce --system-reserved'),
  'kube-reserved-cgroup': flag('string', 'kubeReservedCgroup', 'Absolute name of the top level cgroup used to enforce --kube-reserved'),
  'enforce-node-allocatable': flag(
    'strings',
    'enforceNodeAllocatable',
    'Node allocatable enforcements: none, pods, system-reserved, kube-reserved (and -compressible)',
  ),
  'allowed-unsafe-sysctls': flag('strings', 'allowedUnsafeSysctls', 'Comma-separated allowlist of unsafe sysctls or unsafe sysctl patterns (ending in *)'),
  'volume-plugin-dir': flag('string', 'volumePluginDir', 'The full path of the directory in which to search for additional third party volume plugins'),
  'provider-id': flag('string', 'providerID', 'Unique identifier for identifying the node in a machine database, i.e cloudprovider'),
  'kernel-memcg-notification': flag('bool', 'kernelMemcgNotification', 'Integrate with the kernel memcg notification to determine memory eviction thresholds'),
  'local-storage-capacity-isolation': flag('bool', 'localStorageCapacityIsolation', 'Enable local ephemeral storage isolation'),
  'register-node': flag('bool', 'registerNode', 'Register the node with the apiserver'),
  'container-runtime-endpoint': flag('string', 'containerRuntimeEndpoint', 'The endpoint of container runtime service'),
  'image-service-endpoint': flag('string', 'imageServiceEndpoint', 'The endpoint of container image service'),
  'node-status-max-images': flag('int32', 'nodeStatusMaxImages', 'The maximum number of images to report in Node.Status.Images (-1: no cap)'),
  'show-hidden-metrics-for-version': flag('string', 'showHiddenMetricsForVersion', 'The previous version for which you want to show hidden metrics'),
  'seccomp-default': flag('bool', 'seccompDefault', 'Enable the use of RuntimeDefault as the default seccomp profile for all workloads'),
};

/** The node agent's own flags (KubeletFlags), not part of the configuration file. */
export const agentFlags: Readonly<Record<string, FlagSpec>> = {
  config: { type: 'string', help: 'The node agent loads its initial configuration from this file; command-line flags override it' },
  kubeconfig: { type: 'string', help: 'Path to a kubeconfig file, specifying how to connect to the API server' },
  'bootstrap-kubeconfig': { type: 'string', help: 'Path to a kubeconfig file used to get a client certificate for the node agent' },
  'cert-dir': { type: 'string', help: 'The directory where the TLS certs are located', default: '/var/lib/kubelet/pki' },
  'hostname-override': { type: 'string', help: 'If non-empty, will use this string as identification instead of the actual hostname' },
  'node-ip': { type: 'string', help: 'IP address (or comma-separated dual-stack IP addresses) of the node' },
  'root-dir': { type: 'string', help: 'Directory path for managing kubelet files', default: '/var/lib/kubelet' },
  'image-credential-provider-config': { type: 'string', help: 'The path to the credential provider plugin config file' },
  'image-credential-provider-bin-dir': { type: 'string', help: 'The path to the directory where credential provider plugin binaries are located' },
  'exit-on-lock-contention': { type: 'bool', help: 'Whether the node agent should exit upon lock-file contention' },
  'lock-file': { type: 'string', help: 'The path to file for the node agent to use as a lock file' },
  'node-labels': { type: 'string', help: 'Labels to add when registering the node in the cluster (key=value pairs separated by ,)' },
  simulate: {
    type: 'string',
    help: "corral's own: run N simulated node agents in this process, named <hostname>-0 … <hostname>-(N-1), each with its own identity, lease and status (no server, no pods); for scale tests",
  },
  help: { type: 'boolean', help: 'help for the node agent' },
};

/** The whole command line's table: the agent's flags, then the configuration flags (given: no defaults, so presence shows). */
export const nodeAgentFlagTable: Readonly<Record<string, FlagSpec>> = {
  ...agentFlags,
  ...Object.fromEntries(Object.entries(configFlags).map(([name, f]) => [name, { type: f.type === 'bool' ? 'bool' : 'string', help: f.help }] as const)),
};

/** The agent's own flags once read. */
export interface NodeAgentFlags {
  config: string | undefined;
  kubeconfig: string | undefined;
  bootstrapKubeconfig: string | undefined;
  certDir: string;
  hostnameOverride: string | undefined;
  nodeIP: string | undefined;
  rootDir: string;
  imageCredentialProviderConfig: string | undefined;
  imageCredentialProviderBinDir: string | undefined;
  exitOnLockContention: boolean;
  lockFile: string | undefined;
  nodeLabels: Record<string, string>;
  /** Simulated agents to run (`--simulate`); 0: one real agent. */
  simulate: number;
  help: boolean;
}

/**
 * argv parsed against the table, with pflag's wording for what Node's parser refuses (an unknown
 * flag, a missing value, an argument that is not a flag: the kubelet's "unknown command").
 */
export function parseNodeAgentArgv(argv: string[]): ParsedFlags {
  try {
    return parseFlagTable(argv, nodeAgentFlagTable);
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? String(err.code) : '';
    const message = err instanceof Error ? err.message : String(err);
    const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      throw new Error(quoted.startsWith('--') ? `unknown flag: ${quoted}` : `unknown shorthand flag: '${quoted.slice(1, 2)}' in ${quoted}`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') throw new Error(`flag needs an argument: ${quoted.split(' ')[0] ?? quoted}`);
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') throw new Error(`unknown command ${quoted}`);
    throw err;
  }
}

/** pflag's error for a value its type refuses. */
const invalidArgument = (text: string, name: string, detail: string): Error => new Error(`invalid argument ${goQuote(text)} for "--${name}" flag: ${detail}`);

function parseInt(text: string, name: string, bits: 32 | 64): number {
  if (!/^[+-]?\d+$/.test(text)) throw invalidArgument(text, name, `strconv.ParseInt: parsing ${goQuote(text)}: invalid syntax`);
  const value = BigInt(text);
  const limit = 2n ** BigInt(bits - 1);
  if (value < -limit || value >= limit) throw invalidArgument(text, name, `strconv.ParseInt: parsing ${goQuote(text)}: value out of range`);
  return Number(value);
}

/** cliflag.MapStringString (`k=v,...`) and LangleSeparatedMapStringString (`k<v,...`). */
function parseMap(text: string, separator: '=' | '<'): Record<string, string> {
  const map: Record<string, string> = {};
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const at = item.indexOf(separator);
    if (at < 0) throw new Error(`malformed pair, expect string${separator}string`);
    map[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return map;
}

const ipv4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const isIP = (text: string): boolean => ipv4.test(text) || (text.includes(':') && /^[0-9A-Fa-f:.]+$/.test(text) && (text.match(/::/g) ?? []).length <= 1);

/** One configuration flag's value, or its error as pflag words it. */
export function parseConfigFlag(name: string, spec: ConfigFlag, text: string): unknown {
  const wrap = <T>(parse: () => T): T => {
    try {
      return parse();
    } catch (err) {
      throw invalidArgument(text, name, err instanceof Error ? err.message : String(err));
    }
  };
  switch (spec.type) {
    case 'bool':
      return parseBoolFlag(text, name);
    case 'int32':
      return parseInt(text, name, 32);
    case 'int64':
      return parseInt(text, name, 64);
    case 'duration':
      return parseDuration(text, name);
    case 'string':
      return text;
    case 'ip':
      if (text !== '' && !isIP(text)) throw invalidArgument(text, name, `${goQuote(text)} is not a valid IP address`);
      return text;
    case 'strings':
      return text === '' ? [] : text.split(',');
    case 'map':
      return wrap(() => parseMap(text, '='));
    case 'langleMap':
      return wrap(() => parseMap(text, '<'));
    case 'featureGates':
      return wrap(() => parseFeatureGatesFlag(text));
  }
}

/** Writes `value` at the dotted `path` of the configuration. */
function setField(config: KubeletConfiguration, path: string, value: unknown): void {
  const parts = path.split('.');
  const last = parts.pop() ?? '';
  let target: Record<string, unknown> = config;
  for (const part of parts) {
    const next = target[part];
    if (!isObject(next)) throw new Error(`configuration flag field ${path}: ${part} is not a struct`);
    target = next;
  }
  target[last] = value;
}

/** The configuration flags given on the command line, parsed: name → value. Problems go to `reader`. */
export function readConfigFlags(values: ParsedFlags, reader: FlagReader): Map<string, unknown> {
  const given = new Map<string, unknown>();
  for (const [name, spec] of Object.entries(configFlags)) {
    const text = values[name];
    if (typeof text !== 'string') continue;
    reader.check(() => given.set(name, parseConfigFlag(name, spec, text)), undefined);
  }
  return given;
}

/**
 * Applies the given configuration flags to `config`, as the kubelet's re-parse of the command line
 * over the loaded file does (kubeletConfigFlagPrecedence): each given flag replaces its field,
 * except --feature-gates, whose gates are merged over the configuration's (a flag's gate wins).
 * Returns pflag's deprecation warning for each.
 */
export function applyConfigFlags(config: KubeletConfiguration, given: ReadonlyMap<string, unknown>): string[] {
  const warnings: string[] = [];
  for (const [name, value] of given) {
    const spec = configFlags[name];
    if (!spec) continue;
    if (spec.type === 'featureGates' && isObject(value)) config.featureGates = { ...config.featureGates, ...(value as Record<string, boolean>) };
    else setField(config, spec.field, value);
    warnings.push(`Flag --${name} has been deprecated, ${configFlagDeprecation}`);
  }
  return warnings;
}

/** The agent's own flags from a parsed command line; problems go to `reader`. */
export function readAgentFlags(values: ParsedFlags, reader: FlagReader): NodeAgentFlags {
  const labels = reader.check(() => {
    const text = reader.string('node-labels');
    if (text === undefined) return {};
    try {
      return parseMap(text, '=');
    } catch (err) {
      throw invalidArgument(text, 'node-labels', err instanceof Error ? err.message : String(err));
    }
  }, {});
  return {
    config: reader.string('config'),
    kubeconfig: reader.string('kubeconfig'),
    bootstrapKubeconfig: reader.string('bootstrap-kubeconfig'),
    certDir: reader.string('cert-dir') ?? '/var/lib/kubelet/pki',
    hostnameOverride: reader.string('hostname-override'),
    nodeIP: reader.string('node-ip'),
    rootDir: reader.string('root-dir') ?? '/var/lib/kubelet',
    imageCredentialProviderConfig: reader.string('image-credential-provider-config'),
    imageCredentialProviderBinDir: reader.string('image-credential-provider-bin-dir'),
    exitOnLockContention: reader.bool('exit-on-lock-contention', false),
    lockFile: reader.string('lock-file'),
    nodeLabels: labels,
    simulate: reader.check(() => {
      const text = reader.string('simulate');
      if (text === undefined) return 0;
      if (!/^\d+$/.test(text) || Number(text) < 1) throw invalidArgument(text, 'simulate', 'must be a positive number of agents');
      return Number(text);
    }, 0),
    help: values['help'] === true,
  };
}
