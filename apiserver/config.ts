/**
 * The API server's flags, named as kube-apiserver names them where one exists, and the
 * configuration they produce. `--help` prints the table below.
 */
import { isIP } from 'node:net';
import { formatGoDuration } from '../shared/go/duration.ts';
import { parseCIDR } from '../shared/validation/network.ts';
import { parsePortRange } from './services/node-port-allocator.ts';
import {
  flagsOrUsage as parseCommandLine,
  FlagReader,
  flagUsage,
  parseFlagTable,
  parseInteger,
  parseList,
  withDefaults,
  type FlagSpec,
  type ParsedFlags,
} from '../shared/process/flags.ts';
import { admissionPluginsHelp, enabledAdmissionPlugins } from './admission/plugins.ts';
import { authorizationModes, validateAuthorizationModes } from './authorization/modes.ts';
import { isLogLevel } from './server/logging.ts';
import { validateShowHiddenMetricsVersion } from '../shared/version.ts';

export interface ApiServerConfig {
  etcdServers: string[];
  etcdPrefix: string;
  securePort: number;
  bindAddress: string;
  dataDir: string;
  tlsCertFile: string | undefined;
  tlsPrivateKeyFile: string | undefined;
  clientCAFile: string | undefined;
  tlsSans: string[];
  tokenAuthFile: string | undefined;
  enableBootstrapTokenAuth: boolean;
  anonymousAuth: boolean;
  /** The authorizers after system:masters, in order (--authorization-mode). */
  authorizationModes: string[];
  runtimeConfig: string;
  /** The enabled admission plugins, in chain order (the defaults adjusted by the flags). */
  admissionPlugins: string[];
  admissionControlConfigFile: string | undefined;
  /** Largest request body accepted, in bytes (upstream: 3 MiB). */
  maxRequestBodyBytes: number;
  etcdRequestTimeoutMs: number;
  /** Deadline of the storage probe of /livez, /healthz and /readyz's `etcd` check (upstream: 2 s). */
  etcdHealthcheckTimeoutMs: number;
  /** Deadline of /readyz's `etcd-readiness` check (upstream: 2 s). */
  etcdReadycheckTimeoutMs: number;
  /** 0 disables compaction. */
  etcdCompactionIntervalMs: number;
  /** How long Events are kept after their last write; 0: forever. */
  eventTtlMs: number;
  logLevel: string;
  /** The level of the one log line each request leaves. */
  requestLogLevel: string;
  /** 0: unlimited. */
  maxRequestsInflight: number;
  /** 0: unlimited. */
  maxMutatingRequestsInflight: number;
  /** Requests queue per priority level (API Priority and Fairness) instead of meeting the two in-flight limits. */
  enablePriorityAndFairness: boolean;
  requestTimeoutMs: number;
  livezGracePeriodMs: number;
  shutdownDelayMs: number;
  /** Empty unless hidden metrics are wanted. */
  showHiddenMetricsForVersion: string;
  /** Empty: no audit log. `-`: standard output. */
  auditLogPath: string;
  auditPolicyFile: string | undefined;
  auditLogMaxSizeMb: number;
  auditLogMaxBackups: number;
  auditLogMaxAgeDays: number;
  /** --advertise-address; empty: derived from the bind address at start (advertise-address.ts). */
  advertiseAddress: string;
  /** --advertise-port; undefined: the port the server listens on. */
  advertisePort: number | undefined;
  /** --service-cluster-ip-range, one CIDR (upstream's default 10.0.0.0/24 when unset). */
  serviceClusterIPRange: string;
  /** --service-node-port-range, inclusive. */
  serviceNodePortRange: { base: number; size: number };
  /** --endpoint-reconciler-type: `lease` keeps the kubernetes service's endpoints, `none` leaves them. */
  endpointReconcilerType: 'lease' | 'none';
}

export const flags: Record<string, FlagSpec> = {
  'etcd-servers': {
    type: 'string',
    help: 'Comma separated etcd client URLs. Without them the API server keeps its data in an embedded store in <data-dir>/db (one API server per data dir; replicas need etcd).',
  },
  'etcd-prefix': { type: 'string', default: '/registry', help: 'Key prefix of every object in etcd.' },
  'secure-port': { type: 'string', default: '6443', help: 'HTTPS port.' },
  'bind-address': { type: 'string', default: '0.0.0.0', help: 'Address to listen on.' },
  'data-dir': { type: 'string', default: '.corral', help: 'Where the generated PKI and admin kubeconfig live (shared by replicas).' },
  'tls-cert-file': { type: 'string', help: 'Serving certificate (PEM); generated from the cluster CA when unset.' },
  'tls-private-key-file': { type: 'string', help: 'Key of --tls-cert-file.' },
  'client-ca-file': { type: 'string', help: 'CA bundle that verifies client certificates; the generated cluster CA when unset.' },
  'tls-sans': { type: 'string', default: '', help: 'Comma separated extra DNS names and IPs for the generated serving certificate.' },
  'token-auth-file': { type: 'string', help: 'Static bearer tokens, CSV: token,user,uid,"group1,group2".' },
  'enable-bootstrap-token-auth': {
    type: 'bool',
    default: 'false',
    help: 'Accept bootstrap tokens (Secrets bootstrap-token-<id> of type bootstrap.kubernetes.io/token in kube-system) as bearer tokens.',
  },
  'anonymous-auth': {
    type: 'bool',
    default: 'true',
    help: 'Treat requests without credentials as system:anonymous in system:unauthenticated (the default policy lets them read only health and version).',
  },
  'authorization-mode': {
    type: 'string',
    default: 'Node,RBAC',
    help: `Ordered list of authorizers after system:masters, comma separated: ${authorizationModes.map((m) => m.name).join(', ')}. The first to allow or deny decides. (kube-apiserver defaults to AlwaysAllow; corral is secure by default, as a kubeadm cluster.)`,
  },
  'runtime-config': {
    type: 'string',
    default: '',
    help: 'Enable or disable APIs: comma separated key[=true|false] (no value: true), keys group/version, group/version/resource, v1, api/all, api/ga, api/beta, api/alpha.',
  },
  'enable-admission-plugins': { type: 'string', default: '', help: 'Admission plugins to enable besides the defaults (see "Admission plugins" below).' },
  'disable-admission-plugins': { type: 'string', default: '', help: 'Default admission plugins to disable.' },
  'admission-control-config-file': {
    type: 'string',
    help: 'AdmissionConfiguration (apiserver.config.k8s.io/v1) with the configuration of admission plugins, e.g. EventRateLimit.',
  },
  'max-request-bytes': { type: 'string', default: String(3 * 1024 * 1024), help: 'Largest request body accepted.' },
  'etcd-request-timeout': { type: 'string', default: '10s', help: 'Deadline of one etcd call.' },
  'etcd-healthcheck-timeout': { type: 'string', default: '2s', help: 'The timeout to use when checking etcd health.' },
  'etcd-readycheck-timeout': { type: 'string', default: '2s', help: 'The timeout to use when checking etcd readiness.' },
  'etcd-compaction-interval': { type: 'string', default: '5m0s', help: 'How often etcd history is compacted (coordinated across replicas); 0 disables.' },
  'event-ttl': {
    type: 'string',
    default: '1h0m0s',
    help: 'Amount of time to retain events (etcd deletes them this long after their last write); 0 keeps them.',
  },
  'log-level': { type: 'string', default: 'info', help: 'Log level: trace, debug, info, warn, error, fatal, silent.' },
  'request-log-level': { type: 'string', default: 'debug', help: 'Level of the one log line per request (verb, path, user, code, latency, request id).' },
  'max-requests-inflight': {
    type: 'string',
    default: '400',
    help: 'Most read-only requests served at once (watches excluded); beyond it 429. 0: no limit. With priority and fairness, part of the total the priority levels share.',
  },
  'max-mutating-requests-inflight': {
    type: 'string',
    default: '200',
    help: 'Most mutating requests served at once; beyond it 429. 0: no limit. With priority and fairness, part of the total the priority levels share.',
  },
  'enable-priority-and-fairness': {
    type: 'bool',
    default: 'true',
    help: "If true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness (upstream's default flow schemas and priority levels).",
  },
  'request-timeout': {
    type: 'string',
    default: formatGoDuration(60_000),
    help: 'Deadline of every request but watches; beyond it 504. A shorter ?timeout= wins.',
  },
  'livez-grace-period': { type: 'string', default: '0s', help: 'Time after start during which /livez ignores unfinished start-up checks.' },
  'shutdown-delay-duration': {
    type: 'string',
    default: '0s',
    help: 'On SIGTERM, how long /readyz fails while requests are still served, before the server stops accepting.',
  },
  'show-hidden-metrics-for-version': { type: 'string', default: '', help: "The previous release (e.g. '1.31') whose hidden metrics are shown again." },
  'audit-log-path': { type: 'string', default: '', help: "Audit events are written to this file as JSON lines ('-': standard output)." },
  'audit-policy-file': { type: 'string', help: 'audit.k8s.io/v1 Policy deciding what is audited; without it nothing is.' },
  'audit-log-maxsize': { type: 'string', default: '0', help: 'Megabytes of the audit log before it is rotated (0: 100).' },
  'audit-log-maxbackup': { type: 'string', default: '0', help: 'Rotated audit logs kept (0: all).' },
  'audit-log-maxage': { type: 'string', default: '0', help: 'Days rotated audit logs are kept (0: forever).' },
  'advertise-address': {
    type: 'string',
    default: '',
    help: "The IP address on which to advertise the apiserver to members of the cluster. This address must be reachable by the rest of the cluster. If blank, the --bind-address will be used. If --bind-address is unspecified, the host's default interface will be used.",
  },
  'advertise-port': {
    type: 'string',
    default: '',
    help: "The port on which to advertise the apiserver to members of the cluster: the kubernetes Service's target port and its endpoints' port. If blank, the secure port. (corral's, as k3s's: replicas sharing a host listen on different ports behind one load balancer, whose port they advertise.)",
  },
  'service-cluster-ip-range': {
    type: 'string',
    default: '',
    help: 'A CIDR notation IP range from which to assign service cluster IPs. This must not overlap with any IP ranges assigned to nodes or pods. (corral: one CIDR; 10.0.0.0/24 when unset.)',
  },
  'service-node-port-range': {
    type: 'string',
    default: '30000-32767',
    help: "A port range to reserve for services with NodePort visibility.  This must not overlap with the ephemeral port range on nodes.  Example: '30000-32767'. Inclusive at both ends of the range.",
  },
  'endpoint-reconciler-type': {
    type: 'string',
    default: 'lease',
    help: 'Use an endpoint reconciler (lease, none) for the kubernetes service. (kube-apiserver also knows master-count, deprecated.)',
  },
  help: { type: 'boolean', help: 'Print this help.' },
};

/** upstream's default service range, used (with a warning) when --service-cluster-ip-range is unset. */
export const defaultServiceClusterIPRange = '10.0.0.0/24';
/** upstream's maxCIDRBits: a service range holds at most 2^20 addresses. */
const maxServiceCIDRBits = 20;

function serviceClusterIPRange(text: string): string {
  const value = text.trim() || defaultServiceClusterIPRange;
  const entries = value.split(',');
  if (entries.length > 1) throw new Error('--service-cluster-ip-range takes one CIDR in corral (dual-stack service ranges are not supported)');
  const cidr = parseCIDR(value);
  if (!cidr) throw new Error('service-cluster-ip-range[0] is not a valid cidr');
  const bits = cidr.family === 4 ? 32 : 128;
  if (bits - cidr.prefixLength > maxServiceCIDRBits) {
    throw new Error(`specified --service-cluster-ip-range is too large; for ${bits}-bit addresses, the mask must be >= ${bits - maxServiceCIDRBits}`);
  }
  return value;
}

function nodePortRange(text: string): { base: number; size: number } {
  const range = parsePortRange(text);
  if (!range)
    throw new Error(`invalid argument ${JSON.stringify(text)} for "--service-node-port-range" flag: ${JSON.stringify(text)} is not a valid port range`);
  return range;
}

function advertiseAddress(text: string): string {
  if (text !== '' && !isIP(text))
    throw new Error(`invalid argument ${JSON.stringify(text)} for "--advertise-address" flag: failed to parse IP: ${JSON.stringify(text)}`);
  return text;
}

function advertisePort(text: string): number | undefined {
  if (text === '') return undefined;
  const port = Number(text);
  if (!/^[0-9]+$/.test(text) || port < 1 || port > 65535) throw new Error(`--advertise-port ${text} must be between 1 and 65535, inclusive`);
  return port;
}

function reconcilerType(text: string): 'lease' | 'none' {
  if (text === 'lease' || text === 'none') return text;
  throw new Error(`--endpoint-reconciler-type ${JSON.stringify(text)} is not one of lease, none`);
}

/** What the usage text says after the flags: the admission plugins. */
export function usageTrailer(): string {
  return `\nAdmission plugins, in chain order:\n${admissionPluginsHelp()}\n`;
}

export function usage(command: string, extra: Record<string, FlagSpec> = {}): string {
  return flagUsage(command, { ...flags, ...extra }, usageTrailer());
}

/** Parses argv against the flag table (plus any extra flags of the calling command). */
export function parseFlags(argv: string[], extra: Record<string, FlagSpec> = {}): ParsedFlags {
  return parseFlagTable(argv, { ...flags, ...extra });
}

function notNegative(value: number, message: string): number {
  if (value < 0) throw new Error(message);
  return value;
}

/** A pino level; `silent` only where logs may be turned off entirely. */
function level(text: string, flag: string, allowSilent: boolean): string {
  if (isLogLevel(text) || (allowSilent && text === 'silent')) return text;
  throw new Error(`--${flag} ${JSON.stringify(text)} is not one of trace, debug, info, warn, error, fatal${allowSilent ? ', silent' : ''}`);
}

/**
 * The configuration the flags describe. Every problem is reported at once: the error's message
 * lists them one per line, in flag order.
 */
export function configFromFlags(values: ParsedFlags): ApiServerConfig {
  const reader = new FlagReader(values);
  const errors = reader.errors;
  const check = <T>(parse: () => T, fallback: T): T => reader.check(parse, fallback);
  const str = (name: string): string | undefined => reader.string(name);
  const duration = (flag: string, fallback: string): number => reader.duration(flag, fallback);
  const nonNegative = (value: number, message: string): number => check(() => notNegative(value, message), 0);
  const port = Number(str('secure-port'));
  if (!Number.isInteger(port) || port < 0 || port > 65535) errors.push(`--secure-port ${str('secure-port')} must be between 0 and 65535, inclusive`);
  const etcdServers = parseList(str('etcd-servers'));
  const showHidden = str('show-hidden-metrics-for-version') ?? '';
  check(() => validateShowHiddenMetricsVersion(showHidden), undefined);
  const modes = parseList(str('authorization-mode'));
  errors.push(...validateAuthorizationModes(modes));
  const admission = enabledAdmissionPlugins(parseList(str('enable-admission-plugins')), parseList(str('disable-admission-plugins')));
  errors.push(...admission.errors);
  const auditNumber = (flag: string): number =>
    check(() => notNegative(parseInteger(str(flag) ?? '0', flag), `--${flag} ${str(flag)} can't be a negative number`), 0);
  const config: ApiServerConfig = {
    etcdServers,
    etcdPrefix: (str('etcd-prefix') ?? '/registry').replace(/\/+$/, ''),
    securePort: port,
    bindAddress: str('bind-address') ?? '0.0.0.0',
    dataDir: str('data-dir') ?? '.corral',
    tlsCertFile: str('tls-cert-file'),
    tlsPrivateKeyFile: str('tls-private-key-file'),
    clientCAFile: str('client-ca-file'),
    tlsSans: parseList(str('tls-sans')),
    tokenAuthFile: str('token-auth-file'),
    enableBootstrapTokenAuth: reader.bool('enable-bootstrap-token-auth', false),
    anonymousAuth: reader.bool('anonymous-auth', true),
    authorizationModes: modes,
    runtimeConfig: str('runtime-config') ?? '',
    admissionPlugins: admission.names,
    admissionControlConfigFile: str('admission-control-config-file'),
    maxRequestBodyBytes: Number(str('max-request-bytes') ?? 3 * 1024 * 1024),
    etcdRequestTimeoutMs: duration('etcd-request-timeout', '10s'),
    etcdHealthcheckTimeoutMs: duration('etcd-healthcheck-timeout', '2s'),
    etcdReadycheckTimeoutMs: duration('etcd-readycheck-timeout', '2s'),
    etcdCompactionIntervalMs: duration('etcd-compaction-interval', '5m'),
    eventTtlMs: duration('event-ttl', '1h'),
    logLevel: check(() => level(str('log-level') ?? 'info', 'log-level', true), 'info'),
    requestLogLevel: check(() => level(str('request-log-level') ?? 'debug', 'request-log-level', false), 'debug'),
    maxRequestsInflight: check(
      () => notNegative(parseInteger(str('max-requests-inflight') ?? '400', 'max-requests-inflight'), '--max-requests-inflight can not be negative value'),
      0,
    ),
    maxMutatingRequestsInflight: check(
      () =>
        notNegative(
          parseInteger(str('max-mutating-requests-inflight') ?? '200', 'max-mutating-requests-inflight'),
          '--max-mutating-requests-inflight can not be negative value',
        ),
      0,
    ),
    enablePriorityAndFairness: reader.bool('enable-priority-and-fairness', true),
    requestTimeoutMs: nonNegative(duration('request-timeout', '1m0s'), '--request-timeout can not be negative value'),
    livezGracePeriodMs: nonNegative(duration('livez-grace-period', '0s'), '--livez-grace-period can not be a negative value'),
    shutdownDelayMs: nonNegative(duration('shutdown-delay-duration', '0s'), '--shutdown-delay-duration can not be negative value'),
    showHiddenMetricsForVersion: showHidden,
    auditLogPath: str('audit-log-path') ?? '',
    auditPolicyFile: str('audit-policy-file'),
    auditLogMaxSizeMb: auditNumber('audit-log-maxsize'),
    auditLogMaxBackups: auditNumber('audit-log-maxbackup'),
    auditLogMaxAgeDays: auditNumber('audit-log-maxage'),
    advertiseAddress: check(() => advertiseAddress(str('advertise-address') ?? ''), ''),
    advertisePort: check(() => advertisePort(str('advertise-port') ?? ''), undefined),
    serviceClusterIPRange: check(() => serviceClusterIPRange(str('service-cluster-ip-range') ?? ''), defaultServiceClusterIPRange),
    serviceNodePortRange: check(() => nodePortRange(str('service-node-port-range') ?? '30000-32767'), { base: 30000, size: 2768 }),
    endpointReconcilerType: check(() => reconcilerType(str('endpoint-reconciler-type') ?? 'lease'), 'lease'),
  };
  if (config.enablePriorityAndFairness && config.maxRequestsInflight + config.maxMutatingRequestsInflight <= 0) {
    errors.push(
      `invalid configuration: MaxRequestsInFlight=${config.maxRequestsInflight} and MaxMutatingRequestsInFlight=${config.maxMutatingRequestsInflight}; they must add up to something positive`,
    );
  }
  reader.finish();
  return config;
}

/**
 * The command-line front of a process: parsed flags, or undefined after printing --help. A flag
 * error prints the usage and exits 2. `defaults` replaces the defaults of some flags.
 */
export function flagsOrUsage(argv: string[], command: string, defaults: Readonly<Record<string, string>> = {}): ParsedFlags | undefined {
  return parseCommandLine(argv, command, withDefaults(flags, defaults), usageTrailer());
}
