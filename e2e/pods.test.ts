/**
 * Pods through a real API server: the verbs, validation with upstream's messages, kubectl's table,
 * the status subresource, field selectors, graceful deletion of bound pods, and what a node
 * (client certificate system:node:<name>) may do with pods: mirror pods of its own, its pods' list
 * with the spec.nodeName selector, never other pods.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { issueClientCertificate, loadCA } from '../shared/pki/certificates.ts';
import { httpsCall, succeeded, startCluster, type Cluster, type HttpResponse } from './harness.ts';

interface PodJSON {
  metadata: { name: string; deletionTimestamp?: string; deletionGracePeriodSeconds?: number; resourceVersion?: string; uid?: string };
  spec: { nodeName?: string; restartPolicy?: string; containers: { name: string; image: string; imagePullPolicy?: string }[] };
  status?: { phase?: string; qosClass?: string; podIP?: string };
}

const pods = '/api/v1/namespaces/default/pods';
const json = { 'content-type': 'application/json' };
const pod = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...metadata },
  spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }], ...spec },
});

describe('pods', { timeout: 240_000 }, () => {
  let cluster: Cluster;
  let asNode: (req: { method?: string; path: string; body?: string; headers?: Record<string, string> }) => Promise<HttpResponse>;

  const call = (method: string, path: string, body?: unknown): Promise<HttpResponse> =>
    cluster.request({ method, path, headers: json, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const body = (res: HttpResponse): PodJSON => res.json() as PodJSON;

  before(async () => {
    cluster = await startCluster();
    const pki = join(cluster.dataDir, 'pki');
    const ca = await loadCA(readFileSync(join(pki, 'ca.crt'), 'utf8'), readFileSync(join(pki, 'ca.key'), 'utf8'));
    const issued = await issueClientCertificate(ca, { commonName: 'system:node:node-a', organizations: ['system:nodes'] });
    asNode = (req) => httpsCall(cluster.urls[0] ?? '', { ca: cluster.caPem, cert: issued.certPem, key: issued.keyPem }, { headers: json, ...req });
  });
  after(async () => cluster?.stop());

  it('creates a pod with defaults, status Pending and its QoS class; gets, lists and deletes it', async () => {
    const created = await call('POST', pods, pod('web'));
    assert.equal(created.status, 201, created.text);
    const web = body(created);
    assert.equal(web.spec.restartPolicy, 'Always');
    assert.equal(web.spec.containers[0]?.imagePullPolicy, 'IfNotPresent');
    assert.deepEqual(web.status, { phase: 'Pending', qosClass: 'BestEffort' });
    assert.equal((await call('GET', `${pods}/web`)).status, 200);
    const all = (await call('GET', '/api/v1/pods')).json() as { kind: string; items: PodJSON[] };
    assert.equal(all.kind, 'PodList');
    assert.ok(all.items.some((p) => p.metadata.name === 'web'));
    const deleted = await call('DELETE', `${pods}/web`);
    assert.equal(deleted.status, 200);
    assert.equal((deleted.json() as { kind: string }).kind, 'Pod', 'DELETE answers with the pod');
    assert.equal((await call('GET', `${pods}/web`)).status, 404, 'an unbound pod goes at once');
  });

  it("refuses an invalid pod with 422 and upstream's causes", async () => {
    const res = await call('POST', pods, pod('bad', { containers: [{ name: 'App', image: '' }] }));
    assert.equal(res.status, 422);
    const status = res.json() as { message: string; details: { causes: { field: string; message: string }[] } };
    assert.deepEqual(
      status.details.causes.map((c) => c.field),
      ['spec.containers[0].name', 'spec.containers[0].image'],
    );
    assert.match(status.message, /^Pod "bad" is invalid: \[spec\.containers\[0\]\.name: Invalid value: "App": a lowercase RFC 1123 label/);
    assert.match(status.message, /spec\.containers\[0\]\.image: Required value\]$/);
  });

  it('watches a pod being created and deleted', async () => {
    const list = (await call('GET', pods)).json() as { metadata: { resourceVersion: string } };
    const watching = cluster.request({ path: `${pods}?watch=1&timeoutSeconds=3&resourceVersion=${list.metadata.resourceVersion}` });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await call('POST', pods, pod('watched'))).status, 201);
    assert.equal((await call('DELETE', `${pods}/watched`)).status, 200);
    const events = (await watching).text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; object: PodJSON });
    assert.deepEqual(
      events.filter((e) => e.object.metadata.name === 'watched').map((e) => e.type),
      ['ADDED', 'DELETED'],
    );
  });

  it('prints kubectl get pods with upstream columns, wide ones too', async () => {
    assert.equal((await call('POST', pods, pod('table', { nodeName: 'node-x' }))).status, 201);
    const lines = succeeded(await cluster.kubectl(['get', 'pods', 'table', '-o', 'wide']))
      .trim()
      .split('\n');
    assert.match(lines[0] ?? '', /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/);
    assert.match(lines[1] ?? '', /^table\s+0\/1\s+Pending\s+0\s+\S+\s+<none>\s+node-x\s+<none>\s+<none>$/);
    assert.equal(succeeded(await cluster.kubectl(['get', 'po', '-o', 'name'])).includes('pod/table'), true, 'short name po');
  });

  it('updates status through the status subresource only', async () => {
    const current = body(await call('GET', `${pods}/table`));
    const updated = await call('PUT', `${pods}/table/status`, {
      ...current,
      spec: { ...current.spec, restartPolicy: 'Never' },
      status: { ...current.status, phase: 'Running', podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.9' }] },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(body(updated).status?.phase, 'Running');
    assert.equal(body(updated).spec.restartPolicy, 'Always', 'status writes keep the spec');
    const main = await call('PUT', `${pods}/table`, { ...body(updated), status: { phase: 'Failed' } });
    assert.equal(body(main).status?.phase, 'Running', 'the main resource keeps the status');
  });

  it('selects pods by spec.nodeName and status.phase', async () => {
    const names = async (selector: string): Promise<string[]> =>
      ((await call('GET', `/api/v1/pods?fieldSelector=${encodeURIComponent(selector)}`)).json() as { items: PodJSON[] }).items.map((p) => p.metadata.name);
    assert.deepEqual(await names('spec.nodeName=node-x'), ['table']);
    assert.deepEqual(await names('spec.nodeName=node-y'), []);
    assert.deepEqual(await names('status.phase=Running,spec.nodeName=node-x'), ['table']);
  });

  it('deletes a bound pod gracefully, then at once with gracePeriodSeconds=0', async () => {
    assert.equal((await call('POST', pods, pod('graceful', { nodeName: 'node-x', terminationGracePeriodSeconds: 20 }))).status, 201);
    const first = await call('DELETE', `${pods}/graceful`);
    assert.equal(first.status, 200);
    const marked = body(first);
    assert.equal(marked.metadata.deletionGracePeriodSeconds, 20);
    assert.ok(marked.metadata.deletionTimestamp);
    const read = await call('GET', `${pods}/graceful`);
    assert.equal(read.status, 200, 'still there while its grace period runs');
    const table = succeeded(await cluster.kubectl(['get', 'pod', 'graceful']));
    assert.match(table, /graceful\s+0\/1\s+Terminating/);
    assert.equal(body(await call('DELETE', `${pods}/graceful`)).metadata.deletionGracePeriodSeconds, 20, 'a repeated delete changes nothing');
    const last = await call('DELETE', `${pods}/graceful?gracePeriodSeconds=0`);
    assert.equal(last.status, 200);
    assert.equal((await call('GET', `${pods}/graceful`)).status, 404);
  });

  it('lets a node create a mirror pod bound to itself and list its pods, and nothing more', async () => {
    const mirror = pod('static-web-node-a', { nodeName: 'node-a' }, { annotations: { 'kubernetes.io/config.mirror': 'abc' } });
    const created = await asNode({ method: 'POST', path: pods, body: JSON.stringify(mirror) });
    assert.equal(created.status, 201, created.text);
    const plain = await asNode({ method: 'POST', path: pods, body: JSON.stringify(pod('plain', { nodeName: 'node-a' })) });
    assert.equal(plain.status, 403);
    assert.equal(
      (plain.json() as { message: string }).message,
      'pods "plain" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node-a" can only create mirror pods',
    );
    const own = await asNode({ path: `/api/v1/pods?fieldSelector=${encodeURIComponent('spec.nodeName=node-a')}` });
    assert.equal(own.status, 200);
    assert.deepEqual(
      (own.json() as { items: PodJSON[] }).items.map((p) => p.metadata.name),
      ['static-web-node-a'],
    );
    const everyone = await asNode({ path: '/api/v1/pods' });
    assert.equal(everyone.status, 403);
    assert.equal(
      (everyone.json() as { message: string }).message,
      'pods is forbidden: User "system:node:node-a" cannot list resource "pods" in API group "" at the cluster scope: can only list/watch pods with spec.nodeName field selector',
    );
    assert.equal((await asNode({ path: `${pods}/table` })).status, 403, 'a pod bound to another node');
    const deleted = await asNode({ method: 'DELETE', path: `${pods}/static-web-node-a` });
    assert.equal(deleted.status, 200, deleted.text);
  });
});
