import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Auditor, evaluateAuditPolicy, loadAuditPolicy, RotatingFile, sourceIPs, type AuditAttributes, type AuditPolicy, type AuditSink } from './audit.ts';

const dir = mkdtempSync(join(tmpdir(), 'corral-audit-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function policyFile(text: string): string {
  const path = join(dir, `policy-${files++}.yaml`);
  writeFileSync(path, text);
  return path;
}

function loadError(text: string): string {
  const path = policyFile(text);
  try {
    loadAuditPolicy(path);
  } catch (err) {
    return (err as Error).message.replace(` from file ${path}`, ' from file <path>');
  }
  return 'no error';
}

const header = 'apiVersion: audit.k8s.io/v1\nkind: Policy\n';

describe('loadAuditPolicy', () => {
  it('reads an audit.k8s.io/v1 Policy in YAML or JSON', () => {
    const yaml = loadAuditPolicy(
      policyFile(
        `${header}omitStages: [RequestReceived]\nrules:\n- level: Metadata\n  resources:\n  - group: ""\n    resources: [secrets]\n- level: RequestResponse\n  users: [bob]\n`,
      ),
    );
    assert.deepEqual(yaml.policy, {
      omitStages: ['RequestReceived'],
      rules: [
        { level: 'Metadata', resources: [{ group: '', resources: ['secrets'] }] },
        { level: 'RequestResponse', users: ['bob'] },
      ],
    });
    assert.deepEqual(yaml.warnings, []);
    const json = loadAuditPolicy(policyFile(JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'None' }] })));
    assert.deepEqual(json.policy, { rules: [{ level: 'None' }] });
  });

  it('falls back to lenient decoding of unknown fields with a warning', () => {
    const { policy, warnings } = loadAuditPolicy(policyFile(`${header}rules:\n- level: Metadata\n  verb: [get]\n`));
    assert.deepEqual(policy.rules, [{ level: 'Metadata' }]);
    assert.deepEqual(warnings, ['Audit policy contains errors, falling back to lenient decoding: strict decoding error: unknown field "rules[0].verb"']);
  });

  it('fails with upstream messages', () => {
    assert.match(loadError(''), /^loading audit policy file: failed decoding: Object 'Kind' is missing/);
    assert.equal(
      loadError('apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: None\n'),
      'loading audit policy file: failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v1beta1" in scheme "k8s.io/apiserver/pkg/audit/scheme.go:30": from file <path>',
    );
    assert.equal(loadError(`${header}rules: []\n`), 'loading audit policy file: loaded illegal policy with 0 rules: from file <path>');
    assert.equal(
      loadError(`${header}rules:\n- level: Everything\n`),
      'loading audit policy file: rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse": from file <path>',
    );
    assert.equal(loadError(`${header}rules:\n- users: [bob]\n`), 'loading audit policy file: rules[0].level: Required value: from file <path>');
    assert.equal(
      loadError(`${header}rules:\n- level: None\n  nonResourceURLs: [healthz, /api/*/x]\n  namespaces: [default]\n`),
      'loading audit policy file: [' +
        'rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a \'/\' character, ' +
        'rules[0].nonResourceURLs[1]: Invalid value: "/api/*/x": non-resource URL wildcards \'*\' must be the final character of the rule, ' +
        'rules[0].nonResourceURLs: Invalid value: []string{"healthz", "/api/*/x"}: rules cannot apply to both regular resources and non-resource URLs]: from file <path>',
    );
    assert.equal(
      loadError(`${header}rules:\n- level: None\n  resources:\n  - group: Apps\n  - resourceNames: [x]\n  omitStages: [Started]\n`),
      'loading audit policy file: [' +
        "rules[0].resources.group: Invalid value: \"Apps\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), " +
        'rules[0].resources.resourceNames: Invalid value: []string{"x"}: using resourceNames requires at least one resource, ' +
        'rules[0].omitStages[0]: Invalid value: "Started": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic]: from file <path>',
    );
    assert.match(loadError('x'), /^loading audit policy file: failed decoding: /);
    assert.throws(() => loadAuditPolicy(join(dir, 'missing.yaml')), /^Error: loading audit policy file: failed to read file path ".*missing\.yaml": ENOENT/);
  });
});

const attrs = (over: Partial<AuditAttributes> = {}): AuditAttributes => ({
  user: { username: 'bob', groups: ['devs', 'system:authenticated'] },
  verb: 'get',
  isResourceRequest: true,
  path: '/api/v1/namespaces/default/configmaps/c',
  namespace: 'default',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'configmaps',
  subresource: '',
  name: 'c',
  ...over,
});

describe('evaluateAuditPolicy', () => {
  const level = (policy: AuditPolicy, a: AuditAttributes) => evaluateAuditPolicy(policy, a).level;

  it('takes the first rule matching user, group, verb, namespace and resource, and None without one', () => {
    const policy: AuditPolicy = {
      rules: [
        { level: 'None', users: ['system:kube-proxy'] },
        { level: 'RequestResponse', userGroups: ['auditors'] },
        { level: 'Metadata', resources: [{ group: '', resources: ['secrets'] }] },
        { level: 'Request', verbs: ['create', 'update'], namespaces: ['prod'] },
        { level: 'Metadata', nonResourceURLs: ['/healthz*', '/version'] },
      ],
    };
    assert.equal(level(policy, attrs({ user: { username: 'system:kube-proxy', groups: ['auditors'] } })), 'None');
    assert.equal(level(policy, attrs({ user: { username: 'eve', groups: ['auditors'] } })), 'RequestResponse');
    assert.equal(level(policy, attrs({ resource: 'secrets' })), 'Metadata');
    assert.equal(level(policy, attrs({ verb: 'create', namespace: 'prod' })), 'Request');
    assert.equal(level(policy, attrs({ verb: 'create' })), 'None');
    assert.equal(level(policy, attrs({ isResourceRequest: false, path: '/healthz/etcd', resource: '', namespace: '' })), 'Metadata');
    assert.equal(level(policy, attrs({ isResourceRequest: false, path: '/version/x', resource: '', namespace: '' })), 'None');
    assert.equal(level(policy, attrs({ user: undefined })), 'None');
  });

  it('matches subresources as resource/sub, */sub and resource/*, and resource names', () => {
    const rule = (resources: string[], resourceNames?: string[]): AuditPolicy => ({
      rules: [{ level: 'Metadata', resources: [{ group: 'certificates.k8s.io', resources, ...(resourceNames ? { resourceNames } : {}) }] }],
    });
    const csr = attrs({ apiGroup: 'certificates.k8s.io', resource: 'certificatesigningrequests', subresource: 'approval', namespace: '', name: 'x' });
    assert.equal(level(rule(['certificatesigningrequests/approval']), csr), 'Metadata');
    assert.equal(level(rule(['*/approval']), csr), 'Metadata');
    assert.equal(level(rule(['certificatesigningrequests/*']), csr), 'Metadata');
    assert.equal(level(rule(['*']), csr), 'Metadata');
    assert.equal(level(rule(['certificatesigningrequests']), csr), 'None');
    assert.equal(level(rule(['*'], ['y']), csr), 'None');
    assert.equal(level(rule(['*'], ['x']), csr), 'Metadata');
    assert.equal(level({ rules: [{ level: 'Metadata', resources: [{ group: 'certificates.k8s.io' }] }] }, csr), 'Metadata');
    assert.equal(level({ rules: [{ level: 'Metadata', resources: [{ group: '' }] }] }, csr), 'None');
  });

  it("adds a rule's omitted stages to the policy's", () => {
    const config = evaluateAuditPolicy({ omitStages: ['RequestReceived'], rules: [{ level: 'Request', omitStages: ['ResponseStarted'] }] }, attrs());
    assert.deepEqual([...config.omitStages].sort(), ['RequestReceived', 'ResponseStarted']);
  });
});

/** A sink that keeps the events it is given. */
function memorySink(): AuditSink & { events: Record<string, unknown>[] } {
  const events: Record<string, unknown>[] = [];
  return { events, write: (line) => void events.push(JSON.parse(line) as Record<string, unknown>), close: () => {} };
}

describe('RequestAudit', () => {
  const received = new Date('2024-05-01T10:00:00.123Z');
  const info = {
    auditID: 'id-1',
    requestURI: '/api/v1/namespaces/default/configmaps?dryRun=All',
    userAgent: 'kubectl/v1.32.0',
    sourceIPs: ['127.0.0.1'],
    received,
  };

  it('writes RequestReceived and ResponseComplete events in upstream field order at Metadata level', () => {
    const sink = memorySink();
    const auditor = new Auditor({ rules: [{ level: 'Metadata' }] }, sink);
    const audit = auditor.begin(attrs({ verb: 'create', name: '' }), info)!;
    audit.requestReceived();
    audit.annotate('authorization.k8s.io/decision', 'allow');
    audit.requestBody('application/json', Buffer.from('{"kind":"ConfigMap"}'));
    audit.complete(201, undefined, 'application/json', '{"kind":"ConfigMap"}');
    assert.equal(sink.events.length, 2);
    const [first, last] = sink.events;
    assert.deepEqual(Object.keys(first!), [
      'kind',
      'apiVersion',
      'level',
      'auditID',
      'stage',
      'requestURI',
      'verb',
      'user',
      'sourceIPs',
      'userAgent',
      'objectRef',
      'requestReceivedTimestamp',
      'stageTimestamp',
    ]);
    assert.deepEqual(first, {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: 'id-1',
      stage: 'RequestReceived',
      requestURI: '/api/v1/namespaces/default/configmaps?dryRun=All',
      verb: 'create',
      user: { username: 'bob', groups: ['devs', 'system:authenticated'] },
      sourceIPs: ['127.0.0.1'],
      userAgent: 'kubectl/v1.32.0',
      objectRef: { resource: 'configmaps', namespace: 'default', apiVersion: 'v1' },
      requestReceivedTimestamp: '2024-05-01T10:00:00.123000Z',
      stageTimestamp: '2024-05-01T10:00:00.123000Z',
    });
    assert.equal(last?.stage, 'ResponseComplete');
    assert.deepEqual(last?.responseStatus, { metadata: {}, code: 201 });
    assert.deepEqual(last?.annotations, { 'authorization.k8s.io/decision': 'allow' });
    assert.equal(last?.requestObject, undefined);
    assert.equal(last?.responseObject, undefined);
    assert.match(String(last?.stageTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('keeps the request object at Request level and the response too at RequestResponse, without managed fields when asked', () => {
    const run = (policy: AuditPolicy) => {
      const sink = memorySink();
      const audit = new Auditor(policy, sink).begin(attrs({ verb: 'update' }), info)!;
      audit.requestBody('application/json', Buffer.from('{"kind":"ConfigMap","metadata":{"name":"c","managedFields":[{}]}}'));
      audit.complete(200, undefined, 'application/json', '{"kind":"ConfigMap","metadata":{"name":"c","resourceVersion":"5","managedFields":[{}]}}');
      return sink.events.at(-1)!;
    };
    const request = run({ rules: [{ level: 'Request' }] });
    assert.deepEqual(request.requestObject, { kind: 'ConfigMap', metadata: { name: 'c', managedFields: [{}] } });
    assert.equal(request.responseObject, undefined);
    const both = run({ rules: [{ level: 'RequestResponse', omitManagedFields: true }] });
    assert.deepEqual(both.requestObject, { kind: 'ConfigMap', metadata: { name: 'c' } });
    assert.deepEqual(both.responseObject, { kind: 'ConfigMap', metadata: { name: 'c', resourceVersion: '5' } });
  });

  it('keeps a failure Status as the response status, a patch as sent, and emits ResponseStarted for watches unless omitted', () => {
    const sink = memorySink();
    const auditor = new Auditor({ rules: [{ level: 'Request' }] }, sink);
    const failed = auditor.begin(attrs({ verb: 'patch' }), info)!;
    failed.requestBody('application/merge-patch+json', Buffer.from('{"data":{"a":"b"}}'));
    failed.complete(
      404,
      {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'configmaps "c" not found',
        reason: 'NotFound',
        details: { name: 'c', kind: 'configmaps' },
        code: 404,
      },
      undefined,
      undefined,
    );
    assert.deepEqual(sink.events.at(-1)?.responseStatus, {
      metadata: {},
      status: 'Failure',
      message: 'configmaps "c" not found',
      reason: 'NotFound',
      details: { name: 'c', kind: 'configmaps' },
      code: 404,
    });
    assert.deepEqual(sink.events.at(-1)?.requestObject, { data: { a: 'b' } });
    const watch = auditor.begin(attrs({ verb: 'watch', name: '' }), info)!;
    watch.requestReceived();
    watch.responseStarted(200);
    watch.complete(200, undefined, undefined, undefined);
    assert.deepEqual(
      sink.events.slice(-3).map((e) => e.stage),
      ['RequestReceived', 'ResponseStarted', 'ResponseComplete'],
    );
    assert.deepEqual(sink.events.at(-2)?.responseStatus, { metadata: {}, code: 200 });
    const quiet = new Auditor({ omitStages: ['RequestReceived'], rules: [{ level: 'Metadata', omitStages: ['ResponseStarted'] }] }, sink).begin(
      attrs({ verb: 'watch' }),
      info,
    )!;
    const before = sink.events.length;
    quiet.requestReceived();
    quiet.responseStarted(200);
    quiet.complete(200, undefined, undefined, undefined);
    assert.deepEqual(
      sink.events.slice(before).map((e) => e.stage),
      ['ResponseComplete'],
    );
  });

  it('audits nothing at level None, and an unauthenticated request with an empty user', () => {
    const sink = memorySink();
    assert.equal(new Auditor({ rules: [{ level: 'None', users: ['bob'] }, { level: 'Metadata' }] }, sink).begin(attrs(), info), undefined);
    const anonymous = new Auditor({ rules: [{ level: 'Metadata' }] }, sink).begin(attrs({ user: undefined }), info)!;
    anonymous.complete(401, undefined, undefined, undefined);
    assert.deepEqual(sink.events[0]?.user, {});
  });
});

describe('sourceIPs', () => {
  it('lists forwarded addresses, the real IP and the peer as upstream does', () => {
    assert.deepEqual(sourceIPs({}, '::ffff:10.0.0.1'), ['10.0.0.1']);
    assert.deepEqual(sourceIPs({ 'x-forwarded-for': '1.1.1.1, junk, 2.2.2.2', 'x-real-ip': '2.2.2.2' }, '10.0.0.1'), ['1.1.1.1', '2.2.2.2', '10.0.0.1']);
    assert.deepEqual(sourceIPs({ 'x-real-ip': '3.3.3.3' }, '3.3.3.3'), ['3.3.3.3']);
    assert.deepEqual(sourceIPs({}, '::1'), ['::1']);
  });
});

describe('RotatingFile', () => {
  it('rotates at the size limit into timestamped backups and keeps at most maxBackups', () => {
    const path = join(dir, 'logs', 'audit.log');
    const file = new RotatingFile({ path, maxSizeMb: 1, maxBackups: 2, maxAgeDays: 0 });
    const line = 'x'.repeat(100 * 1024 - 1);
    for (let i = 0; i < 45; i++) file.write(line);
    file.close();
    const names = readdirSync(join(dir, 'logs')).sort();
    assert.equal(names.length, 3, names.join(' '));
    assert.equal(names.at(-1), 'audit.log');
    for (const name of names.slice(0, 2)) assert.match(name, /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/);
    // 45 lines of 100 KiB: 10 per MiB file, so the current file holds the last 5
    assert.equal(statSync(path).size, 5 * 100 * 1024);
    assert.equal(readFileSync(join(dir, 'logs', names[0]!), 'utf8').split('\n').length - 1, 10);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.throws(() => new RotatingFile({ path, maxSizeMb: 1, maxBackups: 0, maxAgeDays: 0 }).write('y'.repeat(1024 * 1024)), {
      message: 'write length 1048577 exceeds maximum file size 1048576',
    });
  });
});
