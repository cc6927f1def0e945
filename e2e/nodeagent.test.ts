/**
 * The node agent as a real process against a real API server and controller manager: it joins
 * with a bootstrap token alone (its request approved and signed by the controller manager), runs
 * as `system:node:<name>` with its own certificate, registers its Node, keeps it Ready with its
 * Lease and status, owns a CSINode; it goes Unknown when stopped and Ready again when restarted,
 * with the identity it already has. A bad configuration stops it before it starts, listing every
 * problem.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../apiserver/testing/wait-for.ts';
import { startControllerManager, type ControllerManagerProcess } from './controller-manager.ts';
import { freePort } from '../shared/net/free-ports.ts';
import { adminTls, repoRoot, startCluster, succeeded, type Cluster, type KubectlOptions } from './harness.ts';
import { createBootstrapToken, startNodeAgent, writeBootstrapKubeconfig, type NodeAgentProcess } from './nodeagent.ts';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

interface NodeJson {
  metadata: { uid: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  status?: {
    conditions?: Condition[];
    addresses?: { type: string; address: string }[];
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
    nodeInfo?: Record<string, string>;
    daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
  };
}

interface LeaseJson {
  metadata: { ownerReferences?: { kind: string; name: string; uid: string }[] };
  spec: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string };
}

/** GET on the agent's own HTTPS server (its certificate is self-signed: not verified), as `tls` or with a bearer token. */
function agentGet(port: number, path: string, auth: { token?: string; cert?: string; key?: string } = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        rejectUnauthorized: false,
        ...(auth.cert && auth.key ? { cert: auth.cert, key: auth.key } : {}),
        headers: auth.token ? { authorization: `Bearer ${auth.token}` } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const staticPod = (name: string, image: string | undefined): string =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'main', ...(image ? { image } : {}) }] } });

describe('node agent', () => {
  let cluster: Cluster;
  let manager: ControllerManagerProcess;
  let bootstrapKubeconfig: string;
  let agent: NodeAgentProcess;

  const getJson = async <T>(args: string[], opts: KubectlOptions = {}): Promise<T> =>
    JSON.parse(succeeded(await cluster.kubectl([...args, '-o', 'json'], opts))) as T;
  /** kubectl as the node: its certificate file holds its key too. */
  const asNode = (): KubectlOptions => {
    const pem = join(agent.certDir, 'kubelet-client-current.pem');
    return { credentials: { certFile: pem, keyFile: pem } };
  };
  const readyOf = (node: NodeJson): Condition | undefined => node.status?.conditions?.find((c) => c.type === 'Ready');
  const csrNames = async (): Promise<string[]> =>
    (await getJson<{ items: { metadata: { name: string } }[] }>(['get', 'csr'])).items.map((i) => i.metadata.name).filter((n) => n.startsWith('node-csr-'));

  let port: number;
  /** The agent's configuration: short timings, so that the test sees heartbeats and a lost node within seconds. */
  let agentConfig: Record<string, unknown>;

  before(async () => {
    cluster = await startCluster({ tokens: ['nobody-token,nobody,uid-nobody'], apiserverArgs: ['--enable-bootstrap-token-auth=true'] });
    bootstrapKubeconfig = writeBootstrapKubeconfig(cluster, await createBootstrapToken(cluster));
    const manifests = join(cluster.dir, 'manifests');
    mkdirSync(manifests);
    writeFileSync(join(manifests, 'web.json'), staticPod('web', 'nginx:1.27'));
    writeFileSync(join(manifests, 'broken.json'), staticPod('broken', undefined));
    writeFileSync(join(manifests, '.hidden.json'), staticPod('hidden', 'nginx:1.27'));
    port = await freePort();
    agentConfig = {
      nodeLeaseDurationSeconds: 4,
      nodeStatusUpdateFrequency: '1s',
      fileCheckFrequency: '1s',
      syncFrequency: '2s',
      staticPodPath: manifests,
      port,
      authentication: { x509: { clientCAFile: join(cluster.dataDir, 'pki', 'ca.crt') } },
    };
    manager = await startControllerManager(cluster, {
      args: ['--leader-elect=false', '--node-monitor-period=1s', '--node-monitor-grace-period=6s', '--node-startup-grace-period=10s'],
    });
    agent = await startNodeAgent(cluster, { name: 'worker-1', bootstrapKubeconfig, config: agentConfig });
  });
  after(async () => {
    await agent?.stop();
    await manager?.stop();
    await cluster?.stop();
  });

  it('joins with a bootstrap token alone and runs as the node with its own certificate', async () => {
    const node = await waitFor(
      'worker-1 to be Ready',
      async () => {
        const result = await cluster.kubectl(['get', 'node', 'worker-1', '-o', 'json']);
        if (result.code !== 0) return undefined;
        const parsed = JSON.parse(result.stdout) as NodeJson;
        return readyOf(parsed)?.status === 'True' ? parsed : undefined;
      },
      { detail: () => `${agent.log().slice(-3000)}\n${manager.log().slice(-2000)}` },
    );

    const [csrName] = await csrNames();
    assert.ok(csrName, 'a node-csr-… request');
    const csr = await getJson<{ spec: { username: string; signerName: string; usages: string[] }; status: { conditions: Condition[] } }>([
      'get',
      'csr',
      csrName,
    ]);
    assert.equal(csr.spec.username, 'system:bootstrap:abcdef');
    assert.equal(csr.spec.signerName, 'kubernetes.io/kube-apiserver-client-kubelet');
    assert.deepEqual(csr.spec.usages, ['digital signature', 'key encipherment', 'client auth']);
    assert.deepEqual(
      csr.status.conditions.map((c) => [c.type, c.reason]),
      [['Approved', 'AutoApproved']],
    );

    const pem = readFileSync(join(agent.certDir, 'kubelet-client-current.pem'), 'utf8');
    assert.match(pem, /BEGIN EC PRIVATE KEY/);
    const certificate = new X509Certificate(pem);
    assert.deepEqual(certificate.subject.split('\n').sort(), ['CN=system:node:worker-1', 'O=system:nodes']);
    assert.ok(certificate.checkIssued(new X509Certificate(cluster.caPem)), 'signed by the cluster CA');
    assert.match(readFileSync(agent.kubeconfig, 'utf8'), new RegExp(`client-certificate: ${join(agent.certDir, 'kubelet-client-current.pem')}`));
    const whoami = await getJson<{ status: { userInfo: { username: string; groups: string[] } } }>(['auth', 'whoami'], asNode());
    assert.equal(whoami.status.userInfo.username, 'system:node:worker-1');
    assert.ok(whoami.status.userInfo.groups.includes('system:nodes'));
    // The Node authorizer holds it to its own Node.
    const other = await cluster.kubectl(['get', 'node', 'someone-else'], asNode());
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /Forbidden|forbidden/);

    assert.equal(node.metadata.labels?.['kubernetes.io/hostname'], 'worker-1');
    assert.equal(node.metadata.labels?.['kubernetes.io/os'], 'linux');
    assert.ok(node.metadata.labels?.['kubernetes.io/arch']);
    assert.equal(node.metadata.annotations?.['volumes.kubernetes.io/controller-managed-attach-detach'], 'true');
    assert.deepEqual(
      node.status?.conditions?.map((c) => [c.type, c.status, c.reason]),
      [
        ['MemoryPressure', 'False', 'KubeletHasSufficientMemory'],
        ['DiskPressure', 'False', 'KubeletHasNoDiskPressure'],
        ['PIDPressure', 'False', 'KubeletHasSufficientPID'],
        ['Ready', 'True', 'KubeletReady'],
      ],
    );
    assert.deepEqual(
      node.status?.addresses?.find((a) => a.type === 'Hostname'),
      { type: 'Hostname', address: 'worker-1' },
    );
    assert.equal(node.status?.capacity?.['pods'], '110');
    assert.ok(Number(node.status?.capacity?.['cpu']) >= 1);
    assert.match(node.status?.allocatable?.['memory'] ?? '', /^\d+(Ki|Mi)?$/);
    assert.match(node.status?.nodeInfo?.['kubeletVersion'] ?? '', /^v1\.\d+\.\d+/);
    assert.equal(node.status?.nodeInfo?.['containerRuntimeVersion'], 'none://0.0.0');
    assert.ok((node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0) > 0);

    const lease = await getJson<LeaseJson>(['get', 'lease', '-n', 'kube-node-lease', 'worker-1']);
    assert.equal(lease.spec.holderIdentity, 'worker-1');
    assert.equal(lease.spec.leaseDurationSeconds, 4);
    assert.deepEqual(
      lease.metadata.ownerReferences?.map((o) => [o.kind, o.name, o.uid]),
      [['Node', 'worker-1', node.metadata.uid]],
    );

    const csiNode = await waitFor('the CSINode', async () => {
      const result = await cluster.kubectl(['get', 'csinode', 'worker-1', '-o', 'json']);
      return result.code === 0
        ? (JSON.parse(result.stdout) as { metadata: { ownerReferences: { uid: string }[] }; spec?: { drivers?: unknown[] | null } })
        : undefined;
    });
    // The agent writes `drivers: []` in protobuf, as the kubelet does, where an empty list is not
    // encoded at all: the list comes back absent (upstream: null), never with a driver in it.
    assert.deepEqual(csiNode.spec?.drivers ?? [], []);
    assert.equal(csiNode.metadata.ownerReferences[0]?.uid, node.metadata.uid);
  });

  it('renews its Lease every quarter of its duration', async () => {
    const renewTime = async (): Promise<number> =>
      Date.parse((await getJson<LeaseJson>(['get', 'lease', '-n', 'kube-node-lease', 'worker-1'])).spec.renewTime ?? '');
    const first = await renewTime();
    const later = await waitFor('a renewal', async () => {
      const t = await renewTime();
      return t > first ? t : undefined;
    });
    assert.ok(later - first >= 500, `renewals ${later - first} ms apart`);
  });

  it('goes Unknown when stopped and Ready again when restarted, keeping its identity', async () => {
    const requests = await csrNames();
    await agent.stop();
    const lost = await waitFor(
      'worker-1 to go Unknown',
      async () => {
        const node = await getJson<NodeJson>(['get', 'node', 'worker-1']);
        return readyOf(node)?.status === 'Unknown' ? node : undefined;
      },
      { detail: () => manager.log().slice(-2000) },
    );
    assert.equal(readyOf(lost)?.reason, 'NodeStatusUnknown');

    agent = await startNodeAgent(cluster, { name: 'worker-1', bootstrapKubeconfig, config: agentConfig });
    await waitFor('worker-1 to be Ready again', async () => readyOf(await getJson<NodeJson>(['get', 'node', 'worker-1']))?.status === 'True', {
      detail: () => agent.log().slice(-3000),
    });
    assert.deepEqual(await csrNames(), requests, 'no new certificate request: the kubeconfig it wrote is reused');
  });

  it('mirrors valid static pods, reports invalid ones with their validation message, and says their containers cannot run', async () => {
    interface PodJson {
      metadata: { annotations?: Record<string, string>; ownerReferences?: { kind: string; name: string; controller?: boolean }[] };
      spec: { nodeName?: string };
      status?: { phase?: string; containerStatuses?: { name: string; ready: boolean; state?: { waiting?: { reason?: string } } }[] };
    }
    const mirror = await waitFor(
      'the mirror pod of web',
      async () => {
        const result = await cluster.kubectl(['get', 'pod', '-n', 'default', 'web-worker-1', '-o', 'json']);
        if (result.code !== 0) return undefined;
        const pod = JSON.parse(result.stdout) as PodJson;
        return pod.status?.containerStatuses?.length ? pod : undefined;
      },
      { detail: () => agent.log().slice(-3000) },
    );
    assert.ok(mirror.metadata.annotations?.['kubernetes.io/config.mirror'], 'the config.mirror annotation');
    assert.equal(mirror.metadata.annotations?.['kubernetes.io/config.source'], 'file');
    assert.equal(mirror.spec.nodeName, 'worker-1');
    assert.deepEqual(
      mirror.metadata.ownerReferences?.map((o) => [o.kind, o.name]),
      [['Node', 'worker-1']],
    );
    assert.equal(mirror.status?.phase, 'Pending');
    assert.deepEqual(
      mirror.status?.containerStatuses?.map((c) => [c.name, c.ready, c.state?.waiting?.reason]),
      [['main', false, 'ContainerRuntimeUnavailable']],
    );
    const pods = succeeded(await cluster.kubectl(['get', 'pods', '-A', '-o', 'name']));
    assert.doesNotMatch(pods, /broken|hidden/);
    assert.match(agent.log(), /spec\.containers\[0\]\.image: Required value/);
    const events = await getJson<{ items: { reason: string; message: string }[] }>([
      'get',
      'events',
      '-n',
      'default',
      '--field-selector',
      'reason=FailedValidation',
    ]);
    assert.ok(
      events.items.some((e) => /broken/.test(e.message) && /Required value/.test(e.message)),
      JSON.stringify(events.items),
    );
  });

  it('reports pods bound to it as not runnable and finishes their deletion', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'bound', namespace: 'default' },
      spec: { nodeName: 'worker-1', containers: [{ name: 'app', image: 'busybox' }] },
    };
    succeeded(await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify(pod) }));
    await waitFor('the status of the bound pod', async () => {
      const got = await getJson<{ status?: { containerStatuses?: { state?: { waiting?: { reason?: string; message?: string } } }[] } }>([
        'get',
        'pod',
        'bound',
      ]);
      return got.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ContainerRuntimeUnavailable';
    });
    succeeded(await cluster.kubectl(['delete', 'pod', 'bound', '--wait=false']));
    await waitFor('the bound pod to be gone', async () => (await cluster.kubectl(['get', 'pod', 'bound'])).code !== 0);
  });

  it('serves its endpoint to those its authentication and authorization let in', async () => {
    const unauthenticated = await agentGet(port, '/pods');
    assert.deepEqual([unauthenticated.status, unauthenticated.text.trim()], [401, 'Unauthorized']);
    const nobody = await agentGet(port, '/pods', { token: 'nobody-token' });
    assert.equal(nobody.status, 403);
    assert.match(nobody.text, /^Forbidden \(user=nobody, verb=get, resource=nodes, subresource\(s\)=\[.*proxy\]\)/);
    const admin = adminTls(cluster.dataDir);
    const pods = await agentGet(port, '/pods', { cert: admin.cert, key: admin.key });
    assert.equal(pods.status, 200, pods.text);
    const list = JSON.parse(pods.text) as { kind: string; items: { metadata: { name: string } }[] | null };
    assert.equal(list.kind, 'PodList');
    const healthz = await agentGet(port, '/healthz', { cert: admin.cert, key: admin.key });
    assert.deepEqual([healthz.status, healthz.text], [200, 'ok']);
  });

  it('runs simulated agents in one process, each with its own identity, Node and Lease', async () => {
    const simulation = await startNodeAgent(cluster, { name: 'sim', bootstrapKubeconfig, config: agentConfig, args: ['--simulate=3'] });
    try {
      const names = ['sim-0', 'sim-1', 'sim-2'];
      for (const name of names) {
        await waitFor(
          `${name} to be Ready`,
          async () => {
            const result = await cluster.kubectl(['get', 'node', name, '-o', 'json']);
            return result.code === 0 && readyOf(JSON.parse(result.stdout) as NodeJson)?.status === 'True';
          },
          { detail: () => simulation.log().slice(-3000) },
        );
        const lease = await getJson<LeaseJson>(['get', 'lease', '-n', 'kube-node-lease', name]);
        assert.equal(lease.spec.holderIdentity, name);
        const pem = readFileSync(join(simulation.certDir, name, 'kubelet-client-current.pem'), 'utf8');
        assert.deepEqual(new X509Certificate(pem).subject.split('\n').sort(), [`CN=system:node:${name}`, 'O=system:nodes']);
      }
      const requestors = (await getJson<{ items: { spec: { username: string }; metadata: { name: string } }[] }>(['get', 'csr'])).items.filter((c) =>
        c.metadata.name.startsWith('node-csr-'),
      );
      assert.equal(requestors.length, 4, 'one request for worker-1 and one per simulated node');
    } finally {
      await simulation.stop();
    }
  });

  it('refuses a bad configuration before starting, listing every problem', () => {
    const config = join(cluster.dir, 'bad-config.yaml');
    writeFileSync(
      config,
      [
        'apiVersion: kubelet.config.k8s.io/v1beta1',
        'kind: KubeletConfiguration',
        'nodeLeaseDurationSeconds: -1',
        'imageGCHighThresholdPercent: 50',
        'imageGCLowThresholdPercent: 60',
        'healthzPort: 70000',
      ].join('\n'),
    );
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'nodeagent/main.ts', `--config=${config}`, `--kubeconfig=${join(cluster.dir, 'none')}`], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    assert.equal(result.status, 1, result.stderr);
    for (const expected of [
      'invalid configuration: nodeLeaseDurationSeconds must be greater than 0',
      'invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 60 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 50',
      'invalid configuration: healthzPort (--healthz-port) 70000 must be between 1 and 65535, inclusive',
    ]) {
      assert.ok(result.stderr.includes(expected), `${expected}\n---\n${result.stderr}`);
    }
  });
});
