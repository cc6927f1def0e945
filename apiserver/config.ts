/**
 * The API server's flags, named as kube-apiserver names them where one exists, and the
 * configuration they produce. `--help` prints the table below.
 */
import { parseArgs } from 'node:util';
import { goQuote } from '../shared/api/goformat.ts';
import { formatGoDuration, parseGoDuration } from '../shared/api/goduration.ts';
import { parseBool, ParseBoolError } from '../shared/api/parse-bool.ts';
import { isLogLevel } from './server/logging.ts';
import { validateShowHiddenMetricsVersion } from './server/metrics.ts';

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
  anonymousAuth: boolean;
  runtimeConfig: string;
  enableAdmissionPlugins: string[];
  disableAdmissionPlugins: string[];
  /** Largest request body accepted, in bytes (upstream: 3 MiB). */
  maxRequestBodyBytes: number;
  etcdRequestTimeoutMs: number;
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
}

interface FlagSpec {
  type: 'string' | 'boolean';
  help: string;
  default?: string;
}

export const flags: Record<string, FlagSpec> = {
  'etcd-servers': { type: 'string', help: 'Comma separated etcd client URLs (required for the apiserver command).' },
  'etcd-prefix': { type: 'string', default: '/registry', help: 'Key prefix of every object in etcd.' },
  'secure-port': { type: 'string', default: '6443', help: 'HTTPS port.' },
  'bind-address': { type: 'string', default: '0.0.0.0', help: 'Address to listen on.' },
  'data-dir': { type: 'string', default: '.corral', help: 'Where the generated PKI and admin kubeconfig live (shared by replicas).' },
  'tls-cert-file': { type: 'string', help: 'Serving certificate (PEM); generated from the cluster CA when unset.' },
  'tls-private-key-file': { type: 'string', help: 'Key of --tls-cert-file.' },
  'client-ca-file': { type: 'string', help: 'CA bundle that verifies client certificates; the generated cluster CA when unset.' },
  'tls-sans': { type: 'string', default: '', help: 'Comma separated extra DNS names and IPs for the generated serving certificate.' },
  'token-auth-file': { type: 'string', help: 'Static bearer tokens, CSV: token,user,uid,"group1,group2".' },
  'anonymous-auth': { type: 'string', default: 'false', help: 'Treat requests without credentials as system:anonymous (until RBAC lands, off by default).' },
  'runtime-config': { type: 'string', default: '', help: 'Enable or disable APIs: comma separated key[=true|false] (no value: true), keys group/version, group/version/resource, v1, api/all, api/ga, api/beta, api/alpha.' },
  'enable-admission-plugins': { type: 'string', default: '', help: 'Admission plugins to enable besides the defaults.' },
  'disable-admission-plugins': { type: 'string', default: '', help: 'Admission plugins to disable.' },
  'max-request-bytes': { type: 'string', default: String(3 * 1024 * 1024), help: 'Largest request body accepted.' },
  'etcd-request-timeout': { type: 'string', default: '10s', help: 'Deadline of one etcd call.' },
  'etcd-compaction-interval': { type: 'string', default: '5m0s', help: 'How often etcd history is compacted (coordinated across replicas); 0 disables.' },
  'event-ttl': { type: 'string', default: '1h0m0s', help: 'Amount of time to retain events (etcd deletes them this long after their last write); 0 keeps them.' },
  'log-level': { type: 'string', default: 'info', help: 'Log level: trace, debug, info, warn, error, fatal, silent.' },
  'request-log-level': { type: 'string', default: 'debug', help: 'Level of the one log line per request (verb, path, user, code, latency, request id).' },
  'max-requests-inflight': { type: 'string', default: '400', help: 'Most read-only requests served at once (watches excluded); beyond it 429. 0: no limit.' },
  'max-mutating-requests-inflight': { type: 'string', default: '200', help: 'Most mutating requests served at once; beyond it 429. 0: no limit.' },
  'request-timeout': { type: 'string', default: formatGoDuration(60_000), help: 'Deadline of every request but watches; beyond it 504. A shorter ?timeout= wins.' },
  'livez-grace-period': { type: 'string', default: '0s', help: 'Time after start during which /livez ignores unfinished start-up checks.' },
  'shutdown-delay-duration': { type: 'string', default: '0s', help: 'On SIGTERM, how long /readyz fails while requests are still served, before the server stops accepting.' },
  'show-hidden-metrics-for-version': { type: 'string', default: '', help: "The previous release (e.g. '1.31') whose hidden metrics are shown again." },
  'audit-log-path': { type: 'string', default: '', help: "Audit events are written to this file as JSON lines ('-': standard output)." },
  'audit-policy-file': { type: 'string', help: 'audit.k8s.io/v1 Policy deciding what is audited; without it nothing is.' },
  'audit-log-maxsize': { type: 'string', default: '0', help: 'Megabytes of the audit log before it is rotated (0: 100).' },
  'audit-log-maxbackup': { type: 'string', default: '0', help: 'Rotated audit logs kept (0: all).' },
  'audit-log-maxage': { type: 'string', default: '0', help: 'Days rotated audit logs are kept (0: forever).' },
  help: { type: 'boolean', help: 'Print this help.' },
};

export function usage(command: string, extra: Record<string, FlagSpec> = {}): string {
  const all = { ...flags, ...extra };
  const width = Math.max(...Object.keys(all).map((name) => name.length)) + 2;
  const lines = Object.entries(all).map(([name, spec]) => {
    const def = spec.default !== undefined && spec.default !== '' ? ` (default ${JSON.stringify(spec.default)})` : '';
    return `  --${name.padEnd(width)}${spec.help}${def}`;
  });
  return `Usage: ${command} [flags]\n\nFlags:\n${lines.join('\n')}\n`;
}

/** A Go duration flag (`10s`, `1m30s`, `250ms`, `0`) in milliseconds, with pflag's error message. */
export function parseDuration(text: string, flag: string): number {
  try {
    return parseGoDuration(text);
  } catch (err) {
    throw new Error(`invalid argument ${JSON.stringify(text)} for "--${flag}" flag: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** An integer flag, with pflag's error message. */
function parseInteger(text: string, flag: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`invalid argument ${JSON.stringify(text)} for "--${flag}" flag: strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  return Number(text);
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

function list(text: string | undefined): string[] {
  return (text ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/** A boolean flag's value, read with Go's strconv.ParseBool; the error as pflag words it. */
function bool(text: string, flag: string): boolean {
  try {
    return parseBool(text);
  } catch (err) {
    if (err instanceof ParseBoolError) throw new Error(`invalid argument ${goQuote(text)} for "--${flag}" flag: ${err.message}`);
    throw err;
  }
}

export type ParsedFlags = Record<string, string | boolean | undefined>;

/** Parses argv against the flag table (plus any extra flags of the calling command). */
export function parseFlags(argv: string[], extra: Record<string, FlagSpec> = {}): ParsedFlags {
  const all = { ...flags, ...extra };
  const options = Object.fromEntries(Object.entries(all).map(([name, spec]) => [name, { type: spec.type }]));
  const { values } = parseArgs({ args: argv, options, strict: true, allowPositionals: false });
  const out: ParsedFlags = {};
  for (const [name, spec] of Object.entries(all)) out[name] = (values[name] as string | boolean | undefined) ?? spec.default;
  return out;
}

export function configFromFlags(values: ParsedFlags): ApiServerConfig {
  const str = (name: string): string | undefined => {
    const v = values[name];
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const port = Number(str('secure-port'));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--secure-port ${str('secure-port')} must be between 0 and 65535, inclusive`);
  const etcdServers = list(str('etcd-servers'));
  if (etcdServers.length === 0) throw new Error('--etcd-servers must be specified');
  const showHidden = str('show-hidden-metrics-for-version') ?? '';
  validateShowHiddenMetricsVersion(showHidden);
  const auditNumber = (flag: string): number => notNegative(parseInteger(str(flag) ?? '0', flag), `--${flag} ${str(flag)} can't be a negative number`);
  return {
    etcdServers,
    etcdPrefix: (str('etcd-prefix') ?? '/registry').replace(/\/+$/, ''),
    securePort: port,
    bindAddress: str('bind-address') ?? '0.0.0.0',
    dataDir: str('data-dir') ?? '.corral',
    tlsCertFile: str('tls-cert-file'),
    tlsPrivateKeyFile: str('tls-private-key-file'),
    clientCAFile: str('client-ca-file'),
    tlsSans: list(str('tls-sans')),
    tokenAuthFile: str('token-auth-file'),
    anonymousAuth: bool(str('anonymous-auth') ?? 'false', 'anonymous-auth'),
    runtimeConfig: str('runtime-config') ?? '',
    enableAdmissionPlugins: list(str('enable-admission-plugins')),
    disableAdmissionPlugins: list(str('disable-admission-plugins')),
    maxRequestBodyBytes: Number(str('max-request-bytes') ?? 3 * 1024 * 1024),
    etcdRequestTimeoutMs: parseDuration(str('etcd-request-timeout') ?? '10s', 'etcd-request-timeout'),
    etcdCompactionIntervalMs: parseDuration(str('etcd-compaction-interval') ?? '5m', 'etcd-compaction-interval'),
    eventTtlMs: parseDuration(str('event-ttl') ?? '1h', 'event-ttl'),
    logLevel: level(str('log-level') ?? 'info', 'log-level', true),
    requestLogLevel: level(str('request-log-level') ?? 'debug', 'request-log-level', false),
    maxRequestsInflight: notNegative(parseInteger(str('max-requests-inflight') ?? '400', 'max-requests-inflight'), '--max-requests-inflight can not be negative value'),
    maxMutatingRequestsInflight: notNegative(
      parseInteger(str('max-mutating-requests-inflight') ?? '200', 'max-mutating-requests-inflight'),
      '--max-mutating-requests-inflight can not be negative value',
    ),
    requestTimeoutMs: notNegative(parseDuration(str('request-timeout') ?? '1m0s', 'request-timeout'), '--request-timeout can not be negative value'),
    livezGracePeriodMs: notNegative(parseDuration(str('livez-grace-period') ?? '0s', 'livez-grace-period'), '--livez-grace-period can not be a negative value'),
    shutdownDelayMs: notNegative(parseDuration(str('shutdown-delay-duration') ?? '0s', 'shutdown-delay-duration'), '--shutdown-delay-duration can not be negative value'),
    showHiddenMetricsForVersion: showHidden,
    auditLogPath: str('audit-log-path') ?? '',
    auditPolicyFile: str('audit-policy-file'),
    auditLogMaxSizeMb: auditNumber('audit-log-maxsize'),
    auditLogMaxBackups: auditNumber('audit-log-maxbackup'),
    auditLogMaxAgeDays: auditNumber('audit-log-maxage'),
  };
}

/**
 * The command-line front of a process: parsed flags, or undefined after printing --help. A flag
 * error prints the usage and exits 2.
 */
export function flagsOrUsage(argv: string[], command: string): ParsedFlags | undefined {
  let values: ParsedFlags;
  try {
    values = parseFlags(argv);
  } catch (err) {
    process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n\n${usage(command)}`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(usage(command));
    return undefined;
  }
  return values;
}
