/**
 * `corral migrate` end to end: a cluster of `npm start`'s kind (one API server on the embedded store)
 * with objects created through kubectl, stopped, copied into a fresh etcd with the command, then an
 * API server on that etcd (same data dir: same PKI) serves the same objects; and back, from that
 * etcd into a new data dir served from its embedded store.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, cpSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../shared/api/types.ts';
import { skipUnlessEtcd } from '../shared/etcd/availability.ts';
import { startEtcd, type EtcdProcess } from '../shared/etcd/process.ts';
import { freePort } from '../shared/net/free-ports.ts';
import { kubectlEnv, registerCleanup, repoRoot, run, startCluster, succeeded, terminate, waitReady, writeKubeconfigFor, type Cluster } from './harness.ts';

const namespace = 'migrated';

const manifests = `
apiVersion: v1
kind: Namespace
metadata: { name: ${namespace}, labels: { team: a } }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: settings, namespace: ${namespace}, annotations: { note: "ünïcode ✓" } }
data: { level: "3", text: "line one\\nline two" }
---
apiVersion: v1
kind: Secret
metadata: { name: token, namespace: ${namespace} }
type: Opaque
stringData: { password: s3cr3t }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: { name: reader, namespace: ${namespace} }
rules: [{ apiGroups: [""], resources: [configmaps], verbs: [get, list] }]
---
apiVersion: v1
kind: Event
metadata: { name: settings.1, namespace: ${namespace} }
involvedObject: { kind: ConfigMap, name: settings, namespace: ${namespace} }
reason: Created
message: made by the migration test
type: Normal
`;

/** What `kubectl get` shows of the namespace and its objects, resourceVersions left out: they change. */
async function objects(kubectl: (args: readonly string[]) => ReturnType<typeof run>): Promise<KubeObject[]> {
  const got = async (args: readonly string[]): Promise<KubeObject[]> => {
    // One object, or a List of them.
    const parsed = JSON.parse(succeeded(await kubectl(['get', ...args, '-o', 'json']))) as KubeObject & { items?: KubeObject[] };
    return parsed.items ?? [parsed];
  };
  const items = [...(await got(['namespace', namespace])), ...(await got(['configmaps,secrets,roles,events', '-n', namespace]))];
  for (const item of items) delete item.metadata.resourceVersion;
  return items;
}

/** `corral migrate` with `args`, from the sources (cli.ts). */
const migrateCommand = (args: readonly string[]): ReturnType<typeof run> =>
  run(process.execPath, ['--import', 'tsx', 'cli.ts', 'migrate', ...args], { cwd: repoRoot, timeoutMs: 120_000 });

describe('corral migrate, end to end', { skip: skipUnlessEtcd(), timeout: 300_000 }, () => {
  let cluster: Cluster;
  let etcd: EtcdProcess;
  const children: ChildProcess[] = [];
  let unregister: () => void = () => undefined;

  /** An API server process on `dataDir` with `args`, ready, and kubectl pointed at it. */
  async function startServer(
    dataDir: string,
    args: readonly string[],
  ): Promise<{ child: ChildProcess; kubectl: (args: readonly string[]) => ReturnType<typeof run> }> {
    const port = await freePort();
    const fd = openSync(join(cluster.dir, `apiserver-${port}.log`), 'a');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'apiserver/main.ts', '--secure-port', String(port), '--bind-address', '127.0.0.1', '--data-dir', dataDir, ...args],
      { cwd: repoRoot, stdio: ['ignore', fd, fd] },
    );
    closeSync(fd);
    children.push(child);
    const url = `https://127.0.0.1:${port}`;
    await waitReady(url, dataDir, child);
    const kubeconfig = writeKubeconfigFor(join(dataDir, 'admin.kubeconfig'), url, join(cluster.dir, `kubeconfig-${port}`));
    return { child, kubectl: (kubectlArgs) => run('kubectl', kubectlArgs, { env: kubectlEnv(kubeconfig, join(cluster.dir, `home-${port}`)) }) };
  }

  before(async () => {
    cluster = await startCluster();
    unregister = registerCleanup(() => children, cluster.dir);
  });
  after(async () => {
    await Promise.all(children.map((child) => terminate(child)));
    await etcd?.stop();
    await cluster?.stop();
    unregister();
  });

  it('copies the embedded store into a fresh etcd, which an API server then serves, and back into a new data dir', async () => {
    succeeded(await cluster.kubectl(['create', '--validate=false', '-f', '-'], { input: manifests }));
    const before = await objects((args) => cluster.kubectl(args));
    assert.equal(before.length, 5);

    etcd = await startEtcd({ dataDir: join(cluster.dir, 'etcd') });
    children.push(etcd.child);
    const toEtcd = ['--from-data-dir', cluster.dataDir, '--to-etcd-servers', etcd.endpoints.join(',')];

    // Refused while the API server has the store.
    const busy = await migrateCommand(toEtcd);
    assert.equal(busy.code, 1, busy.stdout);
    assert.match(
      busy.stderr,
      /^Error: cannot migrate while another process has the store: stop it first \(the embedded store in .*\/db is in use by process \d+/,
    );

    const replica = cluster.replicas[0];
    assert.ok(replica);
    await terminate(replica.child);
    const copied = await migrateCommand(toEtcd);
    assert.equal(copied.code, 0, copied.stderr);
    const [, keys, revision] =
      /^copied (\d+) keys \(\d+ bytes, [\d.]+ KiB\) from the embedded store in .*\/db to etcd \S+ in [\d.]+ s\n(?:.*\n)*the target's revision is now (\d+), its history compacted there/.exec(
        copied.stdout,
      ) ?? [];
    assert.ok(keys && revision, copied.stdout);
    assert.match(copied.stdout, /^1 of them with a time to live \(Events\): what remained of it$/m);

    // The target has keys now: a second copy is refused, saying how many.
    const again = await migrateCommand(toEtcd);
    assert.equal(again.code, 1);
    assert.equal(
      again.stderr,
      `Error: etcd ${etcd.endpoints.join(',')} already has ${keys} keys under /registry/: copy into an empty store, or pass --force to overwrite the keys the source has (the others stay)\n`,
    );

    const onEtcd = await startServer(cluster.dataDir, ['--etcd-servers', etcd.endpoints.join(',')]);
    assert.deepEqual(await objects(onEtcd.kubectl), before);
    // A resourceVersion below the copy's revision reads history that was compacted away: 410 Gone.
    const stale = await onEtcd.kubectl([
      'get',
      '--raw',
      `/api/v1/namespaces/${namespace}/configmaps?resourceVersion=${Number(revision) - 1}&resourceVersionMatch=Exact`,
    ]);
    assert.notEqual(stale.code, 0);
    assert.match(stale.stderr, /Error from server \(Expired\): The resourceVersion for the provided list is too old/);
    await terminate(onEtcd.child);

    // Back: from the etcd into a new data dir, with the cluster's PKI.
    const back = join(cluster.dir, 'back');
    mkdirSync(back);
    cpSync(join(cluster.dataDir, 'pki'), join(back, 'pki'), { recursive: true });
    const returned = await migrateCommand(['--from-etcd-servers', etcd.endpoints.join(','), '--to-data-dir', back]);
    assert.equal(returned.code, 0, returned.stderr);
    assert.match(returned.stdout, new RegExp(`^copied ${keys} keys .* from etcd \\S+ to the embedded store in ${back}/db in`));
    const onEmbedded = await startServer(back, []);
    assert.deepEqual(await objects(onEmbedded.kubectl), before);
  });
});
