import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { parse } from 'yaml';
import type { KubeObject } from '../../shared/api/types.ts';
import { FakeClock } from '../../shared/client/clock.ts';
import { RecordingApiClient } from '../../shared/client/testing.ts';
import { x509 } from '../../shared/go/x509.ts';
import {
  certifyClientKey,
  createCA,
  issueClientCertificate,
  publicKeyOfPrivateKeyPem,
  type CertificateAndKey,
  type CertificateAuthority,
} from '../../shared/pki/certificates.ts';
import { renderKubeconfig } from '../../shared/pki/kubeconfig.ts';
import { bootstrapClientUsages, clientConfigStillValid, loadClientCertificate, type BootstrapOptions } from './bootstrap.ts';
import { csrPath, digestedName, generatePrivateKeyPem, kubeletClientSigner } from './request.ts';

const logger = pino({ level: 'silent' });
const server = 'https://127.0.0.1:6443';
const nodeSubject = { commonName: 'system:node:n1', organizations: ['system:nodes'] };
const now = Date.parse('2026-01-01T00:00:00Z');
const dayMs = 24 * 3_600_000;
const dirs: string[] = [];
let ca: CertificateAuthority;
let valid: CertificateAndKey;

before(async () => {
  ca = await createCA({ now: new Date(now - 10 * dayMs) });
  valid = await issueClientCertificate(ca, { ...nodeSubject, now: new Date(now - dayMs), validityMs: 30 * dayMs });
});

after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'corral-bootstrap-'));
  dirs.push(dir);
  return dir;
}

function writeFile(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

interface KubeconfigFile {
  clusters: Array<{ name: string; cluster: Record<string, string> }>;
  users: Array<{ name: string; user: Record<string, string> }>;
  contexts: Array<{ name: string; context: Record<string, string> }>;
  'current-context': string;
}

describe('clientConfigStillValid', () => {
  it('is false when the file is missing', () => {
    assert.equal(clientConfigStillValid(join(tempDir(), 'kubeconfig'), now, logger), false);
  });

  it('is true for a kubeconfig with an unexpired client certificate, embedded or in files', () => {
    const dir = tempDir();
    const embedded = writeFile(dir, 'embedded', renderKubeconfig({ server, caPem: ca.certPem, clientCertPem: valid.certPem, clientKeyPem: valid.keyPem }));
    assert.equal(clientConfigStillValid(embedded, now, logger), true);
    const pem = writeFile(dir, 'pair.pem', `${valid.certPem}\n${valid.keyPem}`);
    const files = writeFile(dir, 'files', renderKubeconfig({ server, caPem: ca.certPem, clientCertFile: pem, clientKeyFile: pem }));
    assert.equal(clientConfigStillValid(files, now, logger), true);
  });

  it('is false once the certificate has expired', async () => {
    const expired = await issueClientCertificate(ca, { ...nodeSubject, now: new Date(now - 3 * dayMs), validityMs: dayMs });
    const path = writeFile(
      tempDir(),
      'kubeconfig',
      renderKubeconfig({ server, caPem: ca.certPem, clientCertPem: expired.certPem, clientKeyPem: expired.keyPem }),
    );
    assert.equal(clientConfigStillValid(path, now, logger), false);
    // The same file was valid while the certificate was.
    assert.equal(clientConfigStillValid(path, now - 2.5 * dayMs, logger), true);
  });

  it('is false for garbage, a kubeconfig without a cluster, or one without a client certificate', () => {
    const dir = tempDir();
    assert.equal(clientConfigStillValid(writeFile(dir, 'garbage', ':::: not yaml [\n'), now, logger), false);
    assert.equal(clientConfigStillValid(writeFile(dir, 'empty', 'apiVersion: v1\nkind: Config\n'), now, logger), false);
    assert.equal(
      clientConfigStillValid(writeFile(dir, 'token', renderKubeconfig({ server, caPem: ca.certPem, token: 'abcdef.0123456789abcdef' })), now, logger),
      false,
    );
    const missingFiles = renderKubeconfig({ server, clientCertFile: join(dir, 'absent.pem'), clientKeyFile: join(dir, 'absent.pem') });
    assert.equal(clientConfigStillValid(writeFile(dir, 'missing-files', missingFiles), now, logger), false);
  });

  it('is false when any certificate of the bundle has expired, not only the leaf', async () => {
    const oldCA = await createCA({ now: new Date(now - 3 * dayMs), validityMs: dayMs });
    const bundle = `${valid.certPem}\n${oldCA.certPem}\n`;
    const path = writeFile(tempDir(), 'kubeconfig', renderKubeconfig({ server, clientCertPem: bundle, clientKeyPem: valid.keyPem }));
    assert.equal(clientConfigStillValid(path, now, logger), false);
  });

  it('is false when the key does not match the certificate (transport.TLSConfigFor fails)', () => {
    const path = writeFile(tempDir(), 'kubeconfig', renderKubeconfig({ server, clientCertPem: valid.certPem, clientKeyPem: generatePrivateKeyPem() }));
    assert.equal(clientConfigStillValid(path, now, logger), false);
  });
});

describe('loadClientCertificate', () => {
  /**
   * An API server for the bootstrap: healthy, creating CSRs under their name with a uid, and
   * serving each approved, signed by the test CA for the posted request's public key.
   */
  function bootstrapApi(clock: FakeClock): RecordingApiClient {
    const api = new RecordingApiClient();
    const csrs = new Map<string, Promise<KubeObject>>();
    api.react((action) => {
      if (action.verb === 'get' && action.path === '/healthz') return { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Success' };
      if (action.verb === 'create' && action.path === csrPath) {
        const body = action.body as KubeObject;
        const created: KubeObject = { ...body, metadata: { ...body.metadata, uid: 'uid-1' } };
        csrs.set(body.metadata.name ?? '', sign(created, clock.now()));
        return created;
      }
      if (action.verb === 'get' && action.path.startsWith(`${csrPath}/`)) return csrs.get(action.path.slice(csrPath.length + 1));
      return undefined;
    });
    return api;
  }

  async function sign(csr: KubeObject, at: number): Promise<KubeObject> {
    const spec = csr['spec'] as { request: string };
    const request = new x509.Pkcs10CertificateRequest(Buffer.from(spec.request, 'base64').toString('utf8'));
    const certPem = await certifyClientKey(ca, new Uint8Array(request.publicKey.rawData), { ...nodeSubject, now: new Date(at), validityMs: 365 * dayMs });
    return { ...csr, status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: Buffer.from(certPem).toString('base64') } };
  }

  interface Setup {
    dir: string;
    options: BootstrapOptions;
    api: RecordingApiClient;
    clients: KubeConfig[];
  }

  function setup(): Setup {
    const dir = tempDir();
    const bootstrapPath = writeFile(
      dir,
      'bootstrap-kubeconfig',
      renderKubeconfig({ server, caPem: ca.certPem, token: '07401b.f395accd246ae52d', userName: 'kubelet-bootstrap', contextName: 'bootstrap' }),
    );
    const clock = new FakeClock(now);
    const api = bootstrapApi(clock);
    const clients: KubeConfig[] = [];
    const options: BootstrapOptions = {
      kubeconfigPath: join(dir, 'etc', 'kubeconfig'),
      bootstrapKubeconfigPath: bootstrapPath,
      certDir: join(dir, 'pki'),
      nodeName: 'n1',
      clock,
      logger,
      signal: new AbortController().signal,
      client: (kubeconfig) => {
        clients.push(kubeconfig);
        return api;
      },
    };
    return { dir, options, api, clients };
  }

  it('obtains a client certificate with the bootstrap credentials and writes the node kubeconfig', async () => {
    const { options, api, clients } = setup();
    await loadClientCertificate(options);

    assert.equal(clients.length, 1);
    assert.equal(clients[0]?.getCurrentUser()?.token, '07401b.f395accd246ae52d');
    const csrName = (api.actions[1]?.body as KubeObject).metadata.name ?? '';
    assert.deepEqual(
      api.actions.map((a) => `${a.verb} ${a.path}`),
      ['get /healthz', `create ${csrPath}`, `get ${csrPath}/${csrName}`],
    );

    const current = join(options.certDir, 'kubelet-client-current.pem');
    assert.ok(existsSync(current));
    assert.equal(existsSync(join(options.certDir, 'kubelet-client.key.tmp')), false);
    const text = readFileSync(current, 'utf8');
    const keyPem = /-----BEGIN EC PRIVATE KEY-----[\s\S]*?-----END EC PRIVATE KEY-----\n/.exec(text)?.[0] ?? '';
    assert.notEqual(keyPem, '');
    const leaf = new x509.X509Certificate(text);
    assert.equal(leaf.subject, 'O=system:nodes, CN=system:node:n1');
    assert.ok(Buffer.from(leaf.publicKey.rawData).equals(publicKeyOfPrivateKeyPem(keyPem)));

    // The request is named after its key, subject and usages, for the kubelet client signer.
    assert.equal(csrName, digestedName(keyPem, nodeSubject, bootstrapClientUsages));
    const spec = (api.actions[1]?.body as KubeObject)['spec'] as { signerName: string; usages: string[] };
    assert.equal(spec.signerName, kubeletClientSigner);
    assert.deepEqual(spec.usages, ['digital signature', 'key encipherment', 'client auth']);

    assert.equal(statSync(options.kubeconfigPath).mode & 0o777, 0o600);
    const written = parse(readFileSync(options.kubeconfigPath, 'utf8')) as KubeconfigFile;
    const context = written.contexts.find((c) => c.name === written['current-context'])?.context;
    const user = written.users.find((u) => u.name === context?.['user'])?.user;
    const cluster = written.clusters.find((c) => c.name === context?.['cluster'])?.cluster;
    assert.deepEqual(user, { 'client-certificate': current, 'client-key': current });
    assert.equal(cluster?.['server'], server);
    assert.equal(
      Buffer.from(cluster?.['certificate-authority-data'] ?? '', 'base64')
        .toString('utf8')
        .trim(),
      ca.certPem.trim(),
    );
    assert.equal(clientConfigStillValid(options.kubeconfigPath, now, logger), true);
  });

  it('does nothing once the node kubeconfig holds a valid certificate', async () => {
    const { options, api, clients } = setup();
    await loadClientCertificate(options);
    const calls = api.actions.length;
    const written = readFileSync(options.kubeconfigPath, 'utf8');
    await loadClientCertificate(options);
    assert.equal(api.actions.length, calls);
    assert.equal(clients.length, 1);
    assert.equal(readFileSync(options.kubeconfigPath, 'utf8'), written);
  });

  it('asks with the key kept from an interrupted bootstrap (kubelet-client.key.tmp)', async () => {
    const { options, api } = setup();
    const keyPem = generatePrivateKeyPem();
    mkdirSync(options.certDir, { recursive: true });
    writeFileSync(join(options.certDir, 'kubelet-client.key.tmp'), keyPem);
    await loadClientCertificate(options);
    assert.equal((api.actions[1]?.body as KubeObject).metadata.name, digestedName(keyPem, nodeSubject, bootstrapClientUsages));
    assert.ok(readFileSync(join(options.certDir, 'kubelet-client-current.pem'), 'utf8').includes(keyPem.trim()));
    assert.equal(existsSync(join(options.certDir, 'kubelet-client.key.tmp')), false);
  });

  it('does nothing without a bootstrap kubeconfig', async () => {
    const { options, clients, dir } = setup();
    await loadClientCertificate({ ...options, bootstrapKubeconfigPath: undefined });
    assert.equal(clients.length, 0);
    assert.equal(existsSync(options.kubeconfigPath), false);
    assert.equal(existsSync(join(dir, 'pki')), false);
  });
});
