/**
 * The controller manager process against a real API server: its identity and permissions, its
 * endpoint's delegated authentication and authorization, its flags, and leader election between
 * two replicas with the leader killed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../apiserver/testing/wait-for.ts';
import { run, startCluster, succeeded, type Cluster } from './harness.ts';
import { startControllerManager, type ControllerManagerProcess } from './controller-manager.ts';

const monitorToken = 'monitor-token-0123456789';
const plainToken = 'plain-token-0123456789';
/** Short timings so that a fail-over happens within seconds. */
const fastElection = ['--leader-elect-lease-duration=4s', '--leader-elect-renew-deadline=3s', '--leader-elect-retry-period=500ms'];

interface LeaseSpec {
  holderIdentity?: string;
  leaseTransitions?: number;
}

describe('controller manager', () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startCluster({ tokens: [`${monitorToken},prometheus,uid-m,"system:monitoring"`, `${plainToken},someone,uid-p`] });
  });
  after(async () => {
    await cluster?.stop();
  });

  /** A PEM PKCS#10 request for a client certificate (base64, as spec.request carries it). */
  const clientRequest = async (): Promise<string> => {
    const keyFile = join(cluster.dir, 'ha.key');
    const csrFile = join(cluster.dir, 'ha.csr');
    succeeded(await run('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile]));
    succeeded(await run('openssl', ['req', '-new', '-key', keyFile, '-subj', '/CN=ha-user', '-out', csrFile]));
    return readFileSync(csrFile).toString('base64');
  };

  /** Creates a client certificate request and approves it, as an administrator would. */
  const createApprovedCSR = async (name: string, request: string): Promise<void> => {
    const collection = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
    const csr = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name },
      spec: { request, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] },
    };
    const created = await cluster.request({ method: 'POST', path: collection, headers: { 'content-type': 'application/json' }, body: JSON.stringify(csr) });
    assert.equal(created.status, 201, created.text);
    const approved = {
      ...(created.json() as object),
      status: { conditions: [{ type: 'Approved', status: 'True', reason: 'HATest', message: 'approved by the fail-over test' }] },
    };
    const answer = await cluster.request({
      method: 'PUT',
      path: `${collection}/${name}/approval`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(approved),
    });
    assert.equal(answer.status, 200, answer.text);
  };

  const lease = async (): Promise<LeaseSpec> =>
    (JSON.parse(succeeded(await cluster.kubectl(['get', 'lease', '-n', 'kube-system', 'kube-controller-manager', '-o', 'json']))) as { spec: LeaseSpec }).spec;

  it('refuses bad flags before starting, listing every problem', async () => {
    const result = await run(process.execPath, [
      '--import',
      'tsx',
      'controllers/main.ts',
      '--leader-elect-lease-duration=1s',
      '--cluster-signing-cert-file=x',
      '--controllers=*,nosuch',
    ]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /--kubeconfig is required/);
    assert.match(result.stderr, /leaseDuration must be greater than renewDeadline/);
    assert.match(result.stderr, /--cluster-signing-cert-file and --cluster-signing-key-file must be given together/);
    assert.match(result.stderr, /validation failed for '--controllers': \["nosuch" is not in the list of known controllers\]/);
  });

  it('is system:kube-controller-manager, outside system:masters', async () => {
    const whoami = succeeded(
      await run('kubectl', ['--kubeconfig', `${cluster.dataDir}/controller-manager.kubeconfig`, 'auth', 'whoami', '-o', 'json'], {
        env: { ...process.env, HOME: cluster.dir },
      }),
    );
    const status = (JSON.parse(whoami) as { status: { userInfo: { username: string; groups?: string[] } } }).status.userInfo;
    assert.equal(status.username, 'system:kube-controller-manager');
    assert.ok(!(status.groups ?? []).includes('system:masters'));
  });

  describe('one replica', () => {
    let manager: ControllerManagerProcess;
    before(async () => {
      manager = await startControllerManager(cluster, { args: fastElection });
    });
    after(async () => {
      await manager?.stop();
    });

    it('takes the kube-controller-manager Lease in kube-system', async () => {
      await waitFor('the lease to be held', async () => ((await lease()).holderIdentity ?? '') !== '', { timeoutMs: 20_000 });
    });

    it('serves /healthz to anyone and /metrics only to users the API server authorizes', async () => {
      assert.deepEqual(await manager.get('/healthz'), { status: 200, text: 'ok' });
      assert.equal((await manager.get('/metrics')).status, 403, 'anonymous');
      assert.equal((await manager.get('/metrics', 'not-a-token')).status, 401);
      assert.equal((await manager.get('/metrics', plainToken)).status, 403, 'an authenticated user without the role');
      const metrics = await manager.get('/metrics', monitorToken);
      assert.equal(metrics.status, 200);
      await waitFor(
        'leadership in the metrics',
        async () => (await manager.get('/metrics', monitorToken)).text.includes('leader_election_master_status{name="kube-controller-manager"} 1'),
        {
          timeoutMs: 20_000,
        },
      );
      assert.match(metrics.text, /^process_resident_memory_bytes /m);
    });

    it('releases the lease when stopped gracefully', async () => {
      await waitFor('the lease to be held', async () => ((await lease()).holderIdentity ?? '') !== '', { timeoutMs: 20_000 });
      await manager.stop();
      assert.equal((await lease()).holderIdentity ?? '', '');
    });
  });

  describe('two replicas', () => {
    const managers: ControllerManagerProcess[] = [];
    after(async () => {
      await Promise.all(managers.map((m) => m.stop()));
    });

    it('exactly one leads; when it is killed while CSRs are being signed, the other takes over within the lease duration and signs every one', async () => {
      managers.push(await startControllerManager(cluster, { index: 1, args: fastElection }));
      managers.push(await startControllerManager(cluster, { index: 2, args: fastElection }));
      // A writer creating and approving certificate requests throughout the fail-over.
      const request = await clientRequest();
      const created: string[] = [];
      let writing = true;
      const writer = (async () => {
        for (let i = 0; writing; i++) {
          const name = `ha-${i}`;
          await createApprovedCSR(name, request);
          created.push(name);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      const leaders = async (): Promise<number[]> => {
        const answers = await Promise.all(managers.map((m) => m.get('/metrics', monitorToken).catch(() => ({ status: 0, text: '' }))));
        return answers.flatMap((a, i) => (a.text.includes('leader_election_master_status{name="kube-controller-manager"} 1') ? [i] : []));
      };
      await waitFor('one leader', async () => (await leaders()).length === 1, { timeoutMs: 30_000 });
      const [leader] = await leaders();
      assert.equal((await leaders()).length, 1, 'never two');
      const before = await lease();
      const killedAt = Date.now();
      managers[leader!]!.kill();
      const other = leader === 0 ? 1 : 0;
      await waitFor('the other replica to lead', async () => (await leaders()).includes(other), { timeoutMs: 30_000, intervalMs: 100 });
      const tookOverMs = Date.now() - killedAt;
      const afterSpec = await lease();
      assert.notEqual(afterSpec.holderIdentity, before.holderIdentity);
      assert.equal(afterSpec.leaseTransitions, (before.leaseTransitions ?? 0) + 1);
      // The lease is 4 s; the survivor notices at its next retry (0.5 s, jittered) after that, plus the metrics poll.
      assert.ok(tookOverMs < 15_000, `took over after ${tookOverMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      writing = false;
      await writer;
      assert.ok(created.length > 5, `${created.length} requests written`);
      await waitFor(
        'every request written before, during and after the fail-over to be signed',
        async () => {
          const list = await cluster.request({ path: '/apis/certificates.k8s.io/v1/certificatesigningrequests' });
          const items = (list.json() as { items: { metadata: { name: string }; status?: { certificate?: string } }[] }).items;
          const signed = new Set(items.filter((csr) => csr.status?.certificate).map((csr) => csr.metadata.name));
          return created.every((name) => signed.has(name));
        },
        { timeoutMs: 30_000 },
      );
    });
  });
});
