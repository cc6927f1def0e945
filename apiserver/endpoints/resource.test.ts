/**
 * The verb handlers in process: handleResource with a Registry over the in-memory etcd, requests
 * built as the server builds them (parseRequestInfo), failures turned into their Status as the
 * server does (toStatusError). Status codes, Status bodies, representations, and that a refused
 * request writes nothing.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { toStatusError } from '../../shared/api/errors.ts';
import { isObject, type Status } from '../../shared/api/types.ts';
import { AdmissionChain } from '../admission/admission.ts';
import { configMapDefinition } from '../registry/core/configmap.ts';
import { Registry } from '../registry/registry.ts';
import { parseRequestInfo } from '../server/requestinfo.ts';
import { MemoryEtcd } from '../testing/memory-etcd.ts';
import { handleResource } from './resource.ts';

/** ConfigMaps again, under another name, with only the read verbs. */
const readOnlyMaps = { ...configMapDefinition, plural: 'readonlymaps', singular: 'readonlymap', kind: 'ReadOnlyMap', verbs: ['get', 'list'] as const };

interface Answer {
  status: number;
  contentType: string;
  /** The body decoded (JSON or YAML), or the bytes of another format. */
  body: Record<string, unknown>;
  raw: string | Uint8Array;
  warnings: string[];
}

function server(): { storage: MemoryEtcd; send: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer> } {
  const storage = new MemoryEtcd();
  const registry = new Registry([configMapDefinition, readOnlyMaps], storage, new AdmissionChain([]), () => true);
  const send = async (method: string, target: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const url = new URL(target, 'https://in-process');
    const payload = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    try {
      const response = await handleResource(registry, {
        info: parseRequestInfo(method, url.pathname, url.searchParams),
        query: url.searchParams,
        headers: { accept: 'application/json', 'content-type': 'application/json', ...headers },
        readBody: async () => Buffer.from(payload),
        context: { user: { username: 'admin', groups: ['system:masters'] }, now: new Date() },
      });
      if ('start' in response) throw new Error('a watch answered a plain request');
      const raw = response.body.body;
      const contentType = response.body.contentType;
      const text = typeof raw === 'string' ? raw : contentType.includes('protobuf') ? '' : Buffer.from(raw).toString('utf8');
      const decoded: unknown = contentType.includes('yaml') ? parseYaml(text) : text ? JSON.parse(text) : {};
      return { status: response.status, contentType, body: isObject(decoded) ? decoded : {}, raw, warnings: response.warnings };
    } catch (err) {
      const status: Status = toStatusError(err).status;
      return { status: status.code ?? 500, contentType: 'application/json', body: { ...status }, raw: JSON.stringify(status), warnings: [] };
    }
  };
  return { storage, send };
}

const cms = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string, data: Record<string, string> = { a: '1' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

function expectStatus(answer: Answer, code: number, reason: string, message: string): void {
  assert.equal(answer.status, code, JSON.stringify(answer.body));
  assert.equal(answer.body['kind'], 'Status');
  assert.equal(answer.body['status'], 'Failure');
  assert.equal(answer.body['reason'], reason);
  assert.equal(answer.body['code'], code);
  assert.equal(answer.body['message'], message);
}

describe('handleResource', () => {
  it('creates (201), reads (200) and lists an object as JSON', async () => {
    const { send } = server();
    const created = await send('POST', cms, configMap('one'));
    assert.equal(created.status, 201);
    assert.equal(created.contentType, 'application/json');
    assert.equal(created.body['kind'], 'ConfigMap');
    const read = await send('GET', `${cms}/one`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, created.body);
    const list = await send('GET', cms);
    assert.equal(list.body['kind'], 'ConfigMapList');
    assert.deepEqual(
      (list.body['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name),
      ['one'],
    );
  });

  it('serves YAML, protobuf and Table when asked', async () => {
    const { send } = server();
    const created = await send('POST', cms, configMap('formats'));
    const yaml = await send('GET', `${cms}/formats`, undefined, { accept: 'application/yaml' });
    assert.equal(yaml.contentType, 'application/yaml');
    assert.deepEqual(yaml.body, created.body);
    const protobuf = await send('GET', `${cms}/formats`, undefined, { accept: 'application/vnd.kubernetes.protobuf' });
    assert.equal(protobuf.contentType, 'application/vnd.kubernetes.protobuf');
    assert.ok(protobuf.raw instanceof Uint8Array);
    assert.deepEqual([...protobuf.raw.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00], 'the k8s\\0 envelope');
    const table = await send('GET', cms, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.equal(table.body['kind'], 'Table');
    assert.deepEqual(
      (table.body['rows'] as { cells: unknown[] }[]).map((r) => r.cells[0]),
      ['formats'],
    );
  });

  it('refuses an unacceptable Accept with 406 before it writes', async () => {
    const { storage, send } = server();
    const revision = await storage.currentRevision();
    const answer = await send('POST', cms, configMap('html'), { accept: 'text/html' });
    assert.equal(answer.status, 406);
    assert.equal(answer.body['reason'], 'NotAcceptable');
    assert.equal(await storage.currentRevision(), revision);
  });

  it("answers a missing object with upstream's 404 Status", async () => {
    const { send } = server();
    const answer = await send('GET', `${cms}/missing`);
    assert.deepEqual(answer.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "missing" not found',
      reason: 'NotFound',
      details: { name: 'missing', kind: 'configmaps' },
      code: 404,
    });
  });

  it('answers an unknown resource and a cluster path of a namespaced object with 404 NotFound', async () => {
    const { send } = server();
    expectStatus(await send('GET', '/api/v1/namespaces/default/nothings'), 404, 'NotFound', 'the server could not find the requested resource');
    expectStatus(await send('GET', '/api/v1/configmaps/x'), 404, 'NotFound', 'the server could not find the requested resource');
  });

  it('answers 409 for an existing name and for a stale resourceVersion', async () => {
    const { send } = server();
    const created = await send('POST', cms, configMap('dup'));
    expectStatus(await send('POST', cms, configMap('dup')), 409, 'AlreadyExists', 'configmaps "dup" already exists');
    assert.equal((await send('PUT', `${cms}/dup`, { ...created.body, data: { a: '2' } })).status, 200);
    expectStatus(
      await send('PUT', `${cms}/dup`, { ...created.body, data: { a: '3' } }),
      409,
      'Conflict',
      'Operation cannot be fulfilled on configmaps "dup": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('answers an invalid object with 422 and its causes, writing nothing', async () => {
    const { storage, send } = server();
    const revision = await storage.currentRevision();
    const answer = await send('POST', cms, configMap('Not_A_Name'));
    assert.equal(answer.status, 422);
    assert.equal(answer.body['reason'], 'Invalid');
    const details = answer.body['details'] as { kind: string; causes: { field: string }[] };
    assert.equal(details.kind, 'ConfigMap');
    assert.deepEqual(
      details.causes.map((c) => c.field),
      ['metadata.name'],
    );
    assert.equal(await storage.currentRevision(), revision);
  });

  it('answers a verb the resource does not serve with 405', async () => {
    const { send } = server();
    const message = 'the server does not allow this method on the requested resource';
    expectStatus(await send('DELETE', '/api/v1/namespaces/default/readonlymaps/x'), 405, 'MethodNotAllowed', message);
    expectStatus(await send('POST', '/api/v1/namespaces/default/readonlymaps', configMap('x')), 405, 'MethodNotAllowed', message);
    expectStatus(await send('PUT', cms, configMap('x')), 405, 'MethodNotAllowed', message);
  });

  it('patches with merge and JSON patches; a failed test operation is 422', async () => {
    const { send } = server();
    await send('POST', cms, configMap('patch'));
    const merged = await send('PATCH', `${cms}/patch`, { data: { b: '2' } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(merged.status, 200);
    assert.deepEqual(merged.body['data'], { a: '1', b: '2' });
    const jsonPatch = { 'content-type': 'application/json-patch+json' };
    const patched = await send('PATCH', `${cms}/patch`, [{ op: 'replace', path: '/data/a', value: 'x' }], jsonPatch);
    assert.deepEqual(patched.body['data'], { a: 'x', b: '2' });
    const failed = await send('PATCH', `${cms}/patch`, [{ op: 'test', path: '/data/a', value: 'nope' }], jsonPatch);
    assert.equal(failed.status, 422);
    const unsupported = await send('PATCH', `${cms}/patch`, {}, { 'content-type': 'text/plain' });
    assert.equal(unsupported.status, 415);
    expectStatus(
      await send('PATCH', `${cms}/absent`, { data: {} }, { 'content-type': 'application/merge-patch+json' }),
      404,
      'NotFound',
      'configmaps "absent" not found',
    );
  });

  it('answers DELETE with a Success Status naming the object, then 404', async () => {
    const { send } = server();
    const created = await send('POST', cms, configMap('gone'));
    const uid = (created.body['metadata'] as { uid: string }).uid;
    const deleted = await send('DELETE', `${cms}/gone`);
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'gone', kind: 'configmaps', uid } });
    assert.equal((await send('DELETE', `${cms}/gone`)).status, 404);
  });

  it('writes nothing on dryRun=All, and refuses another dryRun value with 422', async () => {
    const { storage, send } = server();
    const revision = await storage.currentRevision();
    const dry = await send('POST', `${cms}?dryRun=All`, configMap('dry'));
    assert.equal(dry.status, 201);
    assert.equal(await storage.currentRevision(), revision);
    assert.equal((await send('GET', `${cms}/dry`)).status, 404);
    const bad = await send('POST', `${cms}?dryRun=Some`, configMap('dry'));
    assert.equal(bad.status, 422);
    assert.equal(bad.body['message'], 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"');
  });

  it('pages a list with limit and continue', async () => {
    const { send } = server();
    for (const name of ['l1', 'l2', 'l3']) await send('POST', cms, configMap(name));
    const first = await send('GET', `${cms}?limit=2`);
    const meta = first.body['metadata'] as { continue: string; remainingItemCount: number };
    assert.equal(meta.remainingItemCount, 1);
    const rest = await send('GET', `${cms}?limit=2&continue=${encodeURIComponent(meta.continue)}`);
    assert.deepEqual(
      (rest.body['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name),
      ['l3'],
    );
    assert.equal((await send('GET', `${cms}?limit=x`)).status, 400);
  });
});

describe('handleResource DeleteOptions propagation', () => {
  it('keeps an object deleted with propagationPolicy=Foreground (body) and answers with it', async () => {
    const { send } = server();
    await send('POST', cms, configMap('fg'));
    const answer = await send('DELETE', `${cms}/fg`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' });
    assert.equal(answer.status, 200);
    assert.equal(answer.body['kind'], 'ConfigMap');
    assert.deepEqual((answer.body['metadata'] as { finalizers: string[] }).finalizers, ['foregroundDeletion']);
  });

  it('answers 202 when orphanDependents=false leaves the object for its finalizers', async () => {
    const { send } = server();
    await send('POST', cms, { ...configMap('kept'), metadata: { name: 'kept', finalizers: ['example.com/f'] } });
    const answer = await send('DELETE', `${cms}/kept?orphanDependents=false`);
    assert.equal(answer.status, 202);
    assert.deepEqual((answer.body['metadata'] as { finalizers: string[] }).finalizers, ['example.com/f']);
  });

  it('refuses orphanDependents with propagationPolicy, an unknown policy and a mistyped field', async () => {
    const { send } = server();
    await send('POST', cms, configMap('both'));
    expectStatus(
      await send('DELETE', `${cms}/both?orphanDependents=true&propagationPolicy=Orphan`),
      422,
      'Invalid',
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
    );
    expectStatus(
      await send('DELETE', `${cms}/both`, { propagationPolicy: 'Sideways' }),
      422,
      'Invalid',
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    const mistyped = await send('DELETE', `${cms}/both`, { orphanDependents: 'yes' });
    assert.equal(mistyped.status, 400);
    assert.match(String(mistyped.body['message']), /cannot unmarshal string into Go struct field DeleteOptions\.orphanDependents of type bool/);
    assert.equal((await send('GET', `${cms}/both`)).status, 200);
  });
});
