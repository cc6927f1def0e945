import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { parseFlagTable } from '../shared/process/flags.ts';
import { configFromFlags, flags, signingFilesFor } from './config.ts';

const config = (...argv: string[]) => configFromFlags(parseFlagTable(['--kubeconfig=k', ...argv], flags));
const errorsOf = (...argv: string[]): string[] => {
  try {
    configFromFlags(parseFlagTable(argv, flags));
  } catch (err) {
    return (err as Error).message.split('\n');
  }
  return [];
};

describe('controller manager flags', () => {
  it("default as kube-controller-manager's", () => {
    const c = config();
    assert.deepEqual(c.controllers, ['*']);
    assert.deepEqual(c.leaderElection, {
      enabled: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      resourceName: 'kube-controller-manager',
      resourceNamespace: 'kube-system',
    });
    assert.equal(c.clusterSigningDurationMs, 8760 * 3600_000);
    assert.equal(c.nodeMonitorPeriodMs, 5_000);
    assert.equal(c.nodeMonitorGracePeriodMs, 50_000);
    assert.equal(c.securePort, 10257);
    assert.equal(c.concurrentGcSyncs, 20);
    assert.deepEqual(c.alwaysAllowPaths, ['/healthz', '/readyz', '/livez']);
    assert.equal(c.useServiceAccountCredentials, false);
  });

  it('signing files: the cluster-wide pair, or one per signer', () => {
    const c = config('--cluster-signing-cert-file=ca.crt', '--cluster-signing-key-file=ca.key');
    assert.deepEqual(signingFilesFor(c, 'kubernetes.io/kubelet-serving'), { certFile: 'ca.crt', keyFile: 'ca.key' });
    const per = config('--cluster-signing-kubelet-serving-cert-file=s.crt', '--cluster-signing-kubelet-serving-key-file=s.key');
    assert.deepEqual(signingFilesFor(per, 'kubernetes.io/kubelet-serving'), { certFile: 's.crt', keyFile: 's.key' });
    assert.equal(signingFilesFor(per, 'kubernetes.io/kube-apiserver-client'), undefined);
  });

  it('lists every problem at once, in upstream words where upstream has them', () => {
    const errors = errorsOf(
      '--leader-elect-lease-duration=5s',
      '--leader-elect-renew-deadline=10s',
      '--cluster-signing-cert-file=ca.crt',
      '--cluster-signing-duration=forever',
      '--secure-port=70000',
      '--concurrent-gc-syncs=0',
      '--leader-elect=maybe',
    );
    assert.deepEqual(errors, [
      '--kubeconfig is required: the controller manager reaches the API server only through it',
      'invalid argument "maybe" for "--leader-elect" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
      'leaseDuration must be greater than renewDeadline',
      '--cluster-signing-cert-file and --cluster-signing-key-file must be given together',
      '--secure-port 70000 must be between 0 and 65535, inclusive',
      'invalid argument "forever" for "--cluster-signing-duration" flag: time: invalid duration "forever"',
      '--concurrent-gc-syncs must be greater than 0',
    ]);
  });

  it('checks the lease timings as client-go does, only when electing', () => {
    assert.deepEqual(errorsOf('--kubeconfig=k', '--leader-elect-lease-duration=5s', '--leader-elect-renew-deadline=10s'), [
      'leaseDuration must be greater than renewDeadline',
    ]);
    assert.deepEqual(errorsOf('--kubeconfig=k', '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=2s'), [
      'renewDeadline must be greater than retryPeriod*JitterFactor',
    ]);
    assert.deepEqual(errorsOf('--kubeconfig=k', '--leader-elect=false', '--leader-elect-lease-duration=5s', '--leader-elect-renew-deadline=10s'), []);
  });

  it('refuses the cluster-wide and per-signer pairs together, and service account credentials without a client signer', () => {
    assert.deepEqual(
      errorsOf(
        '--kubeconfig=k',
        '--cluster-signing-cert-file=a',
        '--cluster-signing-key-file=b',
        '--cluster-signing-legacy-unknown-cert-file=c',
        '--cluster-signing-legacy-unknown-key-file=d',
      ),
      ['cannot specify default and per controller certs at the same time'],
    );
    assert.match(errorsOf('--kubeconfig=k', '--use-service-account-credentials=true')[0] ?? '', /needs the kube-apiserver-client signer/);
  });
});
