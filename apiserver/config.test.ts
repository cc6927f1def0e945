import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { configFromFlags, parseFlags, usage } from './config.ts';

const config = (...args: string[]) => configFromFlags(parseFlags(['--etcd-servers=http://127.0.0.1:2379', ...args]));
const error = (...args: string[]): string => {
  try {
    config(...args);
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
};

describe('operational flags', () => {
  it('default as kube-apiserver', () => {
    const c = config();
    assert.equal(c.maxRequestsInflight, 400);
    assert.equal(c.maxMutatingRequestsInflight, 200);
    assert.equal(c.enablePriorityAndFairness, true);
    assert.equal(c.requestTimeoutMs, 60_000);
    assert.equal(c.livezGracePeriodMs, 0);
    assert.equal(c.shutdownDelayMs, 0);
    assert.equal(c.showHiddenMetricsForVersion, '');
    assert.equal(c.auditLogPath, '');
    assert.equal(c.auditPolicyFile, undefined);
    assert.deepEqual([c.auditLogMaxSizeMb, c.auditLogMaxBackups, c.auditLogMaxAgeDays], [0, 0, 0]);
    assert.equal(c.requestLogLevel, 'debug');
    assert.equal(c.etcdCompactionIntervalMs, 300_000);
  });

  it('read Go durations, integers and levels', () => {
    const c = config(
      '--max-requests-inflight=10',
      '--max-mutating-requests-inflight=0',
      '--request-timeout=1m30s',
      '--livez-grace-period=2s',
      '--shutdown-delay-duration=500ms',
      '--show-hidden-metrics-for-version=1.31',
      '--audit-log-path=/tmp/a.log',
      '--audit-policy-file=/tmp/p.yaml',
      '--audit-log-maxsize=5',
      '--audit-log-maxbackup=3',
      '--audit-log-maxage=7',
      '--request-log-level=info',
    );
    assert.deepEqual(
      [c.maxRequestsInflight, c.maxMutatingRequestsInflight, c.requestTimeoutMs, c.livezGracePeriodMs, c.shutdownDelayMs, c.showHiddenMetricsForVersion],
      [10, 0, 90_000, 2000, 500, '1.31'],
    );
    assert.deepEqual(
      [c.auditLogPath, c.auditPolicyFile, c.auditLogMaxSizeMb, c.auditLogMaxBackups, c.auditLogMaxAgeDays, c.requestLogLevel],
      ['/tmp/a.log', '/tmp/p.yaml', 5, 3, 7, 'info'],
    );
  });

  it('fail with upstream messages', () => {
    assert.equal(error('--max-requests-inflight=-1'), '--max-requests-inflight can not be negative value');
    assert.equal(error('--max-mutating-requests-inflight=-5'), '--max-mutating-requests-inflight can not be negative value');
    assert.equal(
      error('--max-requests-inflight=many'),
      'invalid argument "many" for "--max-requests-inflight" flag: strconv.ParseInt: parsing "many": invalid syntax',
    );
    assert.equal(
      error('--max-requests-inflight=0', '--max-mutating-requests-inflight=0'),
      'invalid configuration: MaxRequestsInFlight=0 and MaxMutatingRequestsInFlight=0; they must add up to something positive',
    );
    assert.equal(
      config('--max-requests-inflight=0', '--max-mutating-requests-inflight=0', '--enable-priority-and-fairness=false').enablePriorityAndFairness,
      false,
    );
    assert.equal(error('--request-timeout=-1s'), '--request-timeout can not be negative value');
    assert.equal(error('--request-timeout=60'), 'invalid argument "60" for "--request-timeout" flag: time: missing unit in duration "60"');
    assert.equal(error('--livez-grace-period=-1s'), '--livez-grace-period can not be a negative value');
    assert.equal(error('--shutdown-delay-duration=-1s'), '--shutdown-delay-duration can not be negative value');
    assert.equal(error('--shutdown-delay-duration=soon'), 'invalid argument "soon" for "--shutdown-delay-duration" flag: time: invalid duration "soon"');
    assert.equal(
      error('--show-hidden-metrics-for-version=1.30'),
      "--show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the previous minor version is allowed",
    );
    assert.equal(error('--audit-log-maxsize=-1'), "--audit-log-maxsize -1 can't be a negative number");
    assert.equal(error('--audit-log-maxbackup=-2'), "--audit-log-maxbackup -2 can't be a negative number");
    assert.equal(error('--request-log-level=loud'), '--request-log-level "loud" is not one of trace, debug, info, warn, error, fatal');
  });

  it("read booleans with Go's strconv.ParseBool", () => {
    for (const text of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(config(`--anonymous-auth=${text}`).anonymousAuth, true, text);
    for (const text of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(config(`--anonymous-auth=${text}`).anonymousAuth, false, text);
    assert.equal(config().anonymousAuth, true, 'upstream default: anonymous requests are allowed in, and RBAC decides');
    for (const text of ['yes', 'tRUE', 'on', ' true']) {
      assert.equal(
        error(`--anonymous-auth=${text}`),
        `invalid argument "${text}" for "--anonymous-auth" flag: strconv.ParseBool: parsing "${text}": invalid syntax`,
      );
    }
  });

  it('are listed by --help with their defaults', () => {
    const text = usage('corral');
    for (const line of [
      /--max-requests-inflight .*\(default "400"\)/,
      /--max-mutating-requests-inflight .*\(default "200"\)/,
      /--enable-priority-and-fairness .*\(default "true"\)/,
      /--request-timeout .*\(default "1m0s"\)/,
      /--livez-grace-period .*\(default "0s"\)/,
      /--shutdown-delay-duration .*\(default "0s"\)/,
      /--show-hidden-metrics-for-version /,
      /--audit-log-path /,
      /--audit-policy-file /,
      /--audit-log-maxsize .*\(default "0"\)/,
      /--audit-log-maxbackup .*\(default "0"\)/,
      /--audit-log-maxage .*\(default "0"\)/,
      /--request-log-level .*\(default "debug"\)/,
    ]) {
      assert.match(text, line);
    }
  });
});

describe('security flags', () => {
  it("default to Node,RBAC after system:masters and the spec's admission plugins in upstream's order", () => {
    const c = config();
    assert.deepEqual(c.authorizationModes, ['Node', 'RBAC']);
    assert.ok(c.admissionPlugins.includes('NamespaceLifecycle'));
    assert.ok(c.admissionPlugins.indexOf('NamespaceLifecycle') < c.admissionPlugins.indexOf('CertificateApproval'));
    assert.ok(!c.admissionPlugins.includes('AlwaysDeny'));
    assert.deepEqual(config('--authorization-mode=AlwaysAllow').authorizationModes, ['AlwaysAllow']);
    const enabled = config('--enable-admission-plugins=AlwaysDeny,EventRateLimit', '--disable-admission-plugins=NamespaceLifecycle').admissionPlugins;
    assert.equal(enabled.at(-1), 'AlwaysDeny', 'AlwaysDeny runs last');
    assert.ok(enabled.includes('EventRateLimit'));
    assert.ok(!enabled.includes('NamespaceLifecycle'));
  });

  it("reject bad modes and plugins with upstream's messages", () => {
    assert.equal(error('--authorization-mode=Magic'), 'authorization-mode "Magic" is not a valid mode');
    assert.equal(error('--authorization-mode=RBAC,RBAC'), 'authorization-mode ["RBAC" "RBAC"] has mode specified more than once');
    assert.match(error('--authorization-mode=Webhook'), /^authorization-mode "Webhook" is not supported by corral/);
    assert.equal(error('--enable-admission-plugins=Nope'), 'enable-admission-plugins plugin "Nope" is unknown');
    assert.equal(error('--disable-admission-plugins=Nope'), 'disable-admission-plugins plugin "Nope" is unknown');
    assert.equal(
      error('--enable-admission-plugins=AlwaysDeny', '--disable-admission-plugins=AlwaysDeny'),
      '[AlwaysDeny] in enable-admission-plugins and disable-admission-plugins overlapped',
    );
  });

  it('list every error at once', () => {
    assert.equal(
      error('--authorization-mode=Magic', '--request-timeout=soon', '--enable-admission-plugins=Nope'),
      [
        'authorization-mode "Magic" is not a valid mode',
        'enable-admission-plugins plugin "Nope" is unknown',
        'invalid argument "soon" for "--request-timeout" flag: time: invalid duration "soon"',
      ].join('\n'),
    );
  });

  it('help lists every admission plugin and says which have nothing to act on', () => {
    const text = usage('corral');
    assert.match(text, /--authorization-mode .*\(default "Node,RBAC"\)/);
    assert.match(text, /NamespaceLifecycle +every namespaced write and namespace deletion \(default on\)/);
    assert.match(text, /PodSecurity +pods, namespaces \(default on; corral serves none of these kinds, so it has nothing to do\)/);
  });
});

describe('service flags', () => {
  it('default as kube-apiserver', () => {
    const c = config();
    assert.equal(c.serviceClusterIPRange, '10.0.0.0/24');
    assert.deepEqual(c.serviceNodePortRange, { base: 30000, size: 2768 });
    assert.equal(c.advertiseAddress, '');
    assert.equal(c.advertisePort, undefined);
    assert.equal(c.endpointReconcilerType, 'lease');
  });

  it('read a range, a port range, an address and a reconciler', () => {
    const c = config(
      '--service-cluster-ip-range=10.96.0.0/12',
      '--service-node-port-range=20000-20099',
      '--advertise-address=192.0.2.7',
      '--advertise-port=443',
      '--endpoint-reconciler-type=none',
    );
    assert.equal(c.serviceClusterIPRange, '10.96.0.0/12');
    assert.deepEqual(c.serviceNodePortRange, { base: 20000, size: 100 });
    assert.equal(c.advertiseAddress, '192.0.2.7');
    assert.equal(c.advertisePort, 443);
    assert.equal(c.endpointReconcilerType, 'none');
  });

  it('fail with upstream messages', () => {
    assert.match(
      error('--service-cluster-ip-range=10.0.0.0/8'),
      /specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12/,
    );
    assert.match(error('--service-cluster-ip-range=nonsense'), /service-cluster-ip-range\[0\] is not a valid cidr/);
    assert.match(error('--service-node-port-range=3-1'), /invalid argument "3-1" for "--service-node-port-range" flag/);
    assert.match(error('--advertise-address=host'), /invalid argument "host" for "--advertise-address" flag: failed to parse IP: "host"/);
    for (const port of ['0', '65536', '-1', 'https', '8.5'])
      assert.match(error(`--advertise-port=${port}`), new RegExp(`--advertise-port ${port} must be between 1 and 65535, inclusive`));
    assert.match(error('--endpoint-reconciler-type=count'), /--endpoint-reconciler-type "count" is not one of lease, none/);
  });
});
