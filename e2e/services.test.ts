/**
 * Services, Endpoints and EndpointSlices against real API server processes and kubectl: cluster IPs
 * allocated from --service-cluster-ip-range (and freed on delete), upstream's 422 for an address
 * outside it, the kubectl tables, `kubectl cluster-info`, and the `kubernetes` service whose
 * endpoints list exactly the live replicas.
 *
 * Replicas advertise documentation addresses (192.0.2.0/24) with --advertise-address: the harness
 * runs every replica on 127.0.0.1, and endpoints refuse loopback addresses (upstream's
 * ValidateNonSpecialIP), so the advertised address is one nobody connects to here, as an address
 * behind a load balancer would be. The replicas listen on different ports, and the endpoints carry
 * one port: the one of the replica that wrote them last (upstream's replicas share one port).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../apiserver/testing/wait-for.ts';
import { skipUnlessEtcd } from '../shared/etcd/availability.ts';
import { failed, startCluster, succeeded, terminate, type Cluster } from './harness.ts';

/** The addresses of the kubernetes Endpoints and EndpointSlice, as kubectl reads them. */
async function kubernetesAddresses(cluster: Cluster, replica = 0): Promise<{ endpoints: string; slice: string }> {
  const endpoints = succeeded(
    await cluster.kubectl(['get', 'endpoints', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.subsets[*].addresses[*].ip}'], { replica }),
  );
  const slice = succeeded(
    await cluster.kubectl(['get', 'endpointslices', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.endpoints[*].addresses[*]}'], { replica }),
  );
  return { endpoints: endpoints.trim(), slice: slice.trim() };
}

describe('services on one API server', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster({ apiserverArgs: ['--advertise-address=192.0.2.10'] });
  });
  after(async () => {
    await cluster?.stop();
  });

  it('keeps the kubernetes service on the first address, its endpoints listing the advertised address', async () => {
    const svc = await waitFor(
      'the kubernetes service',
      async () => {
        const result = await cluster.kubectl(['get', 'service', 'kubernetes', '-n', 'default', '-o', 'json']);
        return result.code === 0 ? (JSON.parse(result.stdout) as { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> }) : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    assert.deepEqual(svc.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
    assert.equal(svc.spec['clusterIP'], '10.0.0.1');
    assert.deepEqual(svc.spec['ports'], [{ name: 'https', port: 443, protocol: 'TCP', targetPort: cluster.replicas[0]?.port }]);
    const addresses = await waitFor('the kubernetes endpoints', async () => {
      const found = await kubernetesAddresses(cluster).catch(() => undefined);
      return found?.endpoints ? found : undefined;
    });
    assert.deepEqual(addresses, { endpoints: '192.0.2.10', slice: '192.0.2.10' });
    const labels = succeeded(await cluster.kubectl(['get', 'endpointslices', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.metadata.labels}']));
    assert.deepEqual(JSON.parse(labels), { 'kubernetes.io/service-name': 'kubernetes' });
  });

  it('allocates cluster IPs, frees them on delete and refuses an address outside the range', async () => {
    succeeded(await cluster.kubectl(['create', 'service', 'clusterip', 'web', '--tcp=80:8080']));
    const ip = succeeded(await cluster.kubectl(['get', 'service', 'web', '-o', 'jsonpath={.spec.clusterIP}']));
    assert.match(ip, /^10\.0\.0\.\d+$/);
    assert.notEqual(ip, '10.0.0.1');
    // The address is taken until the service goes; then it can be asked for by name.
    const taken = failed(await cluster.kubectl(['create', 'service', 'clusterip', 'again', `--clusterip=${ip}`, '--tcp=80']));
    assert.match(
      taken,
      new RegExp(
        `spec.clusterIPs: Invalid value: \\[\\]string\\{"${ip.replaceAll('.', '\\.')}"\\}: failed to allocate IP ${ip.replaceAll('.', '\\.')}: provided IP is already allocated`,
      ),
    );
    succeeded(await cluster.kubectl(['delete', 'service', 'web']));
    succeeded(await cluster.kubectl(['create', 'service', 'clusterip', 'again', `--clusterip=${ip}`, '--tcp=80']));
    const outside = failed(await cluster.kubectl(['create', 'service', 'clusterip', 'outside', '--clusterip=10.9.9.9', '--tcp=80']));
    assert.match(
      outside,
      /Service "outside" is invalid: spec.clusterIPs: Invalid value: \[\]string\{"10.9.9.9"\}: failed to allocate IP 10.9.9.9: the provided IP \(10.9.9.9\) is not in the valid range. The range of valid IPs is 10.0.0.0\/24/,
    );
  });

  it('answers a 422 with upstream causes', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'bad' }, spec: { type: 'Weird', ports: [{ port: 80 }] } });
    const res = await cluster.request({ method: 'POST', path: '/api/v1/namespaces/default/services', headers: { 'content-type': 'application/json' }, body });
    assert.equal(res.status, 422);
    const status = res.json() as { message: string; details: { causes: { field: string; message: string }[] } };
    assert.equal(
      status.message,
      'Service "bad" is invalid: spec.type: Unsupported value: "Weird": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    );
  });

  it('prints services, endpoints and endpoint slices as kubectl expects', async () => {
    succeeded(await cluster.kubectl(['create', 'service', 'nodeport', 'np', '--tcp=81:8081']));
    const table = succeeded(await cluster.kubectl(['get', 'svc,ep,endpointslices', '-n', 'default']));
    assert.match(table, /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$/m);
    assert.match(table, /^service\/kubernetes\s+ClusterIP\s+10\.0\.0\.1\s+<none>\s+443\/TCP\s+\S+$/m);
    assert.match(table, /^service\/np\s+NodePort\s+10\.0\.0\.\d+\s+<none>\s+81:3\d{4}\/TCP\s+\S+$/m);
    assert.match(table, /^NAME\s+ENDPOINTS\s+AGE$/m);
    assert.match(table, new RegExp(`^endpoints/kubernetes\\s+192\\.0\\.2\\.10:${cluster.replicas[0]?.port}\\s+\\S+$`, 'm'));
    assert.match(table, /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE$/m);
    assert.match(
      table,
      new RegExp(`^endpointslice\\.discovery\\.k8s\\.io/kubernetes\\s+IPv4\\s+${cluster.replicas[0]?.port}\\s+192\\.0\\.2\\.10\\s+\\S+$`, 'm'),
    );
    const wide = succeeded(await cluster.kubectl(['get', 'svc', 'np', '-o', 'wide']));
    assert.match(wide, /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\s+SELECTOR$/m);
    assert.match(wide, /\sapp=np$/m);
  });

  it('kubectl cluster-info names the control plane', async () => {
    const out = succeeded(await cluster.kubectl(['cluster-info']));
    assert.match(out, new RegExp(`Kubernetes control plane is running at ${cluster.urls[0]?.replaceAll('.', '\\.')}`));
  });
});

describe('the kubernetes endpoints with two replicas', { skip: skipUnlessEtcd() }, () => {
  let cluster: Cluster;

  before(
    async () => {
      // Two ports on one host, one advertised port (as behind a load balancer).
      cluster = await startCluster({ replicas: 2, replicaArgs: (i) => [`--advertise-address=192.0.2.${20 + i}`, '--advertise-port=6443'] });
    },
    { timeout: 120_000 },
  );
  after(async () => {
    await cluster?.stop();
  });

  it('list both replicas, then only the one left once the other stops renewing its lease', async () => {
    await waitFor('both replicas in the kubernetes endpoints', async () => {
      const found = await kubernetesAddresses(cluster).catch(() => undefined);
      return found?.endpoints === '192.0.2.20 192.0.2.21' && found.slice.split(' ').sort().join(' ') === '192.0.2.20 192.0.2.21';
    });
    const service = async (): Promise<string> =>
      succeeded(
        await cluster.kubectl(['get', 'service', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.metadata.resourceVersion} {.spec.ports[0].targetPort}']),
      );
    const [serviceVersion, targetPort] = (await service()).split(' ');
    assert.equal(targetPort, '6443');
    const endpointPorts = await cluster.kubectl(['get', 'endpoints', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.subsets[*].ports[*].port}']);
    assert.equal(succeeded(endpointPorts), '6443');
    // SIGKILL: no graceful removal, the lease must expire (15 s) and the survivor's next sync (10 s) drop it.
    const second = cluster.replicas[1];
    assert.ok(second);
    second.child.kill('SIGKILL');
    await waitFor(
      'the stopped replica to drop out',
      async () => {
        const found = await kubernetesAddresses(cluster, 0).catch(() => undefined);
        return found?.endpoints === '192.0.2.20' && found.slice === '192.0.2.20';
      },
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    // Over two reconcile intervals and more, neither replica reset the Service to its own port.
    assert.equal(await service(), `${serviceVersion} 6443`);
    await terminate(second.child);
  });
});
