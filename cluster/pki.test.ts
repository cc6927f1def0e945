/**
 * The shared files of a cluster of processes (cluster/pki.ts): what each process reads is there, in
 * the shape it parses (the token file through the API server's own parser), and reruns keep the
 * cluster's identity.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { parseTokenFile } from '../apiserver/auth/tokenfile.ts';
import { subjectAltNames } from '../shared/pki/certificates.ts';
import { writeClusterFiles } from './pki.ts';

interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { user: { token?: string; 'client-certificate-data'?: string } }[];
}

const readKubeconfig = (file: string): Kubeconfig => parseYaml(readFileSync(file, 'utf8')) as Kubeconfig;

describe('writeClusterFiles', () => {
  const dirs: string[] = [];
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'corral-pki-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('writes the PKI with the SANs, the three kubeconfigs naming the server, and the token file', async () => {
    const dir = tempDir();
    const files = await writeClusterFiles({ dir, server: 'https://lb.example:6443', sans: ['lb.example', '10.1.2.3'] });
    assert.match(files.bootstrapToken, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    assert.equal(readFileSync(join(dir, 'bootstrap-token'), 'utf8').trim(), files.bootstrapToken);
    const sans = subjectAltNames(readFileSync(files.pki.servingCert, 'utf8'));
    assert.ok(sans.dnsNames.includes('lb.example'));
    assert.ok(sans.ipAddresses.includes('10.1.2.3'));

    const ca = Buffer.from(readFileSync(files.pki.caCert)).toString('base64');
    for (const file of [files.adminKubeconfig, files.controllerManagerKubeconfig, files.bootstrapKubeconfig]) {
      assert.equal(file.startsWith(join(dir, 'kubeconfigs')), true);
      const config = readKubeconfig(file);
      assert.equal(config.clusters[0]?.cluster.server, 'https://lb.example:6443');
      assert.equal(config.clusters[0]?.cluster['certificate-authority-data'], ca);
      assert.equal(statSync(file).mode & 0o077, 0, `${file} is readable by others`);
    }
    assert.equal(readKubeconfig(files.bootstrapKubeconfig).users[0]?.user.token, files.bootstrapToken);
    assert.ok(readKubeconfig(files.adminKubeconfig).users[0]?.user['client-certificate-data']);

    const tokens = parseTokenFile(readFileSync(files.tokenFile), files.tokenFile);
    const bootstrap = tokens.get(files.bootstrapToken);
    assert.equal(bootstrap?.username, 'kubelet-bootstrap');
    assert.deepEqual(bootstrap?.groups, ['system:bootstrappers']);
    const monitoring = tokens.get(readFileSync(files.monitoringTokenFile, 'utf8').trim());
    assert.equal(monitoring?.username, 'prometheus');
    assert.deepEqual(monitoring?.groups, ['system:monitoring']);
  });

  it('is idempotent: a rerun keeps the CA, the keys and the tokens, and rewrites the server', async () => {
    const dir = tempDir();
    const first = await writeClusterFiles({ dir, server: 'https://127.0.0.1:6443', sans: [] });
    const ca = readFileSync(first.pki.caCert, 'utf8');
    const key = readFileSync(first.pki.servingKey, 'utf8');
    const tokenFile = readFileSync(first.tokenFile, 'utf8');
    const second = await writeClusterFiles({ dir, server: 'https://127.0.0.1:7443', sans: [] });
    assert.equal(second.bootstrapToken, first.bootstrapToken);
    assert.equal(readFileSync(second.pki.caCert, 'utf8'), ca);
    assert.equal(readFileSync(second.pki.servingKey, 'utf8'), key);
    assert.equal(readFileSync(second.tokenFile, 'utf8'), tokenFile);
    assert.equal(readKubeconfig(second.adminKubeconfig).clusters[0]?.cluster.server, 'https://127.0.0.1:7443');
  });

  it('takes a given token over the kept one, and replaces a kept file that holds no token', async () => {
    const dir = tempDir();
    const given = await writeClusterFiles({ dir, server: 'https://127.0.0.1:6443', sans: [], bootstrapToken: 'abcdef.0123456789abcdef' });
    assert.equal(given.bootstrapToken, 'abcdef.0123456789abcdef');
    assert.equal((await writeClusterFiles({ dir, server: 'https://127.0.0.1:6443', sans: [] })).bootstrapToken, 'abcdef.0123456789abcdef');
    writeFileSync(join(dir, 'bootstrap-token'), 'not a token\n');
    const replaced = await writeClusterFiles({ dir, server: 'https://127.0.0.1:6443', sans: [] });
    assert.match(replaced.bootstrapToken, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    assert.notEqual(replaced.bootstrapToken, 'abcdef.0123456789abcdef');
  });

  it('refuses a malformed token and a server that is not https', async () => {
    const dir = tempDir();
    await assert.rejects(writeClusterFiles({ dir, server: 'https://127.0.0.1:6443', sans: [], bootstrapToken: 'ABCDEF.0123456789abcdef' }), /does not match/);
    await assert.rejects(writeClusterFiles({ dir, server: 'http://127.0.0.1:6443', sans: [] }), /must be an https URL/);
  });
});
