/**
 * A Compose file's services, read into one shape whatever wrote the YAML: the file itself (short
 * syntax, relative paths, merged `<<` anchors), Debian's docker-compose 1.x `config` (short syntax,
 * absolute paths) or the Compose v2 plugin's `config` (long syntax: mounts and ports as objects).
 * e2e/compose.test.ts asserts docker-compose.yml's topology on it. Anything not in the expected
 * form throws, naming where, rather than being read as absent.
 */
import { isAbsolute, resolve } from 'node:path';

export interface Mount {
  type: 'volume' | 'bind' | 'tmpfs';
  /** A named volume's name, or a bind mount's absolute host path; empty for tmpfs and anonymous volumes. */
  source: string;
  target: string;
  readOnly: boolean;
}

export interface Service {
  name: string;
  image: string | undefined;
  /** The absolute build context, when the service builds its image. */
  buildContext: string | undefined;
  /** The exec-form command; empty when the image's own command runs. */
  command: string[];
  hostname: string | undefined;
  user: string | undefined;
  restart: string | undefined;
  containerName: string | undefined;
  /** deploy.replicas (or the older `scale`); 1 when neither is given. */
  replicas: number;
  mounts: Mount[];
  /** Published ports as `host_ip:published:target` (host_ip empty when every address). */
  ports: string[];
  /** Service → start condition (`service_started` for the short list form). */
  dependsOn: Record<string, string>;
  /** The health check's test, or undefined when there is none. */
  healthcheck: string[] | undefined;
  environment: Record<string, string>;
}

export interface ComposeModel {
  services: Map<string, Service>;
  /** The named volumes the file declares. */
  volumes: string[];
}

type Fields = Record<string, unknown>;

function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fields(value: unknown, where: string): Fields {
  if (!isFields(value)) throw new Error(`${where}: expected a mapping, got ${JSON.stringify(value)}`);
  return value;
}

/** A scalar as the string Compose means by it (`'6443'` and `6443` alike); undefined when absent. */
function scalar(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`${where}: expected a scalar, got ${JSON.stringify(value)}`);
}

function list(value: unknown, where: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`${where}: expected a list, got ${JSON.stringify(value)}`);
  return value;
}

function strings(value: unknown, where: string): string[] {
  return list(value, where).map((item, i) => scalar(item, `${where}[${i}]`) ?? '');
}

/** `a:b[:mode]` (short syntax) or `{ type, source, target, read_only }` (long syntax). */
function mount(value: unknown, where: string, baseDir: string): Mount {
  if (typeof value === 'string') {
    const [first = '', second, mode] = value.split(':');
    if (second === undefined) return { type: 'volume', source: '', target: first, readOnly: false };
    const bind = first.startsWith('/') || first.startsWith('.') || first.startsWith('~');
    return { type: bind ? 'bind' : 'volume', source: bind ? resolve(baseDir, first) : first, target: second, readOnly: (mode ?? '').split(',').includes('ro') };
  }
  const m = fields(value, where);
  const type = scalar(m['type'], `${where}.type`);
  if (type !== 'volume' && type !== 'bind' && type !== 'tmpfs') throw new Error(`${where}.type: unexpected mount type ${JSON.stringify(type)}`);
  const source = scalar(m['source'], `${where}.source`) ?? '';
  return {
    type,
    source: type === 'bind' && !isAbsolute(source) ? resolve(baseDir, source) : source,
    target: scalar(m['target'], `${where}.target`) ?? '',
    readOnly: m['read_only'] === true,
  };
}

/** `[ip:]published:target[/proto]` (short syntax) or `{ host_ip, published, target }` (long syntax). */
function port(value: unknown, where: string): string {
  if (typeof value === 'string') {
    const parts = value.replace(/\/(tcp|udp)$/, '').split(':');
    const [target = '', published = '', hostIp = ''] = parts.reverse();
    return `${hostIp}:${published}:${target}`;
  }
  const p = fields(value, where);
  return `${scalar(p['host_ip'], `${where}.host_ip`) ?? ''}:${scalar(p['published'], `${where}.published`) ?? ''}:${scalar(p['target'], `${where}.target`) ?? ''}`;
}

function dependsOn(value: unknown, where: string): Record<string, string> {
  if (Array.isArray(value)) return Object.fromEntries(strings(value, where).map((name) => [name, 'service_started']));
  if (value === undefined || value === null) return {};
  return Object.fromEntries(
    Object.entries(fields(value, where)).map(([name, spec]) => [
      name,
      scalar(fields(spec, `${where}.${name}`)['condition'], `${where}.${name}.condition`) ?? 'service_started',
    ]),
  );
}

function environment(value: unknown, where: string): Record<string, string> {
  if (Array.isArray(value)) {
    return Object.fromEntries(
      strings(value, where).map((entry) => {
        const eq = entry.indexOf('=');
        return eq < 0 ? [entry, ''] : [entry.slice(0, eq), entry.slice(eq + 1)];
      }),
    );
  }
  if (value === undefined || value === null) return {};
  return Object.fromEntries(Object.entries(fields(value, where)).map(([name, v]) => [name, scalar(v, `${where}.${name}`) ?? '']));
}

function service(name: string, value: unknown, baseDir: string): Service {
  const where = `services.${name}`;
  const s = fields(value, where);
  const build = s['build'];
  const context =
    typeof build === 'string' ? build : build === undefined ? undefined : scalar(fields(build, `${where}.build`)['context'], `${where}.build.context`);
  if (typeof s['command'] === 'string') throw new Error(`${where}.command: a shell-form string; write it as a list (exec form)`);
  const deploy = s['deploy'] === undefined ? {} : fields(s['deploy'], `${where}.deploy`);
  const replicas = scalar(deploy['replicas'], `${where}.deploy.replicas`) ?? scalar(s['scale'], `${where}.scale`) ?? '1';
  const healthcheck = s['healthcheck'] === undefined ? undefined : fields(s['healthcheck'], `${where}.healthcheck`);
  const test = healthcheck?.['test'];
  return {
    name,
    image: scalar(s['image'], `${where}.image`),
    buildContext: context === undefined ? undefined : resolve(baseDir, context),
    command: strings(s['command'], `${where}.command`),
    hostname: scalar(s['hostname'], `${where}.hostname`),
    user: scalar(s['user'], `${where}.user`),
    restart: scalar(s['restart'], `${where}.restart`),
    containerName: scalar(s['container_name'], `${where}.container_name`),
    replicas: Number(replicas),
    mounts: [
      ...list(s['volumes'], `${where}.volumes`).map((v, i) => mount(v, `${where}.volumes[${i}]`, baseDir)),
      ...strings(s['tmpfs'], `${where}.tmpfs`).map((target): Mount => ({ type: 'tmpfs', source: '', target: target.split(':')[0] ?? target, readOnly: false })),
    ],
    ports: list(s['ports'], `${where}.ports`).map((p, i) => port(p, `${where}.ports[${i}]`)),
    dependsOn: dependsOn(s['depends_on'], `${where}.depends_on`),
    healthcheck: test === undefined ? undefined : typeof test === 'string' ? ['CMD-SHELL', test] : strings(test, `${where}.healthcheck.test`),
    environment: environment(s['environment'], `${where}.environment`),
  };
}

/** The model of a parsed Compose document; relative paths are resolved against `baseDir` (the file's directory). */
export function composeModel(document: unknown, baseDir: string): ComposeModel {
  const doc = fields(document, 'the Compose document');
  const services = new Map(Object.entries(fields(doc['services'], 'services')).map(([name, value]) => [name, service(name, value, baseDir)]));
  const volumes = doc['volumes'] === undefined ? [] : Object.keys(fields(doc['volumes'], 'volumes'));
  return { services, volumes };
}

/** The value after `flag` in an exec-form command (`--flag value` or `--flag=value`), or undefined. */
export function flagValue(command: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < command.length; i++) {
    const arg = command[i] ?? '';
    if (arg === flag) return command[i + 1];
    if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
  }
  return undefined;
}
