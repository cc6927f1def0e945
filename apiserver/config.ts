/**
 * The API server's flags, named as kube-apiserver names them where one exists, and the
 * configuration they produce. `--help` prints the table below.
 */
import { parseArgs } from 'node:util';

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
  logLevel: string;
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
  'runtime-config': { type: 'string', default: '', help: 'Enable or disable API versions: group/version[=true|false], api/all, api/alpha, api/beta.' },
  'enable-admission-plugins': { type: 'string', default: '', help: 'Admission plugins to enable besides the defaults.' },
  'disable-admission-plugins': { type: 'string', default: '', help: 'Admission plugins to disable.' },
  'max-request-bytes': { type: 'string', default: String(3 * 1024 * 1024), help: 'Largest request body accepted.' },
  'etcd-request-timeout': { type: 'string', default: '10s', help: 'Deadline of one etcd call.' },
  'etcd-compaction-interval': { type: 'string', default: '5m', help: 'How often etcd history is compacted (coordinated across replicas); 0 disables.' },
  'log-level': { type: 'string', default: 'info', help: 'Log level: debug, info, warn, error.' },
  help: { type: 'boolean', help: 'Print this help.' },
};

export function usage(command: string, extra: Record<string, FlagSpec> = {}): string {
  const all = { ...flags, ...extra };
  const lines = Object.entries(all).map(([name, spec]) => {
    const def = spec.default !== undefined && spec.default !== '' ? ` (default ${JSON.stringify(spec.default)})` : '';
    return `  --${name.padEnd(28)}${spec.help}${def}`;
  });
  return `Usage: ${command} [flags]\n\nFlags:\n${lines.join('\n')}\n`;
}

/** Parses `10s`, `5m`, `1h`, `250ms` or plain seconds into milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new Error(`invalid argument "${text}" for "--${flag}" flag: time: invalid duration "${text}"`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's'] ?? 1000;
  return Number(m[1]) * unit;
}

function list(text: string | undefined): string[] {
  return (text ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

function bool(text: string, flag: string): boolean {
  if (['true', '1', 't'].includes(text)) return true;
  if (['false', '0', 'f'].includes(text)) return false;
  throw new Error(`invalid argument "${text}" for "--${flag}" flag: strconv.ParseBool: parsing "${text}": invalid syntax`);
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
    logLevel: str('log-level') ?? 'info',
  };
}
