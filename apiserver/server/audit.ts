/**
 * Auditing as upstream does it: an `audit.k8s.io/v1` Policy (--audit-policy-file) decides per
 * request the level (None, Metadata, Request, RequestResponse) and the stages to omit; events are
 * written as JSON lines (`audit.k8s.io/v1` Event) to --audit-log-path, rotated by size
 * (--audit-log-maxsize MB, --audit-log-maxbackup files, --audit-log-maxage days).
 *
 * Without a policy file nothing is audited, as upstream. Stages: RequestReceived once the user is
 * known, ResponseStarted when a long-running request (a watch) sends its headers, ResponseComplete
 * when the answer is complete. Annotations (authorization decision, deprecation) are those known
 * at the moment an event is written.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { isIP } from 'node:net';
import { parse as parseYaml } from 'yaml';
import { FieldPath, fieldErrorString, invalid, notSupported, required, type FieldError } from '../../shared/api/field.ts';
import { isObject, type Status } from '../../shared/api/types.ts';
import { isDNS1123Subdomain } from '../../shared/validation/names.ts';
import type { AuthorizationAttributes } from '../authorization/authorizer.ts';
import type { UserInfo } from '../registry/definition.ts';
import { formatMicroTimeOf } from '../../shared/go/time.ts';

export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

const levels: readonly AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
const stages: readonly AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

export interface GroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  level: AuditLevel;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: AuditStage[];
  omitManagedFields?: boolean;
}

export interface AuditPolicy {
  rules: PolicyRule[];
  omitStages?: AuditStage[];
  omitManagedFields?: boolean;
}

/** What a policy rule matches on: upstream's authorizer.Attributes, the user included. */
export interface AuditAttributes extends AuthorizationAttributes {
  user: UserInfo | undefined;
}

export interface RequestAuditConfig {
  level: AuditLevel;
  omitStages: ReadonlySet<AuditStage>;
  omitManagedFields: boolean;
}

// ---------------------------------------------------------------------------------------------
// The policy file.

const policyFields = new Set(['apiVersion', 'kind', 'metadata', 'rules', 'omitStages', 'omitManagedFields']);
const ruleFields = new Set(['level', 'users', 'userGroups', 'verbs', 'resources', 'namespaces', 'nonResourceURLs', 'omitStages', 'omitManagedFields']);
const groupResourceFields = new Set(['group', 'resources', 'resourceNames']);

/** Go's %#v of a []string, as field errors print list values. */
function goSlice(values: readonly string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

function stringList(value: unknown, path: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new Error(`failed decoding: json: cannot unmarshal ${Array.isArray(value) ? 'value' : typeof value} into Go struct field ${path} of type []string`);
  }
  return value as string[];
}

/** Decodes the document the way upstream's lenient decoder does, collecting what strict decoding would reject. */
function decodePolicy(doc: unknown, unknown: string[]): AuditPolicy {
  if (!isObject(doc)) throw new Error("failed decoding: Object 'Kind' is missing in the policy");
  const kind = doc.kind;
  const apiVersion = doc.apiVersion;
  if (typeof kind !== 'string' || kind === '') throw new Error(`failed decoding: Object 'Kind' is missing in '${JSON.stringify(doc)}'`);
  if (typeof apiVersion !== 'string' || apiVersion === '') throw new Error(`failed decoding: Object 'apiVersion' is missing in '${JSON.stringify(doc)}'`);
  if (apiVersion !== 'audit.k8s.io/v1' || kind !== 'Policy') {
    throw new Error(
      `failed decoding: no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "k8s.io/apiserver/pkg/audit/scheme.go:30"`,
    );
  }
  for (const key of Object.keys(doc)) if (!policyFields.has(key)) unknown.push(key);
  const rulesValue = doc.rules ?? [];
  if (!Array.isArray(rulesValue)) throw new Error('failed decoding: json: cannot unmarshal object into Go struct field Policy.rules of type []v1.PolicyRule');
  const rules = rulesValue.map((raw, i): PolicyRule => {
    if (!isObject(raw)) throw new Error(`failed decoding: json: cannot unmarshal ${typeof raw} into Go struct field Policy.rules of type v1.PolicyRule`);
    for (const key of Object.keys(raw)) if (!ruleFields.has(key)) unknown.push(`rules[${i}].${key}`);
    const resources = raw.resources === undefined || raw.resources === null ? undefined : raw.resources;
    if (resources !== undefined && !Array.isArray(resources))
      throw new Error('failed decoding: json: cannot unmarshal object into Go struct field PolicyRule.rules.resources of type []v1.GroupResources');
    const rule: PolicyRule = { level: (typeof raw.level === 'string' ? raw.level : '') as AuditLevel };
    const users = stringList(raw.users, 'PolicyRule.rules.users');
    const userGroups = stringList(raw.userGroups, 'PolicyRule.rules.userGroups');
    const verbs = stringList(raw.verbs, 'PolicyRule.rules.verbs');
    const namespaces = stringList(raw.namespaces, 'PolicyRule.rules.namespaces');
    const nonResourceURLs = stringList(raw.nonResourceURLs, 'PolicyRule.rules.nonResourceURLs');
    const omitStages = stringList(raw.omitStages, 'PolicyRule.rules.omitStages');
    if (users) rule.users = users;
    if (userGroups) rule.userGroups = userGroups;
    if (verbs) rule.verbs = verbs;
    if (namespaces) rule.namespaces = namespaces;
    if (nonResourceURLs) rule.nonResourceURLs = nonResourceURLs;
    if (omitStages) rule.omitStages = omitStages as AuditStage[];
    if (typeof raw.omitManagedFields === 'boolean') rule.omitManagedFields = raw.omitManagedFields;
    if (resources) {
      rule.resources = resources.map((gr, j): GroupResources => {
        if (!isObject(gr))
          throw new Error('failed decoding: json: cannot unmarshal value into Go struct field PolicyRule.rules.resources of type v1.GroupResources');
        for (const key of Object.keys(gr)) if (!groupResourceFields.has(key)) unknown.push(`rules[${i}].resources[${j}].${key}`);
        const out: GroupResources = {};
        if (typeof gr.group === 'string') out.group = gr.group;
        const res = stringList(gr.resources, 'GroupResources.rules.resources.resources');
        const names = stringList(gr.resourceNames, 'GroupResources.rules.resources.resourceNames');
        if (res) out.resources = res;
        if (names) out.resourceNames = names;
        return out;
      });
    }
    return rule;
  });
  const policy: AuditPolicy = { rules };
  const omitStages = stringList(doc.omitStages, 'Policy.omitStages');
  if (omitStages) policy.omitStages = omitStages as AuditStage[];
  if (typeof doc.omitManagedFields === 'boolean') policy.omitManagedFields = doc.omitManagedFields;
  return policy;
}

function validateOmitStages(values: readonly string[] | undefined, path: FieldPath): FieldError[] {
  return (values ?? []).flatMap((stage, i) =>
    stages.includes(stage as AuditStage) ? [] : [invalid(path.index(i), stage, `allowed stages are ${stages.join(',')}`)],
  );
}

/** Upstream's ValidatePolicy, with its field paths and messages. */
export function validateAuditPolicy(policy: AuditPolicy): FieldError[] {
  const errors = validateOmitStages(policy.omitStages, FieldPath.root('omitStages'));
  policy.rules.forEach((rule, i) => {
    const path = FieldPath.root('rules').index(i);
    if (rule.level === ('' as AuditLevel)) errors.push(required(path.child('level')));
    else if (!levels.includes(rule.level)) errors.push(notSupported(path.child('level'), rule.level, levels));
    (rule.nonResourceURLs ?? []).forEach((url, j) => {
      if (url === '*') return;
      if (!url.startsWith('/')) errors.push(invalid(path.child('nonResourceURLs').index(j), url, "non-resource URL rules must begin with a '/' character"));
      if (url !== '' && url.slice(0, -1).includes('*')) {
        errors.push(invalid(path.child('nonResourceURLs').index(j), url, "non-resource URL wildcards '*' must be the final character of the rule"));
      }
    });
    for (const gr of rule.resources ?? []) {
      if (gr.group) {
        const msgs = isDNS1123Subdomain(gr.group);
        if (msgs.length) errors.push(invalid(path.child('resources', 'group'), gr.group, msgs.join(',')));
      }
      if ((gr.resourceNames ?? []).length > 0 && (gr.resources ?? []).length === 0) {
        errors.push({
          ...invalid(path.child('resources', 'resourceNames'), gr.resourceNames, 'using resourceNames requires at least one resource'),
          valueText: goSlice(gr.resourceNames ?? []),
        });
      }
    }
    errors.push(...validateOmitStages(rule.omitStages, path.child('omitStages')));
    if ((rule.nonResourceURLs ?? []).length > 0 && ((rule.resources ?? []).length > 0 || (rule.namespaces ?? []).length > 0)) {
      errors.push({
        ...invalid(path.child('nonResourceURLs'), rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'),
        valueText: goSlice(rule.nonResourceURLs ?? []),
      });
    }
  });
  return errors;
}

/** Go's aggregate of errors: the one message, or `[a, b]`. */
function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

/**
 * Reads --audit-policy-file. Unknown fields are tolerated (upstream falls back to lenient decoding)
 * and returned as warnings; anything else wrong is upstream's startup error.
 */
export function loadAuditPolicy(path: string): { policy: AuditPolicy; warnings: string[] } {
  const fail = (message: string): never => {
    throw new Error(`loading audit policy file: ${message}`);
  };
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    fail(`failed to read file path ${JSON.stringify(path)}: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (err) {
      throw new Error(`failed decoding: ${err instanceof Error ? err.message : String(err)}`);
    }
    const unknown: string[] = [];
    const policy = decodePolicy(doc, unknown);
    const errors = validateAuditPolicy(policy);
    if (errors.length) throw new Error(aggregate(errors.map(fieldErrorString)));
    if (policy.rules.length === 0) throw new Error('loaded illegal policy with 0 rules');
    const warnings = unknown.length
      ? [
          `Audit policy contains errors, falling back to lenient decoding: strict decoding error: ${unknown.map((f) => `unknown field ${JSON.stringify(f)}`).join(', ')}`,
        ]
      : [];
    return { policy, warnings };
  } catch (err) {
    return fail(`${err instanceof Error ? err.message : String(err)}: from file ${path}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Evaluation (upstream's policy checker).

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function ruleMatchesResource(rule: PolicyRule, attrs: AuditAttributes): boolean {
  if (!attrs.isResourceRequest) return false;
  if (rule.namespaces?.length && !rule.namespaces.includes(attrs.namespace)) return false;
  if (!rule.resources?.length) return true;
  const { resource, subresource, name } = attrs;
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const gr of rule.resources) {
    if ((gr.group ?? '') !== attrs.apiGroup) continue;
    if (!gr.resources?.length) return true;
    for (const res of gr.resources) {
      if (gr.resourceNames?.length && !gr.resourceNames.includes(name)) continue;
      if (res === combined || res === '*') return true;
      if (subresource && res.startsWith('*/') && subresource === res.slice(2)) return true;
      if (res.endsWith('/*') && resource === res.slice(0, -2)) return true;
    }
  }
  return false;
}

function ruleMatches(rule: PolicyRule, attrs: AuditAttributes): boolean {
  const user = attrs.user;
  if (rule.users?.length && (!user || !rule.users.includes(user.username))) return false;
  if (rule.userGroups?.length && (!user || !user.groups.some((g) => rule.userGroups!.includes(g)))) return false;
  if (rule.verbs?.length && !rule.verbs.includes(attrs.verb)) return false;
  if (rule.namespaces?.length || rule.resources?.length) return ruleMatchesResource(rule, attrs);
  if (rule.nonResourceURLs?.length) return !attrs.isResourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(attrs.path, spec));
  return true;
}

/** The first matching rule decides; without one the level is None. A rule's omitted stages add to the policy's. */
export function evaluateAuditPolicy(policy: AuditPolicy, attrs: AuditAttributes): RequestAuditConfig {
  for (const rule of policy.rules) {
    if (!ruleMatches(rule, attrs)) continue;
    return {
      level: rule.level,
      omitStages: new Set([...(policy.omitStages ?? []), ...(rule.omitStages ?? [])]),
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields ?? false,
    };
  }
  return { level: 'None', omitStages: new Set(policy.omitStages ?? []), omitManagedFields: policy.omitManagedFields ?? false };
}

// ---------------------------------------------------------------------------------------------
// The log file.

const megabyte = 1024 * 1024;
/** lumberjack's size when none is given (--audit-log-maxsize 0). */
const defaultMaxSizeMb = 100;

export interface AuditLogOptions {
  /** A file, or `-` for standard output. */
  path: string;
  maxSizeMb: number;
  maxBackups: number;
  maxAgeDays: number;
}

/** Where audit events go. `write` receives one JSON document without the newline. */
export interface AuditSink {
  write(line: string): void;
  close(): void;
}

/** Backup names as lumberjack makes them: `audit-2006-01-02T15-04-05.000.log`, UTC. */
function backupName(path: string, at: Date): string {
  const ext = extname(path);
  const stem = basename(path, ext);
  const stamp = at.toISOString().replace(/:/g, '-').replace(/Z$/, '');
  return join(dirname(path), `${stem}-${stamp}${ext}`);
}

/**
 * A size-rotated log file with lumberjack's behaviour: when a write would grow the file past the
 * limit, the file is renamed to a timestamped backup and a new one started; backups beyond
 * maxBackups (0: keep all) or older than maxAgeDays (0: keep all) are removed, oldest first.
 * Writes are synchronous, as upstream's default (blocking) audit mode is.
 */
export class RotatingFile implements AuditSink {
  private fd: number;
  private size: number;
  private readonly maxBytes: number;

  constructor(private readonly opts: AuditLogOptions) {
    this.maxBytes = (opts.maxSizeMb > 0 ? opts.maxSizeMb : defaultMaxSizeMb) * megabyte;
    mkdirSync(dirname(opts.path), { recursive: true, mode: 0o700 });
    this.fd = openSync(opts.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  write(line: string): void {
    const data = Buffer.from(`${line}\n`, 'utf8');
    if (data.length > this.maxBytes) throw new Error(`write length ${data.length} exceeds maximum file size ${this.maxBytes}`);
    if (this.size + data.length > this.maxBytes) this.rotate();
    writeSync(this.fd, data);
    this.size += data.length;
  }

  close(): void {
    closeSync(this.fd);
  }

  private rotate(): void {
    closeSync(this.fd);
    let at = new Date();
    while (existsSync(backupName(this.opts.path, at))) at = new Date(at.getTime() + 1);
    renameSync(this.opts.path, backupName(this.opts.path, at));
    this.fd = openSync(this.opts.path, 'a', 0o600);
    this.size = 0;
    this.removeOldBackups();
  }

  private removeOldBackups(): void {
    const { maxBackups, maxAgeDays } = this.opts;
    if (maxBackups <= 0 && maxAgeDays <= 0) return;
    const ext = extname(this.opts.path);
    const prefix = `${basename(this.opts.path, ext)}-`;
    const dir = dirname(this.opts.path);
    const stamp = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}$/;
    const backups = readdirSync(dir)
      .filter((f) => f.startsWith(prefix) && f.endsWith(ext) && stamp.test(f.slice(prefix.length, f.length - ext.length)))
      .sort()
      .reverse();
    const cutoff = Date.now() - maxAgeDays * 24 * 3600 * 1000;
    backups.forEach((file, i) => {
      const tooMany = maxBackups > 0 && i >= maxBackups;
      const tooOld = maxAgeDays > 0 && statSync(join(dir, file)).mtimeMs < cutoff;
      if (tooMany || tooOld) unlinkSync(join(dir, file));
    });
  }
}

export function openAuditLog(opts: AuditLogOptions): AuditSink {
  if (opts.path === '-') return { write: (line) => void process.stdout.write(`${line}\n`), close: () => {} };
  return new RotatingFile(opts);
}

// ---------------------------------------------------------------------------------------------
// Events.

interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** What the pipeline knows about a request when its audit starts. */
export interface AuditRequestInfo {
  auditID: string;
  requestURI: string;
  userAgent: string | undefined;
  sourceIPs: string[];
  received: Date;
}

/** Keeps the request and response bodies out of the log unless the level asks for them. */
function bodyOf(contentType: string | undefined, body: Buffer | string | Uint8Array | undefined, omitManagedFields: boolean): unknown {
  if (body === undefined || body.length === 0) return undefined;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  let value: unknown;
  try {
    if (type === 'application/json' || type.endsWith('+json')) value = JSON.parse(text);
    else if (type === 'application/yaml' || type.endsWith('+yaml')) value = parseYaml(text);
    else return undefined;
  } catch {
    return undefined;
  }
  if (omitManagedFields && isObject(value)) dropManagedFields(value);
  return value;
}

function dropManagedFields(value: Record<string, unknown>): void {
  if (isObject(value.metadata)) delete value.metadata.managedFields;
  if (Array.isArray(value.items)) for (const item of value.items) if (isObject(item)) dropManagedFields(item);
}

/** Upstream's SourceIPs: X-Forwarded-For entries, X-Real-Ip, then the peer (unless it repeats the last). */
export function sourceIPs(headers: Record<string, string | string[] | undefined>, remoteAddress: string | undefined): string[] {
  const clean = (ip: string): string => (ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip);
  const header = (name: string): string => {
    const v = headers[name];
    return (Array.isArray(v) ? v[0] : v) ?? '';
  };
  const ips: string[] = [];
  for (const part of header('x-forwarded-for').split(',')) {
    const ip = part.trim();
    if (ip && isIP(ip)) ips.push(clean(ip));
  }
  const real = header('x-real-ip').trim();
  if (real && isIP(real) && !ips.includes(clean(real))) ips.push(clean(real));
  if (remoteAddress && isIP(remoteAddress)) {
    const peer = clean(remoteAddress);
    if (ips[ips.length - 1] !== peer) ips.push(peer);
  }
  return ips;
}

const maxUserAgentLength = 1024;

/** authentication/v1 UserInfo as an audit event carries it: empty fields left out. */
function auditUserInfo(user: UserInfo): Record<string, unknown> {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups.length ? { groups: user.groups } : {}),
    ...(user.extra && Object.keys(user.extra).length ? { extra: user.extra } : {}),
  };
}

/** The audit of one request whose level is above None. */
export class RequestAudit {
  private readonly annotations: Record<string, string> = {};
  private objectRef: ObjectReference | undefined;
  private requestObject: unknown;
  private responseStatus: Record<string, unknown> | undefined;
  private responseObject: unknown;
  private completed = false;
  /** Who the request acts as (Impersonate-User), shown in every stage after RequestReceived. */
  private impersonatedUser: UserInfo | undefined;

  constructor(
    private readonly config: RequestAuditConfig,
    private readonly attrs: AuditAttributes,
    private readonly info: AuditRequestInfo,
    private readonly emit: (event: Record<string, unknown>) => void,
  ) {
    if (attrs.isResourceRequest) {
      this.objectRef = {
        ...(attrs.resource ? { resource: attrs.resource } : {}),
        ...(attrs.namespace ? { namespace: attrs.namespace } : {}),
        ...(attrs.name ? { name: attrs.name } : {}),
        ...(attrs.apiGroup ? { apiGroup: attrs.apiGroup } : {}),
        ...(attrs.apiVersion ? { apiVersion: attrs.apiVersion } : {}),
        ...(attrs.subresource ? { subresource: attrs.subresource } : {}),
      };
    }
  }

  get level(): AuditLevel {
    return this.config.level;
  }

  /** Records an annotation (upstream adds them only at Metadata level and above, which every RequestAudit is). */
  annotate(key: string, value: string): void {
    this.annotations[key] = value;
  }

  impersonated(user: UserInfo): void {
    this.impersonatedUser = user;
  }

  requestReceived(): void {
    this.write('RequestReceived', this.info.received);
  }

  /** A long-running request sent its headers. */
  responseStarted(code: number): void {
    this.responseStatus = { metadata: {}, code };
    this.write('ResponseStarted', new Date());
  }

  /** The request body, kept at Request level and above (a patch is kept as sent). */
  requestBody(contentType: string | undefined, body: Buffer): void {
    if (this.config.level === 'Metadata') return;
    const patch = /patch/.test(contentType ?? '');
    this.requestObject = bodyOf(patch ? 'application/json' : contentType, body, this.config.omitManagedFields && !patch);
  }

  /** The answer: its code, its Status when it failed, and its body (kept at RequestResponse level). */
  complete(code: number, status: Status | undefined, contentType: string | undefined, body: string | Uint8Array | undefined): void {
    if (this.completed) return;
    this.completed = true;
    if (status) {
      const { kind: _k, apiVersion: _a, ...rest } = status;
      this.responseStatus = rest;
    } else {
      this.responseStatus = { metadata: {}, code };
    }
    if (this.config.level === 'RequestResponse') this.responseObject = bodyOf(contentType, body, this.config.omitManagedFields);
    this.write('ResponseComplete', new Date());
  }

  private write(stage: AuditStage, at: Date): void {
    if (this.config.omitStages.has(stage)) return;
    const user = this.attrs.user;
    const agent = this.info.userAgent ?? '';
    const event: Record<string, unknown> = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: this.config.level,
      auditID: this.info.auditID,
      stage,
      requestURI: this.info.requestURI,
      verb: this.attrs.verb,
      user: user ? auditUserInfo(user) : {},
    };
    if (this.impersonatedUser) event.impersonatedUser = auditUserInfo(this.impersonatedUser);
    if (this.info.sourceIPs.length) event.sourceIPs = this.info.sourceIPs;
    if (agent) event.userAgent = agent.length > maxUserAgentLength ? `${agent.slice(0, maxUserAgentLength)}...TRUNCATED` : agent;
    if (this.objectRef) event.objectRef = this.objectRef;
    if (this.responseStatus && stage !== 'RequestReceived') event.responseStatus = this.responseStatus;
    if (this.requestObject !== undefined && stage !== 'RequestReceived') event.requestObject = this.requestObject;
    if (this.responseObject !== undefined && stage === 'ResponseComplete') event.responseObject = this.responseObject;
    event.requestReceivedTimestamp = formatMicroTimeOf(this.info.received);
    event.stageTimestamp = formatMicroTimeOf(at);
    if (Object.keys(this.annotations).length) event.annotations = { ...this.annotations };
    this.emit(event);
  }
}

/** The policy and the sink together: starts the audit of a request, or nothing at level None. */
export class Auditor {
  constructor(
    private readonly policy: AuditPolicy,
    private readonly sink: AuditSink,
    private readonly onEvent: () => void = () => {},
  ) {}

  begin(attrs: AuditAttributes, info: AuditRequestInfo): RequestAudit | undefined {
    const config = evaluateAuditPolicy(this.policy, attrs);
    if (config.level === 'None') return undefined;
    return new RequestAudit(config, attrs, info, (event) => {
      this.sink.write(JSON.stringify(event));
      this.onEvent();
    });
  }

  close(): void {
    this.sink.close();
  }
}
