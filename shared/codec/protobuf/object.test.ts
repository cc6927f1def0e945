import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, issueServingCertificate } from '../../pki/certificates.ts';
import { renderKubeconfig } from '../../pki/kubeconfig.ts';
import { decodeObject, encodeObject } from './object.ts';
import { configMapSchema, fromHex, hex, kubectlConfigMapBody, type Json } from './test-fixtures.ts';

describe('ConfigMap', () => {
  it('encodes byte for byte what kubectl sends', () => {
    const bytes = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' }, data: { a: 'b' } }, configMapSchema);
    assert.equal(hex(bytes), hex(fromHex(kubectlConfigMapBody)));
  });

  it('decodes kubectl’s body to the JSON shape, zero values dropped', () => {
    assert.deepEqual(decodeObject(fromHex(kubectlConfigMapBody), configMapSchema), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', namespace: 'default' },
      data: { a: 'b' },
    });
  });

  it('round-trips every field, with keys in the schema’s order', () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'cfg',
        namespace: 'ns',
        uid: '0b6a2c4e-0000-4000-8000-000000000001',
        resourceVersion: '42',
        generation: 3,
        creationTimestamp: '2024-05-01T10:00:00Z',
        deletionTimestamp: '2024-05-02T00:00:00Z',
        deletionGracePeriodSeconds: 0,
        labels: { b: '2', a: '1' },
        annotations: { 'example.com/é': 'ünïcødé ✓ 𝄞' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'u1', controller: true, blockOwnerDeletion: false }],
        finalizers: ['example.com/f', 'b'],
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Update',
            apiVersion: 'v1',
            time: '2024-05-01T10:00:00Z',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } },
          },
        ],
      },
      immutable: false,
      data: { a: 'x'.repeat(300), '': '' },
      binaryData: { bin: 'AAEC/w==', empty: '' },
    };
    const decoded = decodeObject(encodeObject(cm, configMapSchema), configMapSchema);
    assert.deepEqual(decoded, { ...cm, metadata: { ...cm.metadata, labels: { a: '1', b: '2' } } });
    assert.deepEqual(Object.keys(decoded), ['apiVersion', 'kind', 'metadata', 'immutable', 'data', 'binaryData']);
    const refs = (decoded.metadata as Json).ownerReferences as Json[];
    assert.deepEqual(Object.keys(refs[0]!), ['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion']);
  });

  it('writes lengths of more than one byte for long strings and messages', () => {
    for (const size of [42, 43, 127, 128, 16383, 16384, 70000]) {
      const value = 'é'.repeat(size);
      const decoded = decodeObject(
        encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n' }, data: { k: value } }, configMapSchema),
        configMapSchema,
      );
      assert.equal((decoded.data as Record<string, string>).k, value, `size ${size}`);
    }
  });
});

describe('kubectl', () => {
  it('sends a ConfigMap in protobuf that decodes to its JSON shape', async (t) => {
    const ca = await createCA();
    const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const posts: { contentType: string | undefined; body: Buffer }[] = [];
    const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        res.setHeader('Content-Type', 'application/json');
        const path = (req.url ?? '').split('?')[0];
        if (req.method === 'POST') {
          posts.push({ contentType: req.headers['content-type'], body: Buffer.concat(chunks) });
          res.statusCode = 500;
          res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'recorded', code: 500 }));
        } else if (path === '/version') {
          res.end(JSON.stringify({ major: '1', minor: '32', gitVersion: 'v1.32.0' }));
        } else if (path === '/api') {
          res.end(JSON.stringify({ kind: 'APIVersions', versions: ['v1'] }));
        } else if (path === '/apis') {
          res.end(JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] }));
        } else if (path === '/api/v1') {
          res.end(
            JSON.stringify({
              kind: 'APIResourceList',
              groupVersion: 'v1',
              resources: [
                { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ['create', 'get', 'list'], shortNames: ['cm'] },
              ],
            }),
          );
        } else {
          res.statusCode = 404;
          res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404 }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const home = mkdtempSync(join(tmpdir(), 'corral-kubectl-'));
    t.after(() => {
      server.close();
      rmSync(home, { recursive: true, force: true });
    });
    const kubeconfig = join(home, 'kubeconfig');
    const { port } = server.address() as AddressInfo;
    writeFileSync(kubeconfig, renderKubeconfig({ server: `https://127.0.0.1:${port}`, caPem: ca.certPem, token: 'test' }));
    const result = await new Promise<{ code: number | null; stderr: string; missing: boolean }>((resolve) => {
      execFile(
        'kubectl',
        ['create', 'configmap', 'x', '--from-literal=a=b', '-n', 'default', '--kubeconfig', kubeconfig],
        { env: { ...process.env, HOME: home, KUBECONFIG: kubeconfig }, timeout: 60_000 },
        (err, _stdout, stderr) => {
          const code = err && typeof err.code === 'number' ? err.code : err ? null : 0;
          resolve({ code, stderr, missing: (err as NodeJS.ErrnoException | null)?.code === 'ENOENT' });
        },
      );
    });
    if (result.missing) {
      t.skip('kubectl is not on PATH');
      return;
    }
    assert.equal(posts.length, 1, `kubectl made no POST: ${result.stderr}`);
    const post = posts[0]!;
    assert.equal(post.contentType, 'application/vnd.kubernetes.protobuf');
    assert.equal(hex(post.body.subarray(0, 4)), '6b387300');
    const decoded = decodeObject(post.body, configMapSchema);
    assert.deepEqual(decoded, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' }, data: { a: 'b' } });
    assert.equal(hex(encodeObject(decoded, configMapSchema)), hex(post.body), 'our encoding is byte-identical to kubectl’s');
  });
});
