/**
 * The certificate signing controller under load (issue 14, item 13): 1,000 CertificateSigningRequests
 * for kubernetes.io/kube-apiserver-client created and approved at once, timed until every one is
 * issued by a running controller manager (csrsigning only, as its service account); beside the same
 * 1,000 requests signed by `openssl x509 -req` in the same run (one process per request, as many
 * at once as there are cores) and by the signing code alone in this process. Then the controller
 * manager's resident memory idle (caches synced, nothing to do) and with --objects requests in its
 * CSR cache.
 *
 * One etcd and one API server child process (bench/cluster.ts), and the controller manager as a
 * child process (`dist/controllers/main.js`, built) on the API server's controller-manager.kubeconfig, signing
 * with the cluster CA.
 *
 * Usage: npx tsx bench/csr-signing.ts [--count N] [--objects M] [--key ecdsa|rsa] [--concurrency C] [--cpu-prof-dir DIR] [--timeout SECONDS] [--keep]
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { webcrypto } from 'node:crypto';
import { x509 } from '../shared/go/x509.ts';
import { loadCA } from '../shared/pki/certificates.ts';
import { issueCertificate } from '../controllers/certificates/issue.ts';
import { parseCertificateRequest } from '../controllers/certificates/request.ts';
import { certificateUsages } from '../controllers/certificates/signing-policy.ts';
import { benchMain, positiveInt } from './cli.ts';
import { startCluster } from './cluster.ts';
import {
  expectStatus,
  fixed,
  formatProfileSummary,
  formatTable,
  Http2Client,
  mainThreadProfile,
  mib,
  readProcess,
  repoRoot,
  runPool,
  summarizeCpuProfile,
  type Cleanup,
} from './lib.ts';

const usage = `Usage: npx tsx bench/csr-signing.ts [flags]
  --count N           requests signed, by the controller and by openssl (default 1000)
  --objects M         requests in the controller's cache for the memory reading (default 10000)
  --key ecdsa|rsa     key of the requests (default ecdsa: P-256; rsa: 2048 bits)
  --concurrency C     API requests in flight while creating and approving (default 32)
  --cpu-prof-dir DIR  write a CPU profile of the controller manager there and summarize it
  --timeout SECONDS   abort the whole run after this long (default 900)
  --keep              keep the temp dir (etcd data, API server and controller manager logs)
`;

interface Options {
  count: number;
  objects: number;
  key: 'ecdsa' | 'rsa';
  concurrency: number;
  cpuProfileDir: string | undefined;
  timeoutMs: number;
  keep: boolean;
}

function parse(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      count: { type: 'string', default: '1000' },
      objects: { type: 'string', default: '10000' },
      key: { type: 'string', default: 'ecdsa' },
      concurrency: { type: 'string', default: '32' },
      'cpu-prof-dir': { type: 'string' },
      timeout: { type: 'string', default: '900' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  if (values.key !== 'ecdsa' && values.key !== 'rsa') throw new Error(`--key must be ecdsa or rsa, got ${JSON.stringify(values.key)}`);
  const count = positiveInt(values.count, 'count');
  return {
    count,
    objects: positiveInt(values.objects, 'objects', count),
    key: values.key,
    concurrency: positiveInt(values.concurrency, 'concurrency'),
    cpuProfileDir: values['cpu-prof-dir'],
    timeoutMs: positiveInt(values.timeout, 'timeout') * 1000,
    keep: values.keep,
  };
}

const csrs = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `count` PEM requests for users bench-<i> in group bench, on keys of one kind. */
async function makeRequests(count: number, key: Options['key']): Promise<string[]> {
  const algorithm =
    key === 'rsa'
      ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 }
      : { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const requests: string[] = [];
  // Keys are the slow part with RSA: a few distinct ones serve every request (signing cost does not depend on it).
  const keys = await Promise.all(Array.from({ length: Math.min(count, 16) }, () => webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])));
  for (let i = 0; i < count; i++) {
    const request = await x509.Pkcs10CertificateRequestGenerator.create(
      { name: `O=bench,CN=bench-${i}`, keys: keys[i % keys.length]!, signingAlgorithm: algorithm },
      webcrypto,
    );
    requests.push(request.toString('pem'));
  }
  return requests;
}

const csrBody = (name: string, pem: string): Buffer =>
  json({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(pem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['digital signature', 'client auth'] },
  });

interface ListedCSR {
  metadata: { name: string };
  status?: { certificate?: string };
}

/** How many requests named with `prefix` are issued. */
async function issuedCount(admin: Http2Client, prefix: string): Promise<number> {
  const res = await expectStatus(admin.request('GET', csrs), 200);
  const list = JSON.parse(res.body.toString('utf8')) as { items: ListedCSR[] };
  return list.items.filter((c) => c.metadata.name.startsWith(prefix) && c.status?.certificate).length;
}

/** Creates the request `name` and approves it through `approval`, as `kubectl certificate approve` does. */
async function createApproved(admin: Http2Client, name: string, pem: string): Promise<void> {
  const created = await expectStatus(admin.request('POST', csrs, csrBody(name, pem)), 201);
  const csr = JSON.parse(created.body.toString('utf8')) as { status?: Record<string, unknown> };
  csr.status = {
    conditions: [{ type: 'Approved', status: 'True', reason: 'BenchApprove', message: 'approved by the benchmark' }],
  };
  await expectStatus(admin.request('PUT', `${csrs}/${name}/approval`, json(csr)), 200);
}

/** Runs `command` and resolves when it exits 0; rejects with its stderr otherwise. */
function exec(command: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const err: Buffer[] = [];
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}: ${Buffer.concat(err).toString()}`))));
  });
}

async function run(opts: Options, cleanup: Cleanup): Promise<boolean> {
  const cluster = await startCluster({ keep: opts.keep, cpuProfileDir: undefined }, cleanup, 'corral-bench-csr-');
  const dataDir = join(cluster.dir, 'apiserver');
  const caCert = join(dataDir, 'pki', 'ca.crt');
  const caKey = join(dataDir, 'pki', 'ca.key');
  const admin = new Http2Client(cluster.api.url, cluster.api.tls);
  cleanup.push(() => admin.close());

  process.stderr.write(`making ${opts.count} ${opts.key} requests\n`);
  const requests = await makeRequests(opts.count, opts.key);

  // The controller manager: csrsigning only, each controller as its service account. The built
  // JavaScript is what users run (and its memory is what they see); from source only without a build.
  const built = join(repoRoot, 'dist', 'controllers', 'main.js');
  const managerEntry = existsSync(built) ? [built] : ['--import', 'tsx', 'controllers/main.ts'];
  if (!existsSync(built))
    process.stderr.write('dist/ is not built (npm run build): the controller manager runs from source through tsx, which inflates its memory\n');
  const logFile = join(cluster.dir, 'controller-manager.log');
  const log = createWriteStream(logFile, { flags: 'a' });
  const manager = spawn(
    process.execPath,
    [
      ...(opts.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfileDir}`] : []),
      ...managerEntry,
      `--kubeconfig=${join(dataDir, 'controller-manager.kubeconfig')}`,
      `--cluster-signing-cert-file=${caCert}`,
      `--cluster-signing-key-file=${caKey}`,
      '--use-service-account-credentials=true',
      '--controllers=csrsigning',
      '--leader-elect=false',
      '--secure-port=0',
      '--log-level=warn',
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  manager.stdout.pipe(log);
  manager.stderr.pipe(log);
  const stopManager = async (): Promise<void> => {
    if (manager.exitCode === null) {
      const exited = new Promise((resolve) => manager.once('exit', resolve));
      manager.kill('SIGTERM');
      await exited;
    }
    log.end();
  };
  cleanup.push(stopManager);
  const managerPid = manager.pid!;
  process.stderr.write(`controller manager pid ${managerPid}, log ${logFile}\n`);

  // Warm-up and idle reading: one request signed proves the manager runs and its cache is synced.
  await createApproved(admin, 'warmup', requests[0]!);
  while ((await issuedCount(admin, 'warmup')) < 1) {
    if (manager.exitCode !== null) throw new Error(`the controller manager exited (${manager.exitCode}); see ${logFile}`);
    await sleep(100);
  }
  await sleep(2000);
  const idle = readProcess(managerPid);

  // The controller: create and approve every request at once, until every one is issued.
  const cpuBefore = readProcess(managerPid).cpuMs;
  const started = performance.now();
  const created = await runPool(opts.count, opts.concurrency, (i) => createApproved(admin, `sign-${i}`, requests[i]!));
  if (created.errors) throw new Error(`creating requests failed: ${created.firstError}`);
  const submittedMs = performance.now() - started;
  while ((await issuedCount(admin, 'sign-')) < opts.count) await sleep(500);
  const controllerMs = performance.now() - started;
  const controllerCpuMs = readProcess(managerPid).cpuMs - cpuBefore;

  // openssl x509 -req on the same requests with the same CA, one process per request.
  const opensslDir = join(cluster.dir, 'openssl');
  mkdirSync(opensslDir);
  requests.forEach((pem, i) => writeFileSync(join(opensslDir, `${i}.csr`), pem));
  const parallel = availableParallelism();
  const opensslStarted = performance.now();
  const signed = await runPool(opts.count, parallel, (i) =>
    exec('openssl', [
      'x509',
      '-req',
      '-in',
      join(opensslDir, `${i}.csr`),
      '-CA',
      caCert,
      '-CAkey',
      caKey,
      '-set_serial',
      String(i + 1),
      '-days',
      '365',
      '-out',
      join(opensslDir, `${i}.crt`),
    ]),
  );
  if (signed.errors) throw new Error(`openssl failed: ${signed.firstError}`);
  const opensslMs = performance.now() - opensslStarted;
  if (!existsSync(join(opensslDir, `${opts.count - 1}.crt`))) throw new Error('openssl wrote no certificate');

  // The signing code alone, in this process: parse, policy, sign, PEM.
  const ca = await loadCA(readFileSync(caCert, 'utf8'), readFileSync(caKey, 'utf8'));
  const usages = certificateUsages(['digital signature', 'client auth']);
  const inProcessStarted = performance.now();
  await runPool(opts.count, parallel, async (i) => {
    const req = parseCertificateRequest(Buffer.from(requests[i]!).toString('base64'));
    await issueCertificate(ca, req, { usages, expirationSeconds: undefined, maxDurationMs: 365 * 24 * 3600_000, nowMs: Date.now() });
  });
  const inProcessMs = performance.now() - inProcessStarted;

  // Memory with `objects` requests cached: the rest created pending, then one approved as a marker;
  // the informer applies events in order, so once the marker is issued every request is cached.
  const pending = opts.objects - opts.count - 1;
  const filled = await runPool(pending, opts.concurrency, async (i) => {
    await expectStatus(admin.request('POST', csrs, csrBody(`pending-${i}`, requests[i % requests.length]!)), 201);
  });
  if (filled.errors) throw new Error(`creating pending requests failed: ${filled.firstError}`);
  await createApproved(admin, 'marker', requests[0]!);
  while ((await issuedCount(admin, 'marker')) < 1) await sleep(200);
  await sleep(2000);
  const full = readProcess(managerPid);

  const perCert = (ms: number): string => fixed(ms / opts.count, 2);
  process.stdout.write(
    `\n${opts.count} ${opts.key} requests for kubernetes.io/kube-apiserver-client, ${parallel} cores\n\n` +
      formatTable(
        ['signer', 'wall ms', 'ms / certificate', 'certificates / s', 'vs openssl'],
        [
          [
            'controller manager (create + approve → issued)',
            fixed(controllerMs, 0),
            perCert(controllerMs),
            fixed((opts.count * 1000) / controllerMs, 0),
            fixed(controllerMs / opensslMs, 2),
          ],
          [`openssl x509 -req (${parallel} at once)`, fixed(opensslMs, 0), perCert(opensslMs), fixed((opts.count * 1000) / opensslMs, 0), '1.00'],
          [
            `signing code in-process (${parallel} at once)`,
            fixed(inProcessMs, 0),
            perCert(inProcessMs),
            fixed((opts.count * 1000) / inProcessMs, 0),
            fixed(inProcessMs / opensslMs, 2),
          ],
        ],
      ) +
      `\nrequests created and approved in ${fixed(submittedMs, 0)} ms; controller manager CPU while signing: ${fixed(controllerCpuMs, 0)} ms (${fixed(controllerCpuMs / opts.count, 2)} ms / certificate)\n\n` +
      formatTable(
        ['controller manager', 'RSS', 'peak RSS'],
        [
          ['idle (caches synced)', mib(idle.rssKiB * 1024), mib(idle.hwmKiB * 1024)],
          [`${opts.objects + 1} CSRs cached`, mib(full.rssKiB * 1024), mib(full.hwmKiB * 1024)],
        ],
      ),
  );
  if (opts.cpuProfileDir) {
    await stopManager();
    const profile = mainThreadProfile(opts.cpuProfileDir, managerPid);
    process.stdout.write(`\n\ncontroller manager CPU profile (whole run) ${profile ?? 'missing'}\n`);
    if (profile) process.stdout.write(`${formatProfileSummary(summarizeCpuProfile(profile, undefined))}\n`);
  }
  return true;
}

void benchMain(usage, parse, run);
