/**
 * Wire formats end to end, against one API server replica (ClusterCIDR's group enabled): kubectl's
 * protobuf writes, kubectl's default (server-side, Strict) field validation, apply, explain (served
 * OpenAPI), `kubectl get` tables of every served kind with upstream's columns, and raw content
 * negotiation: Accept lists with q values and parameters, protobuf answers and bodies, Table and
 * PartialObjectMetadata transforms, 406 and 415, and protobuf watch frames.
 *
 * Expectations are upstream kube-apiserver 1.32's (printers' column definitions, negotiation's
 * goautoneg ordering, handler error texts), never read back from corral's own code. Cases where
 * corral differs are marked todo with the request, the expected and the actual answer.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { configMapDefinition } from '../apiserver/registry/core/configmap.ts';
import { nodeDefinition } from '../apiserver/registry/core/node/node.ts';
import { fixtures, type StoredFixture } from '../apiserver/registry/conformance-fixtures.ts';
import { eventsV1EventDefinition } from '../apiserver/registry/events/event.ts';
import { volumeAttachmentDefinition } from '../apiserver/registry/volumes/volumeattachment.ts';
import { openProtobufWatch, openWatch, type ProtobufWatchEvent, type WatchConnection } from '../apiserver/testing/watch-stream.ts';
import { listSchema, partialObjectMetadataListSchema, statusSchema, type Schema } from '../shared/api/schema.ts';
import type { KubeObject } from '../shared/api/types.ts';
import { encodeMessage } from '../shared/codec/protobuf/encode.ts';
import { decodeEnvelope, encodeEnvelope, protobufMediaType } from '../shared/codec/protobuf/envelope.ts';
import { decodeObject, encodeObject } from '../shared/codec/protobuf/object.ts';
import { adminTls, failed, startCluster, succeeded, type Cluster, type CommandResult, type TlsMaterial } from './harness.ts';

const NS = 'wire';
const CM_PATH = `/api/v1/namespaces/${NS}/configmaps`;
const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io';

let cluster: Cluster;
let tls: Required<TlsMaterial>;
let manifestDir = '';

const kubectl = (args: string[]): Promise<CommandResult> => cluster.kubectl(args);

/** Writes `manifest` (JSON or YAML text) to a file of its own; kubectl names the file in its messages. */
function manifestFile(name: string, manifest: string | object): string {
  const file = join(manifestDir, name);
  writeFileSync(file, typeof manifest === 'string' ? manifest : JSON.stringify(manifest, null, 2));
  return file;
}

// ---------------------------------------------------------------------------------------------
// Raw HTTPS with binary bodies (the harness's request() reads answers as UTF-8 text).

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body as JSON (throws when it is not JSON). */
  json(): Record<string, unknown>;
}

function raw(method: string, path: string, headers: Record<string, string>, body?: Buffer | string): Promise<RawResponse> {
  const target = new URL(path, cluster.urls[0]);
  const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method,
        headers: { ...headers, ...(payload ? { 'content-length': String(payload.length) } : {}) },
        ca: tls.ca,
        cert: tls.cert,
        key: tls.key,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.once('error', reject);
        res.once('end', () => {
          const data = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data, json: () => JSON.parse(data.toString('utf8')) as Record<string, unknown> });
        });
      },
    );
    req.once('error', reject);
    req.end(payload);
  });
}

const get = (path: string, accept: string): Promise<RawResponse> => raw('GET', path, { accept });

function expectStatus(res: RawResponse, code: number): void {
  assert.equal(res.status, code, `expected ${code}, got ${res.status}: ${res.body.toString('utf8').slice(0, 500)}`);
}

// ---------------------------------------------------------------------------------------------
// kubectl's tables.

/** Parses kubectl's column output by the header's column offsets (cells may be empty). */
function parseTable(stdout: string): { header: string[]; rows: string[][] } {
  const [headerLine = '', ...lines] = stdout.trimEnd().split('\n');
  const header = headerLine.trim().split(/\s{2,}/);
  const starts: number[] = [];
  let from = 0;
  for (const name of header) {
    const at = headerLine.indexOf(name, from);
    starts.push(at);
    from = at + name.length;
  }
  const rows = lines.map((line) => starts.map((start, i) => line.slice(start, starts[i + 1]).trim()));
  return { header, rows };
}

/** A human duration (`5s`, `2m3s`, `2y326d`) as the Age and Last Seen columns print it. */
const humanAge = /^(\d+[smhdy])+$/;

type Cell = string | RegExp;

interface KindCase {
  /** The conformance fixture (fixtureKey) that supplies the object. */
  key: string;
  /** The name of the object created. */
  name: string;
  /** kubectl's resource argument. */
  resource: string;
  /** How kubectl names the kind in `<display>/<name> created`. */
  display: string;
  /** Upstream's printer columns of priority 0, as kubectl prints them. */
  columns: string[];
  /** The object's row (when identifiable), cell by cell. */
  row?: Cell[];
  /** Picks the object's row out of all (default: the first cell is the name). */
  pick?: (row: string[]) => boolean;
}

const kindCases: KindCase[] = [
  {
    key: 'v1/configmaps',
    name: 'wire-cm',
    resource: 'configmaps',
    display: 'configmap',
    columns: ['NAME', 'DATA', 'AGE'],
    row: ['wire-cm', '1', humanAge],
  },
  {
    key: 'v1/secrets',
    name: 'wire-secret',
    resource: 'secrets',
    display: 'secret',
    columns: ['NAME', 'TYPE', 'DATA', 'AGE'],
    row: ['wire-secret', 'Opaque', '1', humanAge],
  },
  {
    key: 'v1/namespaces',
    name: 'wire-ns',
    resource: 'namespaces',
    display: 'namespace',
    columns: ['NAME', 'STATUS', 'AGE'],
    row: ['wire-ns', 'Active', humanAge],
  },
  {
    key: 'v1/nodes',
    name: 'wire-node',
    resource: 'nodes',
    display: 'node',
    columns: ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION'],
    // No Ready condition: Unknown; no role labels: <none>; no kubelet version: empty.
    row: ['wire-node', 'Unknown', '<none>', humanAge, ''],
  },
  {
    key: 'v1/events',
    name: 'wire-event',
    resource: 'events',
    display: 'event',
    columns: ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'],
    row: [humanAge, 'Normal', 'Started', 'pod/pod-1', 'started the container'],
    pick: (row) => row[2] === 'Started',
  },
  {
    key: 'events.k8s.io/v1/events',
    name: 'wire-event-v1',
    resource: 'events.events.k8s.io',
    display: 'event.events.k8s.io',
    columns: ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'],
    // Printed through the core Event printer: Last Seen from eventTime, Message from note.
    row: [humanAge, 'Normal', 'Synced', 'pod/pod-1', 'synced the pod'],
    pick: (row) => row[2] === 'Synced',
  },
  {
    key: 'certificates.k8s.io/v1/certificatesigningrequests',
    name: 'wire-csr',
    resource: 'csr',
    display: 'certificatesigningrequest.certificates.k8s.io',
    columns: ['NAME', 'AGE', 'SIGNERNAME', 'REQUESTOR', 'REQUESTEDDURATION', 'CONDITION'],
    row: ['wire-csr', humanAge, 'example.com/signer', 'kubernetes-admin', '<none>', 'Pending'],
  },
  {
    key: 'coordination.k8s.io/v1/leases',
    name: 'wire-lease',
    resource: 'leases',
    display: 'lease.coordination.k8s.io',
    columns: ['NAME', 'HOLDER', 'AGE'],
    row: ['wire-lease', 'holder-a', humanAge],
  },
  {
    key: 'networking.k8s.io/v1alpha1/clustercidrs',
    name: 'wire-cidr',
    resource: 'clustercidrs',
    display: 'clustercidr.networking.k8s.io',
    columns: ['NAME', 'PERNODEHOSTBITS', 'IPV4', 'IPV6', 'AGE'],
    row: ['wire-cidr', '8', '10.0.0.0/16', '<none>', humanAge],
  },
  {
    key: 'storage.k8s.io/v1/csidrivers',
    name: 'wire.csi.example.com',
    resource: 'csidrivers',
    display: 'csidriver.storage.k8s.io',
    columns: ['NAME', 'ATTACHREQUIRED', 'PODINFOONMOUNT', 'STORAGECAPACITY', 'TOKENREQUESTS', 'REQUIRESREPUBLISH', 'MODES', 'AGE'],
    // volumeLifecycleModes defaults to [Persistent]; no token requests: <unset>.
    row: ['wire.csi.example.com', 'true', 'false', 'false', '<unset>', 'false', 'Persistent', humanAge],
  },
  {
    key: 'storage.k8s.io/v1/csinodes',
    name: 'wire-node',
    resource: 'csinodes',
    display: 'csinode.storage.k8s.io',
    columns: ['NAME', 'DRIVERS', 'AGE'],
    row: ['wire-node', '1', humanAge],
  },
  {
    key: 'storage.k8s.io/v1/csistoragecapacities',
    name: 'wire-capacity',
    resource: 'csistoragecapacities',
    display: 'csistoragecapacity.storage.k8s.io',
    // Upstream's printer has no Age column for CSIStorageCapacity.
    columns: ['NAME', 'STORAGECLASSNAME', 'CAPACITY'],
    row: ['wire-capacity', 'standard', '1Gi'],
  },
  {
    key: 'storage.k8s.io/v1/volumeattachments',
    name: 'wire-attachment',
    resource: 'volumeattachments',
    display: 'volumeattachment.storage.k8s.io',
    columns: ['NAME', 'ATTACHER', 'PV', 'NODE', 'ATTACHED', 'AGE'],
    row: ['wire-attachment', 'csi.example.com', 'pv-1', 'node-1', 'false', humanAge],
  },
];

function storedFixture(key: string): StoredFixture {
  const fixture = fixtures[key];
  assert.ok(fixture && !fixture.readOnly, `no stored conformance fixture ${key}`);
  return fixture;
}

function manifestOf(k: KindCase): KubeObject {
  const obj = storedFixture(k.key).valid(k.name, NS);
  const namespaced = storedFixture(k.key).namespaced;
  if (!namespaced) delete obj.metadata.namespace;
  return obj;
}

const nsArgs = (k: KindCase): string[] => (storedFixture(k.key).namespaced ? ['-n', NS] : []);

// ---------------------------------------------------------------------------------------------

before(
  async () => {
    cluster = await startCluster({ apiserverArgs: ['--runtime-config=networking.k8s.io/v1alpha1=true'] });
    tls = adminTls(cluster.dataDir);
    manifestDir = join(cluster.dir, 'manifests');
    mkdirSync(manifestDir, { recursive: true });
    succeeded(await kubectl(['create', 'namespace', NS]));
  },
  { timeout: 120_000 },
);

after(async () => {
  await cluster?.stop();
});

describe('kubectl create configmap (protobuf body), then get -o yaml', () => {
  it('sends protobuf, and the object reads back as created', async () => {
    const created = await kubectl(['create', 'configmap', 'x', '-n', NS, '--from-literal=a=b', '-v=7']);
    assert.equal(succeeded(created), 'configmap/x created\n');
    // kubectl's typed client writes protobuf: the request went out as such.
    assert.match(created.stderr, /Content-Type: application\/vnd\.kubernetes\.protobuf$/m);

    const yaml = succeeded(await kubectl(['get', 'cm', 'x', '-n', NS, '-o', 'yaml']));
    const obj = parseYaml(yaml) as KubeObject;
    assert.deepEqual(Object.keys(obj).sort(), ['apiVersion', 'data', 'kind', 'metadata']);
    assert.equal(obj.apiVersion, 'v1');
    assert.equal(obj.kind, 'ConfigMap');
    assert.deepEqual(obj.data, { a: 'b' });
    // Exactly what upstream shows for it (managedFields hidden by kubectl).
    assert.deepEqual(Object.keys(obj.metadata).sort(), ['creationTimestamp', 'name', 'namespace', 'resourceVersion', 'uid']);
    assert.equal(obj.metadata.name, 'x');
    assert.equal(obj.metadata.namespace, NS);
    assert.match(String(obj.metadata.uid), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.match(String(obj.metadata.resourceVersion), /^\d+$/);
    assert.match(yaml, /^ {2}creationTimestamp: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"$/m);
  });

  it('kubectl create secret generic (protobuf body) keeps the bytes', async () => {
    assert.equal(
      succeeded(await kubectl(['create', 'secret', 'generic', 'pb-secret', '-n', NS, '--from-literal=password=hunter2'])),
      'secret/pb-secret created\n',
    );
    const obj = JSON.parse(succeeded(await kubectl(['get', 'secret', 'pb-secret', '-n', NS, '-o', 'json']))) as KubeObject;
    assert.deepEqual(obj.data, { password: Buffer.from('hunter2').toString('base64') });
    assert.equal(obj.type, 'Opaque');
  });
});

describe('kubectl create -f with kubectl’s default validation (server-side, Strict)', () => {
  for (const k of kindCases) {
    it(`${k.display}`, async () => {
      const file = manifestFile(`${k.name}-${k.resource}.json`, manifestOf(k));
      const result = await kubectl(['create', '-f', file, '-v=6']);
      assert.equal(succeeded(result), `${k.display}/${k.name} created\n`);
      // kubectl found the fieldValidation parameter in the served OpenAPI, so validation is the server's.
      assert.match(result.stderr, /POST https:\/\/\S+\?fieldManager=kubectl-create&fieldValidation=Strict 201 Created/);
    });
  }

  it('an unknown top-level field fails with the strict decoding error naming it', async () => {
    const file = manifestFile('bogus.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bogus\n  namespace: wire\nbogus: 1\ndata:\n  a: b\n');
    assert.equal(
      failed(await kubectl(['create', '-f', file])),
      `Error from server (BadRequest): error when creating "${file}": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"\n`,
    );
    failed(await kubectl(['get', 'cm', 'bogus', '-n', NS]));
  });

  it('unknown nested fields are named by path, all of them', async () => {
    const file = manifestFile('bogus-node.json', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'bogus-node', bogusMeta: 'x' },
      spec: { unschedulable: true, bogusSpec: 1 },
    });
    assert.equal(
      failed(await kubectl(['create', '-f', file])),
      `Error from server (BadRequest): error when creating "${file}": Node in version "v1" cannot be handled as a Node: strict decoding error: unknown field "metadata.bogusMeta", unknown field "spec.bogusSpec"\n`,
    );
  });

  it('--validate=warn creates the object and prints the warning', async () => {
    const file = manifestFile('warned.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: warned\n  namespace: wire\nbogus: 1\n');
    const result = await kubectl(['create', '--validate=warn', '-f', file]);
    assert.equal(succeeded(result), 'configmap/warned created\n');
    assert.equal(result.stderr, 'Warning: unknown field "bogus"\n');
  });
});

describe('kubectl apply -f', () => {
  const manifest = (data: Record<string, string>): string =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: wire\ndata:\n${Object.entries(data)
      .map(([k, v]) => `  ${k}: ${v}\n`)
      .join('')}`;

  it('first apply creates, with the last-applied-configuration annotation', async () => {
    const file = manifestFile('applied.yaml', manifest({ a: 'b' }));
    assert.equal(succeeded(await kubectl(['apply', '-f', file])), 'configmap/applied created\n');
    const obj = JSON.parse(succeeded(await kubectl(['get', 'cm', 'applied', '-n', NS, '-o', 'json']))) as KubeObject;
    assert.deepEqual(obj.data, { a: 'b' });
    const annotation = obj.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'];
    assert.equal(annotation, '{"apiVersion":"v1","data":{"a":"b"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"applied","namespace":"wire"}}\n');
  });

  it('the same apply again is unchanged; a changed one configured', async () => {
    const file = manifestFile('applied.yaml', manifest({ a: 'b' }));
    assert.equal(succeeded(await kubectl(['apply', '-f', file])), 'configmap/applied unchanged\n');
    manifestFile('applied.yaml', manifest({ c: 'd' }));
    assert.equal(succeeded(await kubectl(['apply', '-f', file])), 'configmap/applied configured\n');
    const obj = JSON.parse(succeeded(await kubectl(['get', 'cm', 'applied', '-n', NS, '-o', 'json']))) as KubeObject;
    assert.deepEqual(obj.data, { c: 'd' });
  });
});

describe('kubectl explain (served OpenAPI v3)', () => {
  /** Collapses explain's wrapped, indented lines into one line of words. */
  const words = (text: string): string => text.replace(/\s+/g, ' ');

  it('configmap.data: kind, version, field and type', async () => {
    const out = succeeded(await kubectl(['explain', 'configmap.data']));
    assert.ok(out.startsWith('KIND:       ConfigMap\nVERSION:    v1\n\nFIELD: data <map[string]string>\n'), out);
  });

  /** The description a schema gives a field, as the served OpenAPI carries it. */
  const descriptionOf = (schema: Schema | undefined, what: string): string => {
    assert.ok(schema?.description, `${what} has no description`);
    return words(schema.description);
  };

  it('configmap.data: the field’s description', async () => {
    const out = words(succeeded(await kubectl(['explain', 'configmap.data'])));
    const description = descriptionOf(configMapDefinition.schema.properties?.data, 'ConfigMap data');
    assert.ok(out.includes(`DESCRIPTION: ${description}`), out);
  });

  it('node.spec.taints: the fields of the items, with types and required markers', async () => {
    const out = succeeded(await kubectl(['explain', 'node.spec.taints']));
    assert.ok(out.startsWith('KIND:       Node\nVERSION:    v1\n\nFIELD: taints <'), out);
    const fields = [...out.matchAll(/^ {2}(\w+)\t<([^>]+)>( -required-)?$/gm)].map((m) => `${m[1]} <${m[2]}>${m[3] ?? ''}`);
    assert.deepEqual(fields, ['effect <string> -required-', 'key <string> -required-', 'timeAdded <string>', 'value <string>']);
  });

  it('node.spec.taints: typed []Taint (a $ref to io.k8s.api.core.v1.Taint), with descriptions', async () => {
    const out = succeeded(await kubectl(['explain', 'nodes.spec.taints']));
    assert.match(out, /^FIELD: taints <\[\]Taint>$/m);
    const taints = nodeDefinition.schema.properties?.spec?.properties?.taints;
    assert.ok(words(out).includes(`DESCRIPTION: ${descriptionOf(taints, 'NodeSpec taints')}`), out);
    assert.ok(words(out).includes(`effect <string> -required- ${descriptionOf(taints?.items?.properties?.effect, 'Taint effect')}`), out);
  });
});

describe('kubectl get: upstream’s columns for every served kind', () => {
  for (const k of kindCases) {
    it(`${k.resource}: ${k.columns.join(' ')}`, async () => {
      const { header, rows } = parseTable(succeeded(await kubectl(['get', k.resource, ...nsArgs(k)])));
      assert.deepEqual(header, k.columns);
      if (!k.row) return;
      const row = rows.find(k.pick ?? ((r) => r[0] === k.name));
      assert.ok(row, `no row for ${k.name} in ${JSON.stringify(rows)}`);
      assert.equal(row.length, k.row.length);
      k.row.forEach((cell, i) => {
        if (typeof cell === 'string') assert.equal(row[i], cell, `column ${k.columns[i]}`);
        else assert.match(row[i] ?? '', cell, `column ${k.columns[i]}`);
      });
    });
  }

  it('componentstatuses: NAME STATUS MESSAGE ERROR', async () => {
    const result = await kubectl(['get', 'componentstatuses']);
    const { header, rows } = parseTable(succeeded(result));
    assert.deepEqual(header, ['NAME', 'STATUS', 'MESSAGE', 'ERROR']);
    assert.deepEqual(rows.find((r) => r[0] === 'etcd-0')?.slice(0, 2), ['etcd-0', 'Healthy']);
  });

  it('get -A adds NAMESPACE first', async () => {
    const { header, rows } = parseTable(succeeded(await kubectl(['get', 'leases', '-A'])));
    assert.deepEqual(header, ['NAMESPACE', 'NAME', 'HOLDER', 'AGE']);
    assert.deepEqual(rows.find((r) => r[1] === 'wire-lease')?.slice(0, 3), [NS, 'wire-lease', 'holder-a']);
  });
});

describe('kubectl get -o wide', () => {
  it('configmaps: no wide columns, NAME DATA AGE', async () => {
    const { header, rows } = parseTable(succeeded(await kubectl(['get', 'cm', '-n', NS, '-o', 'wide'])));
    assert.deepEqual(header, ['NAME', 'DATA', 'AGE']);
    assert.deepEqual(rows.find((r) => r[0] === 'x')?.slice(0, 2), ['x', '1']);
  });

  it('nodes: the priority-1 columns follow', async () => {
    const { header } = parseTable(succeeded(await kubectl(['get', 'nodes', '-o', 'wide'])));
    assert.deepEqual(header, ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']);
  });

  it('events: wide columns interleave in the printer’s order', async () => {
    const { header } = parseTable(succeeded(await kubectl(['get', 'events', '-n', NS, '-o', 'wide'])));
    assert.deepEqual(header, ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE', 'MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME']);
  });
});

describe('content negotiation (raw requests)', () => {
  const cmPath = `${CM_PATH}/x`;

  describe('Accept lists', () => {
    const cases: { accept: string; contentType: string; todo?: string }[] = [
      { accept: 'application/json;q=0.5, application/yaml', contentType: 'application/yaml' },
      { accept: 'application/yaml;q=0.1, application/json;charset=utf-8;q=0.9', contentType: 'application/json' },
      { accept: 'application/vnd.kubernetes.protobuf;q=0.5, application/json', contentType: 'application/json' },
      { accept: 'text/html, application/xml;q=0.9, */*;q=0.8', contentType: 'application/json' },
      { accept: '*/*;q=0.1, application/yaml', contentType: 'application/yaml' },
      { accept: 'application/yaml;pretty=1', contentType: 'application/yaml' },
      {
        accept: '*/*, application/yaml',
        contentType: 'application/yaml',
      },
      {
        accept: 'application/*, application/yaml',
        contentType: 'application/yaml',
      },
    ];
    for (const c of cases) {
      it(`${c.accept} → ${c.contentType}`, c.todo ? { todo: c.todo } : {}, async () => {
        const res = await get(cmPath, c.accept);
        expectStatus(res, 200);
        assert.equal(res.headers['content-type'], c.contentType);
        const obj = (c.contentType === 'application/yaml' ? parseYaml(res.body.toString('utf8')) : res.json()) as KubeObject;
        assert.equal(obj.kind, 'ConfigMap');
        assert.deepEqual(obj.data, { a: 'b' });
      });
    }
  });

  it('YAML as upstream writes it (sigs.k8s.io/yaml): keys sorted, timestamps quoted, sequences not indented', async () => {
    const text = (await get(cmPath, 'application/yaml')).body.toString('utf8');
    assert.ok(text.startsWith('apiVersion: v1\ndata:\n  a: b\nkind: ConfigMap\nmetadata:\n  creationTimestamp: "'), text);
    assert.match(text, /\n {2}managedFields:\n {2}- apiVersion: v1\n {4}fieldsType: FieldsV1\n/);
    assert.match(text, /\n {4}time: "\d{4}-/);
  });

  // Written and read off the event loop (the codec worker): the same answers as for a small object.
  describe('a large object (20,000 keys) in every format', () => {
    const largePath = `${CM_PATH}/large`;
    const keys = 20_000;
    let compact: Record<string, unknown> = {};

    before(async () => {
      const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: large', 'data:'];
      for (let i = 0; i < keys; i++) lines.push(`  k${i}: ${i % 2 === 0 ? `"${i}"` : `v-${i}`}`);
      lines.push('  k7: again');
      const created = await raw('POST', CM_PATH, { 'content-type': 'application/yaml', accept: 'application/json' }, `${lines.join('\n')}\n`);
      expectStatus(created, 201);
      // The YAML decoder's duplicate-key warning, with the line of the repeated key.
      assert.equal(created.headers.warning, `299 - "line ${lines.length}: key \\"k7\\" already set in map"`);
      const res = await get(largePath, 'application/json');
      expectStatus(res, 200);
      compact = res.json();
      const data = compact.data as Record<string, string>;
      assert.equal(Object.keys(data).length, keys);
      assert.equal(data.k2, '2');
      assert.equal(data.k7, 'again');
    });

    it('YAML: the same object, keys sorted', async () => {
      const res = await get(largePath, 'application/yaml');
      expectStatus(res, 200);
      assert.equal(res.headers['content-type'], 'application/yaml');
      const text = res.body.toString('utf8');
      assert.ok(text.startsWith('apiVersion: v1\ndata:\n  k0: "0"\n  k1: v-1\n  k10: "10"\n'), text.slice(0, 200));
      assert.deepEqual(parseYaml(text), compact);
    });

    it('pretty JSON: the compact answer indented by two spaces', async () => {
      const res = await get(`${largePath}?pretty=true`, 'application/json');
      expectStatus(res, 200);
      assert.equal(res.body.toString('utf8'), JSON.stringify(compact, null, 2));
    });

    it('protobuf: decodes to the JSON answer', async () => {
      const res = await get(largePath, protobufMediaType);
      expectStatus(res, 200);
      assert.equal(res.headers['content-type'], protobufMediaType);
      assert.deepEqual(decodeObject(res.body, configMapDefinition.schema), compact);
    });

    it('Table with includeObject=Object: the row carries the whole object, in JSON and in YAML', async () => {
      const json = await get(`${largePath}?includeObject=Object`, tableAccept);
      expectStatus(json, 200);
      const table = json.json();
      assert.equal(table.kind, 'Table');
      const rows = table.rows as { cells: unknown[]; object: Record<string, unknown> }[];
      assert.equal(rows.length, 1);
      assert.deepEqual(rows[0]?.cells.slice(0, 2), ['large', keys]);
      assert.deepEqual(rows[0]?.object, compact);
      const yaml = await get(`${largePath}?includeObject=Object`, 'application/yaml;as=Table;v=v1;g=meta.k8s.io');
      expectStatus(yaml, 200);
      // The Age cell is computed per request: the two answers may straddle a second.
      type TableRows = Record<string, unknown> & { rows: { cells: unknown[] }[] };
      const withoutAge = (t: TableRows): unknown => ({ ...t, rows: t.rows.map((row) => ({ ...row, cells: row.cells.slice(0, 2) })) });
      assert.deepEqual(withoutAge(parseYaml(yaml.body.toString('utf8')) as TableRows), withoutAge(table as TableRows));
    });

    it('watches: its events come in order with the small ones written after it, in JSON and protobuf', async () => {
      const list = (await get(CM_PATH, 'application/json')).json() as { metadata: { resourceVersion: string } };
      const path = `${CM_PATH}?watch=1&resourceVersion=${list.metadata.resourceVersion}`;
      const json = await openWatch(cluster.urls[0] ?? '', tls, path);
      const protobuf = await openProtobufWatch(cluster.urls[0] ?? '', tls, path);
      try {
        const patch = (value: string): Promise<RawResponse> =>
          raw('PATCH', largePath, { 'content-type': 'application/merge-patch+json', accept: 'application/json' }, JSON.stringify({ data: { k1: value } }));
        expectStatus(await patch('changed'), 200);
        const small = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-large' }, data: { a: 'b' } });
        expectStatus(await raw('POST', CM_PATH, { 'content-type': 'application/json', accept: 'application/json' }, small), 201);
        expectStatus(await patch('v-1'), 200);
        const want = [
          ['MODIFIED', 'large', 'changed'],
          ['ADDED', 'after-large', undefined],
          ['MODIFIED', 'large', 'v-1'],
        ];
        await json.waitFor((events) => events.length >= 3, '3 JSON events');
        assert.deepEqual(
          json.events.map((e) => [e.type, e.object.metadata.name, e.object.data?.['k1']]),
          want,
        );
        assert.equal(Object.keys(json.events[0]?.object.data ?? {}).length, keys);
        await protobuf.waitFor((events) => events.length >= 3, '3 protobuf events');
        const decoded = protobuf.events.map((e) => ({ type: e.type, object: decodeObject(e.object, configMapDefinition.schema) }));
        assert.deepEqual(
          decoded.map((e) => [e.type, (e.object.metadata as { name?: string }).name, (e.object.data as Record<string, string>)['k1']]),
          want,
        );
        assert.deepEqual(decoded[0]?.object, json.events[0]?.object);
      } finally {
        json.close();
        protobuf.close();
      }
    });

    it('protobuf body: a large one creates the object it encodes', async () => {
      const data = compact.data as Record<string, string>;
      const body = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'large-protobuf' }, data }, configMapDefinition.schema, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
      });
      assert.ok(body.length > 256 * 1024, `a body of ${body.length} bytes, too small to be decoded off the event loop`);
      const created = await raw('POST', CM_PATH, { 'content-type': protobufMediaType, accept: 'application/json' }, Buffer.from(body));
      expectStatus(created, 201);
      assert.deepEqual(created.json().data, data);
      const truncated = await raw(
        'POST',
        CM_PATH,
        { 'content-type': protobufMediaType, accept: 'application/json' },
        Buffer.from(body.subarray(0, body.length - 3)),
      );
      expectStatus(truncated, 400);
      assert.match(String(truncated.json().message), /^the object provided is unrecognized \(must be of type ConfigMap\): /);
    });

    it('a malformed large YAML body is a 400 naming the problem, and creates nothing', async () => {
      const body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\ndata:\n${'  a: b\n'.repeat(12_000)}  c: *nowhere\n`;
      const res = await raw('POST', CM_PATH, { 'content-type': 'application/yaml', accept: 'application/json' }, body);
      expectStatus(res, 400);
      assert.match(String(res.json().message), /error converting YAML to JSON: yaml: Unresolved alias/);
      expectStatus(await get(`${CM_PATH}/broken`, 'application/json'), 404);
    });
  });

  describe('protobuf answers', () => {
    it('an object: the k8s\\0 envelope typed v1 ConfigMap, decoding to the JSON answer', async () => {
      const res = await get(cmPath, protobufMediaType);
      expectStatus(res, 200);
      assert.equal(res.headers['content-type'], protobufMediaType);
      assert.deepEqual([...res.body.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
      const envelope = decodeEnvelope(res.body);
      assert.deepEqual([envelope.apiVersion, envelope.kind, envelope.contentEncoding, envelope.contentType], ['v1', 'ConfigMap', '', '']);
      const json = (await get(cmPath, 'application/json')).json();
      assert.deepEqual(decodeObject(res.body, configMapDefinition.schema), json);
    });

    it('a list: ConfigMapList with list metadata and items', async () => {
      const res = await get(CM_PATH, 'application/vnd.kubernetes.protobuf, application/json');
      expectStatus(res, 200);
      assert.equal(res.headers['content-type'], protobufMediaType);
      const list = decodeObject(res.body, listSchema(configMapDefinition.schema));
      assert.equal(list.apiVersion, 'v1');
      assert.equal(list.kind, 'ConfigMapList');
      assert.match(String((list.metadata as { resourceVersion?: string }).resourceVersion), /^\d+$/);
      const names = (list.items as KubeObject[]).map((item) => item.metadata.name);
      assert.ok(names.includes('x') && names.includes('wire-cm'), JSON.stringify(names));
      const json = (await get(CM_PATH, 'application/json')).json();
      assert.deepEqual(list.items, json.items);
    });

    it('a Node with times, quantities and nested lists decodes to the JSON answer', async () => {
      const patch = {
        spec: { taints: [{ key: 'example.com/k', value: 'v', effect: 'NoSchedule', timeAdded: '2024-01-02T03:04:05Z' }] },
      };
      expectStatus(
        await raw('PATCH', '/api/v1/nodes/wire-node', { 'content-type': 'application/merge-patch+json', accept: 'application/json' }, JSON.stringify(patch)),
        200,
      );
      const status = { status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' }, addresses: [{ type: 'InternalIP', address: '10.0.0.7' }] } };
      expectStatus(
        await raw(
          'PATCH',
          '/api/v1/nodes/wire-node/status',
          { 'content-type': 'application/merge-patch+json', accept: 'application/json' },
          JSON.stringify(status),
        ),
        200,
      );
      const res = await get('/api/v1/nodes/wire-node', protobufMediaType);
      expectStatus(res, 200);
      const json = (await get('/api/v1/nodes/wire-node', 'application/json')).json();
      assert.deepEqual(decodeObject(res.body, nodeDefinition.schema), json);
    });

    it("Go's non-omitempty zeros: a VolumeAttachment created without status reads back with status.attached false, in JSON and protobuf", async () => {
      const body = {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'VolumeAttachment',
        metadata: { name: 'wire-zeros' },
        spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } },
      };
      const created = await raw(
        'POST',
        '/apis/storage.k8s.io/v1/volumeattachments',
        { 'content-type': 'application/json', accept: 'application/json' },
        JSON.stringify(body),
      );
      expectStatus(created, 201);
      assert.deepEqual(created.json().status, { attached: false });
      const res = await get('/apis/storage.k8s.io/v1/volumeattachments/wire-zeros', protobufMediaType);
      expectStatus(res, 200);
      assert.deepEqual(decodeObject(res.body, volumeAttachmentDefinition.schema).status, { attached: false });
    });

    it('as=PartialObjectMetadataList: metadata only, typed meta.k8s.io/v1 PartialObjectMetadataList', async () => {
      const res = await get(CM_PATH, 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json');
      expectStatus(res, 200);
      assert.equal(res.headers['content-type'], protobufMediaType);
      const list = decodeObject(res.body, partialObjectMetadataListSchema());
      assert.equal(list.apiVersion, 'meta.k8s.io/v1');
      assert.equal(list.kind, 'PartialObjectMetadataList');
      const x = (list.items as KubeObject[]).find((item) => item.metadata.name === 'x');
      assert.ok(x);
      assert.deepEqual(Object.keys(x), ['metadata']);
    });

    it('an error: a protobuf Status', async () => {
      const res = await get(`${CM_PATH}/missing`, protobufMediaType);
      expectStatus(res, 404);
      assert.equal(res.headers['content-type'], protobufMediaType);
      assert.deepEqual(decodeObject(res.body, statusSchema()), {
        apiVersion: 'v1',
        kind: 'Status',
        status: 'Failure',
        message: 'configmaps "missing" not found',
        reason: 'NotFound',
        details: { name: 'missing', kind: 'configmaps' },
        code: 404,
      });
    });
  });

  describe('protobuf request bodies', () => {
    const post = (body: Buffer | Uint8Array): Promise<RawResponse> =>
      raw('POST', CM_PATH, { 'content-type': protobufMediaType, accept: 'application/json' }, Buffer.from(body));

    it('a ConfigMap encoded as kubectl does is created', async () => {
      const body = encodeObject(
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'pb-post', namespace: NS },
          data: { k: 'v' },
          binaryData: { b: Buffer.from([0, 1, 2, 255]).toString('base64') },
        },
        configMapDefinition.schema,
      );
      const res = await post(body);
      expectStatus(res, 201);
      const obj = res.json() as KubeObject;
      assert.deepEqual([obj.data, obj.binaryData], [{ k: 'v' }, { b: 'AAEC/w==' }]);
    });

    it('unknown field numbers are skipped, as gogo-protobuf skips them', async () => {
      const message = encodeMessage({ metadata: { name: 'pb-unknown', namespace: NS }, data: { k: 'v' } }, configMapDefinition.schema);
      // Field 99 (length-delimited, "hi") after the known fields.
      const withUnknown = Buffer.concat([Buffer.from(message), Buffer.from([0x9a, 0x06, 0x02, 0x68, 0x69])]);
      const res = await post(encodeEnvelope('v1', 'ConfigMap', withUnknown));
      expectStatus(res, 201);
      assert.deepEqual((res.json() as KubeObject).data, { k: 'v' });
    });

    it('a body without the k8s\\0 prefix is a 400 Status', async () => {
      const res = await post(Buffer.from('XYZ!not protobuf'));
      expectStatus(res, 400);
      assert.equal(res.headers['content-type'], 'application/json');
      const status = res.json();
      assert.deepEqual([status.kind, status.status, status.reason, status.code], ['Status', 'Failure', 'BadRequest', 400]);
      assert.match(String(status.message), /provided data does not appear to be a protobuf message, expected prefix \[107 56 115 0\]/);
    });

    it('a body without the k8s\\0 prefix: upstream’s transformDecodeError message', async () => {
      const res = await post(Buffer.from('XYZ!not protobuf'));
      assert.equal(
        res.json().message,
        `the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (${Buffer.from('XYZ!not protobuf').toString('hex')})`,
      );
    });
  });

  describe('Table (as=Table;v=v1;g=meta.k8s.io)', () => {
    const tableOf = async (
      query: string,
    ): Promise<Record<string, unknown> & { rows: { cells: unknown[]; object?: Record<string, unknown> | null }[]; columnDefinitions: { name: string }[] }> => {
      const res = await get(`${cmPath}${query}`, tableAccept);
      expectStatus(res, 200);
      assert.equal(res.headers['content-type'], 'application/json');
      const table = res.json() as Record<string, unknown> & {
        rows: { cells: unknown[]; object?: Record<string, unknown> | null }[];
        columnDefinitions: { name: string }[];
      };
      assert.equal(table.kind, 'Table');
      assert.equal(table.apiVersion, 'meta.k8s.io/v1');
      assert.deepEqual(
        table.columnDefinitions.map((c) => c.name),
        ['Name', 'Data', 'Age'],
      );
      assert.equal(table.rows.length, 1);
      assert.deepEqual(table.rows[0]?.cells.slice(0, 2), ['x', 1]);
      return table;
    };

    it('includeObject=None: rows without objects', async () => {
      const table = await tableOf('?includeObject=None');
      assert.equal(table.rows[0]?.object ?? null, null);
    });

    it('includeObject=Metadata (and the default): PartialObjectMetadata of meta.k8s.io/v1', async () => {
      for (const query of ['?includeObject=Metadata', '']) {
        const table = await tableOf(query);
        const object = table.rows[0]?.object as KubeObject;
        assert.equal(object.kind, 'PartialObjectMetadata');
        assert.equal(object.apiVersion, 'meta.k8s.io/v1');
        assert.equal(object.metadata.name, 'x');
        assert.equal((object as { data?: unknown }).data, undefined);
      }
    });

    it('includeObject=Object: the whole object', async () => {
      const table = await tableOf('?includeObject=Object');
      const object = table.rows[0]?.object as KubeObject;
      assert.deepEqual([object.apiVersion, object.kind, object.metadata.name, object.data], ['v1', 'ConfigMap', 'x', { a: 'b' }]);
    });

    it('a Table list carries the list metadata', async () => {
      const res = await get(`${CM_PATH}?limit=1`, tableAccept);
      expectStatus(res, 200);
      const table = res.json() as { metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number }; rows: unknown[] };
      assert.equal(table.rows.length, 1);
      assert.match(String(table.metadata.resourceVersion), /^\d+$/);
      assert.ok(table.metadata.continue, 'continue token');
      assert.ok((table.metadata.remainingItemCount ?? 0) >= 1);
    });

    it('Table in protobuf only is 406 (Table has no protobuf form); with a JSON fallback, the plain list', async () => {
      const refused = await get(CM_PATH, 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io');
      expectStatus(refused, 406);
      const fallback = await get(CM_PATH, 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json');
      expectStatus(fallback, 200);
      assert.equal(fallback.json().kind, 'ConfigMapList');
    });
  });

  it('Accept of only unsupported types is 406 with a Status', async () => {
    const res = await get(cmPath, 'text/html, application/xml;q=0.9');
    expectStatus(res, 406);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.deepEqual(res.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      reason: 'NotAcceptable',
      code: 406,
    });
  });

  it('Content-Type text/plain is 415 with a Status', async () => {
    const res = await raw('POST', CM_PATH, { 'content-type': 'text/plain', accept: 'application/json' }, JSON.stringify({ metadata: { name: 'plain' } }));
    expectStatus(res, 415);
    const status = res.json();
    assert.deepEqual([status.kind, status.status, status.reason, status.code], ['Status', 'Failure', 'UnsupportedMediaType', 415]);
    assert.equal(
      status.message,
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  });

  it('Content-Type text/plain: the Status is exactly upstream’s (no details)', async () => {
    const res = await raw('POST', CM_PATH, { 'content-type': 'text/plain', accept: 'application/json' }, JSON.stringify({ metadata: { name: 'plain' } }));
    assert.deepEqual(res.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      reason: 'UnsupportedMediaType',
      code: 415,
    });
  });

  it('quantities are stored and served in canonical form, numbers as strings', async () => {
    const json = { 'content-type': 'application/json', accept: 'application/json' };
    expectStatus(await raw('POST', '/api/v1/nodes', json, JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'wire-quantities' } })), 201);
    const status = { status: { capacity: { cpu: '4000m', memory: '1024Mi', pods: 110 } } };
    const patched = await raw(
      'PATCH',
      '/api/v1/nodes/wire-quantities/status',
      { ...json, 'content-type': 'application/merge-patch+json' },
      JSON.stringify(status),
    );
    expectStatus(patched, 200);
    const canonical = { cpu: '4', memory: '1Gi', pods: '110' };
    assert.deepEqual((patched.json().status as Record<string, unknown>).capacity, canonical);
    const read = await get('/api/v1/nodes/wire-quantities', 'application/json');
    expectStatus(read, 200);
    assert.deepEqual((read.json().status as Record<string, unknown>).capacity, canonical);
  });
});

describe('protobuf watch frames', () => {
  const eventsPath = `/apis/events.k8s.io/v1/namespaces/${NS}/events`;

  async function withWatch(path: string, use: (w: WatchConnection<ProtobufWatchEvent>) => Promise<void>): Promise<void> {
    const w = await openProtobufWatch(cluster.urls[0] ?? '', tls, path);
    try {
      assert.equal(w.status, 200, w.text);
      assert.equal(w.headers['content-type'], 'application/vnd.kubernetes.protobuf;stream=watch');
      await use(w);
    } finally {
      w.close();
    }
  }

  it('initial events of events.k8s.io Events (MicroTime, nested references), then the initial-events-end BOOKMARK', async () => {
    const schema = eventsV1EventDefinition.schema;
    await withWatch(`${eventsPath}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`, async (w) => {
      await w.waitFor((events) => events.some((e) => e.type === 'BOOKMARK'), 'the BOOKMARK');
      const decoded = w.events.map((e) => ({ type: e.type, object: decodeObject(e.object, schema) }));
      const json = (await get(eventsPath, 'application/json')).json() as { items: KubeObject[] };
      const added = decoded.filter((e) => e.type === 'ADDED').map((e) => e.object);
      assert.equal(added.length, json.items.length);
      for (const item of json.items) {
        const found = added.find((o) => (o.metadata as { name?: string }).name === item.metadata.name);
        assert.deepEqual(found, { apiVersion: 'events.k8s.io/v1', kind: 'Event', ...item });
      }
      const bookmark = decoded.find((e) => e.type === 'BOOKMARK');
      assert.equal(bookmark?.object.kind, 'Event');
      assert.deepEqual((bookmark?.object.metadata as { annotations?: unknown }).annotations, { 'k8s.io/initial-events-end': 'true' });
    });
  });

  it('ADDED, MODIFIED and DELETED frames of a ConfigMap written through protobuf', async () => {
    const list = (await get(CM_PATH, 'application/json')).json() as { metadata: { resourceVersion: string } };
    await withWatch(`${CM_PATH}?watch=1&resourceVersion=${list.metadata.resourceVersion}`, async (w) => {
      const create = encodeObject(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb-watched', namespace: NS }, data: { v: '1' } },
        configMapDefinition.schema,
      );
      expectStatus(await raw('POST', CM_PATH, { 'content-type': protobufMediaType, accept: protobufMediaType }, Buffer.from(create)), 201);
      const current = decodeObject((await get(`${CM_PATH}/pb-watched`, protobufMediaType)).body, configMapDefinition.schema);
      const update = encodeObject({ ...current, data: { v: '2' } }, configMapDefinition.schema);
      expectStatus(await raw('PUT', `${CM_PATH}/pb-watched`, { 'content-type': protobufMediaType, accept: protobufMediaType }, Buffer.from(update)), 200);
      expectStatus(await raw('DELETE', `${CM_PATH}/pb-watched`, { accept: protobufMediaType }), 200);
      await w.waitFor((events) => events.length >= 3, '3 frames');
      const decoded = w.events.map((e) => {
        const envelope = decodeEnvelope(e.object);
        const obj = decodeObject(e.object, configMapDefinition.schema);
        return [e.type, envelope.apiVersion, envelope.kind, (obj.metadata as { name?: string }).name, obj.data];
      });
      assert.deepEqual(decoded, [
        ['ADDED', 'v1', 'ConfigMap', 'pb-watched', { v: '1' }],
        ['MODIFIED', 'v1', 'ConfigMap', 'pb-watched', { v: '2' }],
        ['DELETED', 'v1', 'ConfigMap', 'pb-watched', { v: '2' }],
      ]);
    });
  });
});
