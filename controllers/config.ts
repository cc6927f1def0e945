/**
 * The controller manager's flags, named and defaulted as kube-controller-manager's, and the
 * configuration they produce. A bad command line stops the process before anything starts, with
 * every problem listed (FlagReader).
 */
import { FlagReader, type FlagSpec, type ParsedFlags } from '../shared/process/flags.ts';
import { isLogLevel } from '../apiserver/server/logging.ts';

/** The files of one CSR signer: a CA certificate and its key (PEM). */
export interface SigningFiles {
  certFile: string;
  keyFile: string;
}

export interface LeaderElectionConfig {
  enabled: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  resourceName: string;
  resourceNamespace: string;
}

export interface ControllerManagerConfig {
  kubeconfig: string;
  useServiceAccountCredentials: boolean;
  /** The --controllers entries as given (`*`, `name`, `-name`); controllers/registry.ts resolves them. */
  controllers: string[];
  leaderElection: LeaderElectionConfig;
  /** The signing CA of every signer without files of its own; undefined: csrsigning signs nothing. */
  clusterSigning: SigningFiles | undefined;
  /** Per-signer CA files, by signer name, overriding clusterSigning. */
  signerFiles: Record<string, SigningFiles>;
  clusterSigningDurationMs: number;
  nodeMonitorPeriodMs: number;
  nodeMonitorGracePeriodMs: number;
  nodeStartupGracePeriodMs: number;
  /** Nodes per second tainted NoExecute (pods evicted) in a healthy zone. */
  nodeEvictionRate: number;
  /** Nodes per second tainted NoExecute in an unhealthy zone larger than largeClusterSizeThreshold (0 in smaller ones). */
  secondaryNodeEvictionRate: number;
  largeClusterSizeThreshold: number;
  /** Fraction of not-Ready nodes (at least 3) that makes a zone unhealthy. */
  unhealthyZoneThreshold: number;
  concurrentGcSyncs: number;
  concurrentNamespaceSyncs: number;
  securePort: number;
  bindAddress: string;
  tlsCertFile: string | undefined;
  tlsPrivateKeyFile: string | undefined;
  /** Paths served to anyone, without authentication or authorization. */
  alwaysAllowPaths: string[];
  logLevel: string;
}

/** The per-signer flag prefixes, as kube-controller-manager names them, and the signer each serves. */
export const signerFlagPrefixes: Readonly<Record<string, string>> = {
  'cluster-signing-kubelet-serving': 'kubernetes.io/kubelet-serving',
  'cluster-signing-kubelet-client': 'kubernetes.io/kube-apiserver-client-kubelet',
  'cluster-signing-kube-apiserver-client': 'kubernetes.io/kube-apiserver-client',
  'cluster-signing-legacy-unknown': 'kubernetes.io/legacy-unknown',
};

const signerFlags: Record<string, FlagSpec> = Object.fromEntries(
  Object.entries(signerFlagPrefixes).flatMap(([prefix, signer]) => [
    [`${prefix}-cert-file`, { type: 'string', help: `CA certificate (PEM) that signs ${signer} requests; overrides --cluster-signing-cert-file.` }],
    [`${prefix}-key-file`, { type: 'string', help: `Key (PEM) of --${prefix}-cert-file.` }],
  ]),
);

export const flags: Record<string, FlagSpec> = {
  kubeconfig: {
    type: 'string',
    help: 'The kubeconfig of the controller manager: the API server and its credentials (the identity system:kube-controller-manager).',
  },
  controllers: {
    type: 'string',
    default: '*',
    help: "Controllers to run, comma separated: '*' runs those on by default, 'foo' runs foo, '-foo' does not run foo. Off by default: bootstrapsigner, tokencleaner.",
  },
  'use-service-account-credentials': {
    type: 'bool',
    default: 'false',
    help: 'Run each controller as its own service account identity (system:serviceaccount:kube-system:<controller>), bound by the bootstrap policy to system:controller:<controller>; the identities are client certificates made in memory by the kube-apiserver-client signer, whose CA the API server must trust for clients. Otherwise every controller uses --kubeconfig.',
  },
  'leader-elect': { type: 'bool', default: 'true', help: 'Elect a leader through a Lease before running the controllers; replicas wait as candidates.' },
  'leader-elect-lease-duration': { type: 'string', default: '15s', help: 'How long candidates wait after the last renewal before taking the lease.' },
  'leader-elect-renew-deadline': {
    type: 'string',
    default: '10s',
    help: 'How long the leader tries to renew before it stops leading; less than the lease duration.',
  },
  'leader-elect-retry-period': { type: 'string', default: '2s', help: 'How long candidates wait between attempts to acquire or renew.' },
  'leader-elect-resource-lock': { type: 'string', default: 'leases', help: "The kind of lock: only 'leases'." },
  'leader-elect-resource-name': { type: 'string', default: 'kube-controller-manager', help: 'Name of the Lease.' },
  'leader-elect-resource-namespace': { type: 'string', default: 'kube-system', help: 'Namespace of the Lease.' },
  'cluster-signing-cert-file': { type: 'string', help: 'CA certificate (PEM) that signs the certificates of every built-in signer.' },
  'cluster-signing-key-file': { type: 'string', help: 'Key (PEM) of --cluster-signing-cert-file.' },
  ...signerFlags,
  'cluster-signing-duration': {
    type: 'string',
    default: '8760h0m0s',
    help: 'Longest validity of a signed certificate (spec.expirationSeconds may shorten it).',
  },
  'node-monitor-period': { type: 'string', default: '5s', help: 'How often node health is checked.' },
  'node-monitor-grace-period': {
    type: 'string',
    default: '50s',
    help: 'How long a node may go without renewing its Lease or status before it is marked unhealthy.',
  },
  'node-startup-grace-period': {
    type: 'string',
    default: '1m0s',
    help: 'How long a node that never reported may stay unreported before it is marked unhealthy.',
  },
  'node-eviction-rate': {
    type: 'string',
    default: '0.1',
    help: 'Number of nodes per second on which pods are deleted in case of node failure when a zone is healthy (see --unhealthy-zone-threshold).',
  },
  'secondary-node-eviction-rate': {
    type: 'string',
    default: '0.01',
    help: 'Number of nodes per second on which pods are deleted in case of node failure when a zone is unhealthy; 0 for zones of at most --large-cluster-size-threshold nodes.',
  },
  'large-cluster-size-threshold': {
    type: 'string',
    default: '50',
    help: 'Number of nodes from which a zone counts as large for the eviction logic (--secondary-node-eviction-rate applies above it).',
  },
  'unhealthy-zone-threshold': {
    type: 'string',
    default: '0.55',
    help: 'Fraction of Nodes in a zone which needs to be not Ready (minimum 3) for zone to be treated as unhealthy.',
  },
  'concurrent-gc-syncs': { type: 'string', default: '20', help: 'Garbage collector workers.' },
  'concurrent-namespace-syncs': { type: 'string', default: '10', help: 'Namespace controller workers.' },
  'secure-port': { type: 'string', default: '10257', help: 'HTTPS port of /healthz and /metrics; 0 serves nothing.' },
  'bind-address': { type: 'string', default: '0.0.0.0', help: 'Address of --secure-port.' },
  'tls-cert-file': { type: 'string', help: 'Serving certificate (PEM); a self-signed one is made in memory when unset.' },
  'tls-private-key-file': { type: 'string', help: 'Key of --tls-cert-file.' },
  'authorization-always-allow-paths': {
    type: 'string',
    default: '/healthz,/readyz,/livez',
    help: 'Paths served without authentication or authorization; everything else needs a user the API server allows (TokenReview, SubjectAccessReview).',
  },
  'log-level': { type: 'string', default: 'info', help: 'Log level: trace, debug, info, warn, error, fatal, silent.' },
  help: { type: 'boolean', help: 'Print this help.' },
};

/** The configuration the flags describe; throws one Error listing every problem. */
export function configFromFlags(values: ParsedFlags): ControllerManagerConfig {
  const r = new FlagReader(values);
  const kubeconfig = r.string('kubeconfig') ?? '';
  r.require(kubeconfig !== '', '--kubeconfig is required: the controller manager reaches the API server only through it');
  const leaseDurationMs = r.duration('leader-elect-lease-duration', '15s');
  const renewDeadlineMs = r.duration('leader-elect-renew-deadline', '10s');
  const retryPeriodMs = r.duration('leader-elect-retry-period', '2s');
  const lock = r.string('leader-elect-resource-lock') ?? 'leases';
  r.require(lock === 'leases', `--leader-elect-resource-lock ${JSON.stringify(lock)} is not supported: only "leases"`);
  const leaderElection: LeaderElectionConfig = {
    enabled: r.bool('leader-elect', true),
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    resourceName: r.string('leader-elect-resource-name') ?? 'kube-controller-manager',
    resourceNamespace: r.string('leader-elect-resource-namespace') ?? 'kube-system',
  };
  if (leaderElection.enabled) {
    // client-go's NewLeaderElector refuses these, with these words.
    r.require(leaseDurationMs > renewDeadlineMs, 'leaseDuration must be greater than renewDeadline');
    r.require(renewDeadlineMs > 1.2 * retryPeriodMs, 'renewDeadline must be greater than retryPeriod*JitterFactor');
    r.require(leaseDurationMs >= 1000, 'leaseDuration must be at least 1s');
    r.require(retryPeriodMs >= 1, 'retryPeriod must be greater than zero');
  }
  const pair = (prefix: string): SigningFiles | undefined => {
    const certFile = r.string(`${prefix}-cert-file`);
    const keyFile = r.string(`${prefix}-key-file`);
    if (certFile === undefined && keyFile === undefined) return undefined;
    if (certFile === undefined || keyFile === undefined) {
      r.errors.push(`--${prefix}-cert-file and --${prefix}-key-file must be given together`);
      return undefined;
    }
    return { certFile, keyFile };
  };
  const clusterSigning = pair('cluster-signing');
  const signerFiles: Record<string, SigningFiles> = {};
  for (const [prefix, signer] of Object.entries(signerFlagPrefixes)) {
    const files = pair(prefix);
    if (files) signerFiles[signer] = files;
  }
  if (clusterSigning && Object.keys(signerFiles).length > 0) {
    // kube-controller-manager: the cluster-wide pair and the per-signer pairs exclude each other.
    r.errors.push('cannot specify default and per controller certs at the same time');
  }
  const positive = (name: string, fallback: string): number => {
    const value = r.integer(name, fallback);
    r.require(value > 0, `--${name} must be greater than 0`);
    return value;
  };
  /** A float32 flag, with pflag's error message; negative values are refused. */
  const float = (name: string, fallback: string): number => {
    const text = r.string(name) ?? fallback;
    const value = r.check(() => {
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) {
        throw new Error(`invalid argument ${JSON.stringify(text)} for "--${name}" flag: strconv.ParseFloat: parsing ${JSON.stringify(text)}: invalid syntax`);
      }
      return Number(text);
    }, 0);
    r.require(value >= 0, `--${name} must not be negative`);
    return value;
  };
  const port = r.integer('secure-port', '10257');
  r.require(port >= 0 && port <= 65535, `--secure-port ${port} must be between 0 and 65535, inclusive`);
  const certFile = r.string('tls-cert-file');
  const keyFile = r.string('tls-private-key-file');
  r.require((certFile === undefined) === (keyFile === undefined), '--tls-cert-file and --tls-private-key-file must be given together');
  const logLevel = r.string('log-level') ?? 'info';
  r.require(
    isLogLevel(logLevel) || logLevel === 'silent',
    `--log-level ${JSON.stringify(logLevel)} is not one of trace, debug, info, warn, error, fatal, silent`,
  );
  const useServiceAccountCredentials = r.bool('use-service-account-credentials', false);
  const config: ControllerManagerConfig = {
    kubeconfig,
    useServiceAccountCredentials,
    controllers: r.list('controllers'),
    leaderElection,
    clusterSigning,
    signerFiles,
    clusterSigningDurationMs: r.positiveDuration('cluster-signing-duration', '8760h0m0s'),
    nodeMonitorPeriodMs: r.positiveDuration('node-monitor-period', '5s'),
    nodeMonitorGracePeriodMs: r.duration('node-monitor-grace-period', '50s'),
    nodeStartupGracePeriodMs: r.duration('node-startup-grace-period', '1m0s'),
    nodeEvictionRate: float('node-eviction-rate', '0.1'),
    secondaryNodeEvictionRate: float('secondary-node-eviction-rate', '0.01'),
    largeClusterSizeThreshold: r.integer('large-cluster-size-threshold', '50'),
    unhealthyZoneThreshold: float('unhealthy-zone-threshold', '0.55'),
    concurrentGcSyncs: positive('concurrent-gc-syncs', '20'),
    concurrentNamespaceSyncs: positive('concurrent-namespace-syncs', '10'),
    securePort: port,
    bindAddress: r.string('bind-address') ?? '0.0.0.0',
    tlsCertFile: certFile,
    tlsPrivateKeyFile: keyFile,
    alwaysAllowPaths: r.list('authorization-always-allow-paths'),
    logLevel,
  };
  r.require(
    !useServiceAccountCredentials || signingFilesFor(config, 'kubernetes.io/kube-apiserver-client') !== undefined,
    "--use-service-account-credentials needs the kube-apiserver-client signer (--cluster-signing-cert-file and --cluster-signing-key-file, or the --cluster-signing-kube-apiserver-client-* pair) to make the controllers' identities",
  );
  r.finish();
  return config;
}

/** The signing files for `signerName`: its own pair, else the cluster-wide pair. */
export function signingFilesFor(config: ControllerManagerConfig, signerName: string): SigningFiles | undefined {
  return config.signerFiles[signerName] ?? config.clusterSigning;
}
