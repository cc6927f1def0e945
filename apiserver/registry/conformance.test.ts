/**
 * The conformance suite: one table of checks run against every kind the API server serves, over
 * real HTTPS, on the embedded store. It walks the served registry (all group versions enabled), so a
 * kind added later is covered as soon as conformance-fixtures.ts has an entry for it, and a served
 * kind without one fails. Expectations are upstream kube-apiserver 1.32's, never read back from
 * corral's own definitions.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { isObject, type KubeObject } from '../../shared/api/types.ts';
import { startApiServer } from '../app.ts';
import { configFromFlags, parseFlags } from '../config.ts';
import { createTestClient, type ResponseBody, type TestResponse } from '../testing/client.ts';
import { openWatch, revisionOf, type WatchEvent } from '../testing/watch-stream.ts';
import { pkiPaths } from '../auth/pki-setup.ts';
import { fixtureKey, fixtures, reviewFixtures, type ReadOnlyFixture, type ReviewFixture, type StoredFixture } from './conformance-fixtures.ts';
import { apiVersionOf, type ResourceDefinition, type Verb } from './definition.ts';

/**
 * Behaviour of corral that differs from upstream, reported to the owners of the server code and
 * left to them: the named tests run as todo, for the listed kinds only when `kinds` is given.
 */
interface KnownServerBug {
  test: string;
  kinds?: readonly string[];
  reason: string;
}

const knownServerBugs: readonly KnownServerBug[] = [];

function todo(key: string, name: string): { todo?: string } {
  const bug = knownServerBugs.find((b) => b.test === name && (!b.kinds || b.kinds.includes(key)));
  return bug ? { todo: bug.reason } : {};
}

const workDir = mkdtempSync(join(tmpdir(), 'corral-conformance-'));
const dataDir = join(workDir, 'data');
const server = await startApiServer(
  configFromFlags(parseFlags(['--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dataDir}`, '--runtime-config=api/all=true'])),
  pino({ level: 'silent' }),
).catch((err: unknown) => {
  rmSync(workDir, { recursive: true, force: true });
  throw err;
});
const client = createTestClient(server.url, dataDir);
const adminPki = pkiPaths(dataDir);
const watchTls = { ca: readFileSync(adminPki.caCert, 'utf8'), cert: readFileSync(adminPki.adminCert, 'utf8'), key: readFileSync(adminPki.adminKey, 'utf8') };

after(async () => {
  client.close();
  await server.close();
  rmSync(workDir, { recursive: true, force: true });
});

const mergePatch = { 'content-type': 'application/merge-patch+json' };
const jsonPatch = { 'content-type': 'application/json-patch+json' };

const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse> =>
  client.request(method, path, body, headers);

// ---- paths and names ----

function groupRoot(def: ResourceDefinition): string {
  return def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`;
}

function collectionPath(def: ResourceDefinition, namespace: string): string {
  return def.namespaced && namespace ? `${groupRoot(def)}/namespaces/${namespace}/${def.plural}` : `${groupRoot(def)}/${def.plural}`;
}

/** `configmaps`, `csidrivers.storage.k8s.io`: how upstream names a resource in messages. */
function qualifiedResource(def: ResourceDefinition): string {
  return def.group ? `${def.plural}.${def.group}` : def.plural;
}

/** `ConfigMap`, `CSIDriver.storage.k8s.io`: how upstream names a kind in Invalid messages. */
function qualifiedKind(def: ResourceDefinition): string {
  return def.group ? `${def.kind}.${def.group}` : def.kind;
}

/** One namespace per namespaced kind, so that its lists hold only its own objects. */
function namespaceFor(key: string): string {
  return `conf-${key.replace(/[^a-z0-9]+/g, '-')}`.slice(0, 63).replace(/-+$/, '');
}

// ---- assertions ----

function expectCode(res: TestResponse, code: number): void {
  assert.equal(res.status, code, `expected ${code}, got ${res.status}: ${res.text}`);
}

/** A failure Status with the given code, reason and (when given) message. */
function expectFailure(res: TestResponse, code: number, reason: string, message?: string): void {
  expectCode(res, code);
  assert.equal(res.body.kind, 'Status');
  assert.equal(res.body.apiVersion, 'v1');
  assert.equal(res.body.status, 'Failure');
  assert.equal(res.body.reason, reason);
  assert.equal(res.body.code, code);
  if (message !== undefined) assert.equal(res.body.message, message);
}

/** The details of a Status about one object: name, group (empty for the core group) and kind. */
function expectDetails(body: ResponseBody, name: string, group: string, kind: string): void {
  assert.equal(body.details?.name, name);
  assert.equal(body.details?.group ?? '', group);
  assert.equal(body.details?.kind, kind);
}

/** Every field of `expected` is in `actual` with the same value; arrays must match in length. */
function assertSubset(actual: unknown, expected: unknown, path = '$'): void {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: expected an array, got ${JSON.stringify(actual)}`);
    assert.equal(actual.length, expected.length, `${path}: ${JSON.stringify(actual)} vs ${JSON.stringify(expected)}`);
    expected.forEach((item, i) => assertSubset(actual[i], item, `${path}[${i}]`));
  } else if (isObject(expected)) {
    assert.ok(isObject(actual), `${path}: expected an object, got ${JSON.stringify(actual)}`);
    for (const [field, value] of Object.entries(expected)) assertSubset(actual[field], value, `${path}.${field}`);
  } else {
    assert.deepEqual(actual, expected, path);
  }
}

/** The kind's own fields: everything but type, metadata and status. */
function ownFields(obj: KubeObject | ResponseBody): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata: _m, status: _s, ...rest } = obj;
  return rest;
}

function asObject(body: ResponseBody): KubeObject {
  assert.ok(isObject(body.metadata), `not an object: ${JSON.stringify(body)}`);
  return body as KubeObject;
}

function names(body: ResponseBody): string[] {
  assert.ok(Array.isArray(body.items), `not a list: ${JSON.stringify(body)}`);
  return body.items.map((item) => item.metadata.name ?? '');
}

/** Upstream's answer to a verb the resource does not serve (go-restful has no route for it). */
const methodNotAllowedMessage = 'the server does not allow this method on the requested resource';
const pathNotFoundMessage = 'the server could not find the requested resource';

/** How each verb is sent, for the 405 checks. */
function verbRequest(verb: Verb, collection: string, item: string): { method: string; path: string; body?: unknown; headers?: Record<string, string> } {
  switch (verb) {
    case 'create':
      return { method: 'POST', path: collection, body: { metadata: { name: 'x' } } };
    case 'update':
      return { method: 'PUT', path: item, body: { metadata: { name: 'x' } } };
    case 'patch':
      return { method: 'PATCH', path: item, body: {}, headers: mergePatch };
    case 'delete':
      return { method: 'DELETE', path: item };
    case 'deletecollection':
      return { method: 'DELETE', path: collection };
    case 'get':
      return { method: 'GET', path: item };
    case 'list':
    case 'watch':
      return { method: 'GET', path: collection };
  }
}

const refusableVerbs: readonly Verb[] = ['create', 'update', 'patch', 'delete', 'deletecollection', 'get', 'list'];

// ---- the suite ----

function discoveryTest(def: ResourceDefinition, key: string, expected: { namespaced: boolean; verbs: readonly Verb[] }): void {
  it('is in discovery with upstream scope and verbs', todo(key, 'is in discovery with upstream scope and verbs'), async () => {
    const res = await api('GET', groupRoot(def));
    expectCode(res, 200);
    const resources = (res.body.resources ?? []) as { name: string; namespaced: boolean; kind: string; verbs: string[] }[];
    const entry = resources.find((r) => r.name === def.plural);
    assert.ok(entry, `${def.plural} is missing from ${groupRoot(def)}`);
    assert.equal(entry.namespaced, expected.namespaced);
    assert.equal(entry.kind, def.kind);
    assert.deepEqual([...entry.verbs].sort(), [...expected.verbs].sort());
  });
}

function refusedVerbTests(key: string, served: readonly Verb[], collection: string, item: string): void {
  for (const verb of refusableVerbs.filter((v) => !served.includes(v))) {
    const request = verbRequest(verb, collection, item);
    it(`refuses ${verb} with 405`, async () => {
      const res = await api(request.method, request.path, request.body, request.headers);
      expectFailure(res, 405, 'MethodNotAllowed');
    });
    it(`refuses ${verb} with upstream's message`, todo(key, `refuses ${verb} with upstream's message`), async () => {
      const res = await api(request.method, request.path, request.body, request.headers);
      expectFailure(res, 405, 'MethodNotAllowed', methodNotAllowedMessage);
    });
  }
}

function readOnlyKindTests(def: ResourceDefinition, fixture: ReadOnlyFixture, key: string): void {
  const collection = collectionPath(def, '');
  const t = (name: string): { todo?: string } => todo(key, name);
  discoveryTest(def, key, fixture);

  it('lists the expected items', t('lists the expected items'), async () => {
    const res = await api('GET', collection);
    expectCode(res, 200);
    assert.equal(res.body.kind, `${def.kind}List`);
    assert.equal(res.body.apiVersion, apiVersionOf(def));
    for (const { name, subset } of fixture.expected) {
      const item = res.body.items?.find((i) => i.metadata.name === name);
      assert.ok(item, `${name} is not listed: ${res.text}`);
      assertSubset(item, subset);
    }
  });

  if (fixture.deprecationWarning !== undefined) {
    const warning = `299 - ${JSON.stringify(fixture.deprecationWarning)}`;
    it('warns that it is deprecated', t('warns that it is deprecated'), async () => {
      const res = await api('GET', collection);
      assert.ok(res.warnings.includes(warning), `warnings: ${JSON.stringify(res.warnings)}`);
    });
  }

  it('gets one item', t('gets one item'), async () => {
    for (const { name, subset } of fixture.expected) {
      const res = await api('GET', `${collection}/${name}`);
      expectCode(res, 200);
      assert.equal(res.body.kind, def.kind);
      assert.equal(res.body.apiVersion, apiVersionOf(def));
      assert.equal(res.body.metadata?.name, name);
      assertSubset(res.body, subset);
    }
  });

  it('answers a missing item with 404 NotFound', t('answers a missing item with 404 NotFound'), async () => {
    const res = await api('GET', `${collection}/missing`);
    expectFailure(res, 404, 'NotFound', `${qualifiedResource(def)} "missing" not found`);
    expectDetails(res.body, 'missing', def.group, def.plural);
  });

  refusedVerbTests(key, fixture.verbs, collection, `${collection}/${fixture.expected[0]?.name ?? 'x'}`);
}

function reviewKindTests(def: ResourceDefinition, fixture: ReviewFixture, key: string): void {
  const ns = def.namespaced ? namespaceFor(key) : '';
  const collection = collectionPath(def, ns);
  const t = (name: string): { todo?: string } => todo(key, name);
  discoveryTest(def, key, fixture);

  if (ns) {
    before(async () => {
      expectCode(await api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }), 201);
    });
  }

  it('answers a request with 201 and its status', t('answers a request with 201 and its status'), async () => {
    const res = await api('POST', collection, fixture.request(ns));
    expectCode(res, 201);
    assert.equal(res.body.kind, def.kind);
    assert.equal(res.body.apiVersion, apiVersionOf(def));
    assertSubset(res.body, fixture.answer);
  });

  const { refused } = fixture;
  if (refused) {
    it('refuses a request as upstream does', t('refuses a request as upstream does'), async () => {
      const expected = refused(ns);
      const res = await api('POST', collection, expected.object);
      expectFailure(res, expected.code, expected.reason, expected.message);
      if (expected.causes) {
        assert.deepEqual(
          res.body.details?.causes?.map((c) => ({ field: c.field, reason: c.reason, message: c.message })),
          expected.causes,
        );
      }
    });
  }

  // Nothing is stored: reads have no route.
  refusedVerbTests(key, fixture.verbs, collection, `${collection}/x`);
}

function storedKindTests(def: ResourceDefinition, fixture: StoredFixture, key: string): void {
  const ns = def.namespaced ? namespaceFor(key) : '';
  const collection = collectionPath(def, ns);
  const item = (name: string, subresource?: string): string => `${collection}/${name}${subresource ? `/${subresource}` : ''}`;
  const qr = qualifiedResource(def);
  const t = (name: string): { todo?: string } => todo(key, name);
  const has = (verb: Verb): boolean => fixture.verbs.includes(verb);

  /** A valid object; it always carries a label, so that JSON patches can add to the labels. */
  const make = (name: string, labels: Record<string, string> = {}): KubeObject => {
    const obj = fixture.valid(name, ns);
    obj.metadata.labels = { ...obj.metadata.labels, conformance: 'true', ...labels };
    return obj;
  };
  const create = async (name: string, labels: Record<string, string> = {}): Promise<KubeObject> => {
    const res = await api('POST', collection, make(name, labels));
    expectCode(res, 201);
    return asObject(res.body);
  };
  const get = (name: string): Promise<TestResponse> => api('GET', item(name));
  const expectGone = async (name: string): Promise<void> => {
    const res = await get(name);
    expectFailure(res, 404, 'NotFound', `${qr} "${name}" not found`);
  };
  /** Completes deletion of an object its first DELETE only marked (Namespace). */
  const finish = async (name: string): Promise<void> => {
    if (!fixture.finalize) return;
    const current = await get(name);
    expectCode(current, 200);
    assert.ok(current.body.metadata?.deletionTimestamp, 'the object should be marked for deletion');
    const request = fixture.finalize(asObject(current.body));
    expectCode(await api(request.method, item(name, request.subresource), request.body), 200);
  };

  before(async () => {
    if (!ns) return;
    const res = await api('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    assert.ok(res.status === 201 || res.status === 409, res.text);
  });

  discoveryTest(def, key, fixture);

  it('creates an object with system metadata set', t('creates an object with system metadata set'), async () => {
    const sent = make('create');
    const res = await api('POST', collection, sent);
    expectCode(res, 201);
    const created = asObject(res.body);
    assert.equal(created.apiVersion, apiVersionOf(def));
    assert.equal(created.kind, def.kind);
    assert.equal(created.metadata.name, 'create');
    assert.equal(created.metadata.namespace, def.namespaced ? ns : undefined);
    assert.match(created.metadata.uid ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.match(created.metadata.creationTimestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(created.metadata.resourceVersion ?? '', /^\d+$/);
    assertSubset(created.metadata.labels, sent.metadata.labels);
    assertSubset(ownFields(created), ownFields(sent));
    const read = await get('create');
    expectCode(read, 200);
    assert.deepEqual(read.body, created);
  });

  it('refuses to create an existing object with 409 AlreadyExists', t('refuses to create an existing object with 409 AlreadyExists'), async () => {
    await create('exists');
    const res = await api('POST', collection, make('exists'));
    expectFailure(res, 409, 'AlreadyExists', `${qr} "exists" already exists`);
    expectDetails(res.body, 'exists', def.group, def.plural);
  });

  it('generates a name from generateName', t('generates a name from generateName'), async () => {
    const obj = make('');
    obj.metadata = { ...obj.metadata, generateName: 'gen-' };
    delete obj.metadata.name;
    const res = await api('POST', collection, obj);
    expectCode(res, 201);
    const name = res.body.metadata?.name ?? '';
    assert.match(name, /^gen-[a-z0-9]{5}$/);
    assert.equal(res.body.metadata?.generateName, 'gen-');
    expectCode(await get(name), 200);
  });

  it('answers a missing object with 404 NotFound', t('answers a missing object with 404 NotFound'), async () => {
    const res = await get('missing');
    expectFailure(res, 404, 'NotFound', `${qr} "missing" not found`);
    expectDetails(res.body, 'missing', def.group, def.plural);
  });

  it("answers a missing object with exactly upstream's Status", t("answers a missing object with exactly upstream's Status"), async () => {
    const res = await get('missing');
    assert.deepEqual(res.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `${qr} "missing" not found`,
      reason: 'NotFound',
      details: { name: 'missing', ...(def.group ? { group: def.group } : {}), kind: def.plural },
      code: 404,
    });
  });

  it('lists objects, by label and by field', t('lists objects, by label and by field'), async () => {
    await create('list-a', { which: 'a' });
    await create('list-b', { which: 'b' });
    const all = await api('GET', collection);
    expectCode(all, 200);
    assert.equal(all.body.kind, `${def.kind}List`);
    assert.equal(all.body.apiVersion, apiVersionOf(def));
    assert.match(all.body.metadata?.resourceVersion ?? '', /^\d+$/);
    assert.ok(names(all.body).includes('list-a') && names(all.body).includes('list-b'), all.text);

    const byLabel = await api('GET', `${collection}?labelSelector=${encodeURIComponent('which=a')}`);
    expectCode(byLabel, 200);
    assert.deepEqual(names(byLabel.body), ['list-a']);
    const bySetLabel = await api('GET', `${collection}?labelSelector=${encodeURIComponent('which in (a,b)')}`);
    assert.deepEqual(names(bySetLabel.body), ['list-a', 'list-b']);

    const byField = await api('GET', `${collection}?fieldSelector=${encodeURIComponent('metadata.name=list-b')}`);
    expectCode(byField, 200);
    assert.deepEqual(names(byField.body), ['list-b']);
    const notField = await api('GET', `${collection}?labelSelector=which&fieldSelector=${encodeURIComponent('metadata.name!=list-b')}`);
    assert.deepEqual(names(notField.body), ['list-a']);
  });

  it('pages a list with limit and continue on one snapshot', t('pages a list with limit and continue on one snapshot'), async () => {
    for (const n of [1, 2, 3]) await create(`page-${n}`);
    const full = await api('GET', collection);
    expectCode(full, 200);
    const expected = names(full.body);
    assert.ok(expected.length >= 3);

    const pages: ResponseBody[] = [];
    let token: string | undefined;
    do {
      const res = await api('GET', `${collection}?limit=1${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      expectCode(res, 200);
      pages.push(res.body);
      token = res.body.metadata?.continue;
      // Objects created after the first page are not in the snapshot the pages walk.
      if (pages.length === 1) await create('page-zz-late');
    } while (token && pages.length <= expected.length);

    assert.deepEqual(
      pages.map((p) => names(p).length),
      expected.map(() => 1),
      'one item a page',
    );
    assert.deepEqual(
      pages.flatMap((p) => names(p)),
      expected,
    );
    const first = pages[0]?.metadata?.resourceVersion;
    assert.deepEqual(
      pages.map((p) => p.metadata?.resourceVersion),
      expected.map(() => first),
      'every page has the resourceVersion of the first',
    );
    assert.deepEqual(
      pages.map((p) => p.metadata?.remainingItemCount),
      expected.map((_, i) => (i === expected.length - 1 ? undefined : expected.length - i - 1)),
      'remainingItemCount counts what the later pages hold; the last page has none',
    );
    assert.equal(pages.at(-1)?.metadata?.continue, undefined);
  });

  it('lists items without apiVersion and kind', t('lists items without apiVersion and kind'), async () => {
    await create('list-typed');
    const res = await api('GET', collection);
    expectCode(res, 200);
    for (const listed of res.body.items ?? []) {
      assert.equal(listed.apiVersion, undefined);
      assert.equal(listed.kind, undefined);
    }
  });

  it('updates with the current resourceVersion', t('updates with the current resourceVersion'), async () => {
    const created = await create('update');
    const changed = structuredClone(created);
    fixture.mutate(changed);
    const res = await api('PUT', item('update'), changed);
    expectCode(res, 200);
    const updated = asObject(res.body);
    assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.equal(updated.metadata.uid, created.metadata.uid);
    assertSubset(ownFields(updated), ownFields(changed));
    assertSubset(updated.metadata.labels, changed.metadata.labels);
    assert.deepEqual((await get('update')).body, updated);
  });

  it('refuses an update with a stale resourceVersion with 409 Conflict', t('refuses an update with a stale resourceVersion with 409 Conflict'), async () => {
    const created = await create('stale');
    const first = structuredClone(created);
    fixture.mutate(first);
    expectCode(await api('PUT', item('stale'), first), 200);
    const second = structuredClone(created);
    second.metadata.annotations = { ...second.metadata.annotations, second: 'true' };
    const res = await api('PUT', item('stale'), second);
    expectFailure(
      res,
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qr} "stale": the object has been modified; please apply your changes to the latest version and try again`,
    );
    expectDetails(res.body, 'stale', def.group, def.plural);
  });

  it(
    fixture.unconditionalUpdate ? 'updates without a resourceVersion' : 'refuses an update without a resourceVersion with 422 Invalid',
    t(fixture.unconditionalUpdate ? 'updates without a resourceVersion' : 'refuses an update without a resourceVersion with 422 Invalid'),
    async () => {
      const created = await create('uncond');
      const changed = structuredClone(created);
      fixture.mutate(changed);
      delete changed.metadata.resourceVersion;
      const res = await api('PUT', item('uncond'), changed);
      if (fixture.unconditionalUpdate) {
        expectCode(res, 200);
        assertSubset(ownFields(asObject(res.body)), ownFields(changed));
        return;
      }
      // Upstream names the resource, not the kind, in this one Invalid error; the bad value is a uint64.
      expectFailure(res, 422, 'Invalid', `${qr} "uncond" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`);
      expectDetails(res.body, 'uncond', def.group, def.plural);
      assert.deepEqual(res.body.details?.causes, [
        { reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' },
      ]);
    },
  );

  it(
    fixture.createOnUpdate ? 'creates a missing object on PUT' : 'refuses a PUT of a missing object with 404',
    t(fixture.createOnUpdate ? 'creates a missing object on PUT' : 'refuses a PUT of a missing object with 404'),
    async () => {
      const res = await api('PUT', item('put-new'), make('put-new'));
      if (fixture.createOnUpdate) {
        expectCode(res, 201);
        assert.equal(res.body.metadata?.name, 'put-new');
        assert.match(res.body.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
        expectCode(await get('put-new'), 200);
      } else {
        expectFailure(res, 404, 'NotFound', `${qr} "put-new" not found`);
        await expectGone('put-new');
      }
    },
  );

  it('applies a merge patch', t('applies a merge patch'), async () => {
    const created = await create('merge');
    const changed = structuredClone(created);
    fixture.mutate(changed);
    const patch = { ...ownFields(changed), metadata: { labels: changed.metadata.labels, annotations: { patched: 'merge' } } };
    const res = await api('PATCH', item('merge'), patch, mergePatch);
    expectCode(res, 200);
    const patched = asObject(res.body);
    assert.equal(patched.metadata.annotations?.patched, 'merge');
    assertSubset(ownFields(patched), ownFields(changed));
    assertSubset(patched.metadata.labels, changed.metadata.labels);
    assert.notEqual(patched.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.deepEqual((await get('merge')).body, patched);
  });

  it('applies a JSON patch', t('applies a JSON patch'), async () => {
    const created = await create('json');
    const patch = [
      { op: 'test', path: '/metadata/name', value: 'json' },
      { op: 'add', path: '/metadata/labels/patched', value: 'json' },
    ];
    const res = await api('PATCH', item('json'), patch, jsonPatch);
    expectCode(res, 200);
    const patched = asObject(res.body);
    assert.equal(patched.metadata.labels?.patched, 'json');
    assert.notEqual(patched.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.deepEqual(ownFields(patched), ownFields(created));
  });

  // metadata.generation: upstream's strategies of kinds that count spec changes set 1 on create and
  // add one per spec change; every other kind leaves it unset.
  const createdGeneration = fixture.tracksGeneration ? 1 : undefined;

  it('sets metadata.generation on create as upstream does', t('sets metadata.generation on create as upstream does'), async () => {
    const created = await create('gen-create');
    assert.equal(created.metadata.generation, createdGeneration);
    assert.equal((await get('gen-create')).body.metadata?.generation, createdGeneration);
  });

  it('moves metadata.generation on a spec change only', t('moves metadata.generation on a spec change only'), async () => {
    const created = await create('gen-update');
    const changed = structuredClone(created);
    fixture.mutate(changed);
    const res = await api('PUT', item('gen-update'), changed);
    expectCode(res, 200);
    const updated = asObject(res.body);
    assert.equal(updated.metadata.generation, fixture.tracksGeneration ? 2 : undefined);
    // A change of metadata alone.
    const annotated = structuredClone(updated);
    annotated.metadata.annotations = { ...annotated.metadata.annotations, generation: 'same' };
    const metadataOnly = await api('PUT', item('gen-update'), annotated);
    expectCode(metadataOnly, 200);
    assert.equal(metadataOnly.body.metadata?.annotations?.generation, 'same');
    assert.equal(metadataOnly.body.metadata?.generation, updated.metadata.generation);
    // A write that changes nothing: no new version, no new generation.
    const same = asObject(metadataOnly.body);
    const noop = await api('PUT', item('gen-update'), same);
    expectCode(noop, 200);
    assert.equal(noop.body.metadata?.resourceVersion, same.metadata.resourceVersion);
    assert.equal(noop.body.metadata?.generation, updated.metadata.generation);
    assert.equal((await get('gen-update')).body.metadata?.generation, updated.metadata.generation);
  });

  it('ignores a metadata.generation sent on update', t('ignores a metadata.generation sent on update'), async () => {
    const created = await create('gen-sent');
    const sent = structuredClone(created);
    sent.metadata.generation = 40;
    sent.metadata.annotations = { ...sent.metadata.annotations, sent: 'true' };
    const res = await api('PUT', item('gen-sent'), sent);
    expectCode(res, 200);
    assert.equal(res.body.metadata?.generation, createdGeneration);
  });

  it('moves metadata.generation when it marks an object for deletion', t('moves metadata.generation when it marks an object for deletion'), async () => {
    const obj = make('gen-final');
    obj.metadata.finalizers = ['example.com/f'];
    expectCode(await api('POST', collection, obj), 201);
    const deleted = await api('DELETE', item('gen-final'));
    expectCode(deleted, 200);
    // upstream's markAsDeleting adds one to a generation above 0; Namespace's own delete does not.
    const marked = fixture.tracksGeneration && !fixture.finalize ? 2 : createdGeneration;
    assert.equal(deleted.body.metadata?.generation, marked);
    assert.equal((await get('gen-final')).body.metadata?.generation, marked);
    expectCode(await api('PATCH', item('gen-final'), { metadata: { finalizers: null } }, mergePatch), 200);
    await finish('gen-final');
    await expectGone('gen-final');
  });

  it('changes nothing on a dry-run create', t('changes nothing on a dry-run create'), async () => {
    const res = await api('POST', `${collection}?dryRun=All`, make('dry-create'));
    expectCode(res, 201);
    assert.equal(res.body.metadata?.name, 'dry-create');
    assert.equal(res.body.metadata?.resourceVersion ?? '', '');
    await expectGone('dry-create');
  });

  it('changes nothing on a dry-run update', t('changes nothing on a dry-run update'), async () => {
    const created = await create('dry-update');
    const changed = structuredClone(created);
    fixture.mutate(changed);
    const res = await api('PUT', `${item('dry-update')}?dryRun=All`, changed);
    expectCode(res, 200);
    assertSubset(ownFields(asObject(res.body)), ownFields(changed));
    assertSubset(res.body.metadata?.labels, changed.metadata.labels);
    assert.deepEqual((await get('dry-update')).body, created);
  });

  it('changes nothing on a dry-run delete', t('changes nothing on a dry-run delete'), async () => {
    const created = await create('dry-delete');
    const res = await api('DELETE', `${item('dry-delete')}?dryRun=All`);
    expectCode(res, 200);
    assert.deepEqual((await get('dry-delete')).body, created);
  });

  it('rejects an unknown field with fieldValidation=Strict', t('rejects an unknown field with fieldValidation=Strict'), async () => {
    const res = await api('POST', `${collection}?fieldValidation=Strict`, { ...make('strict'), bogus: 1 });
    expectFailure(
      res,
      400,
      'BadRequest',
      `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: strict decoding error: unknown field "bogus"`,
    );
    await expectGone('strict');
  });

  it('warns about an unknown field with fieldValidation=Warn', t('warns about an unknown field with fieldValidation=Warn'), async () => {
    const res = await api('POST', `${collection}?fieldValidation=Warn`, { ...make('warn'), bogus: 1 });
    expectCode(res, 201);
    assert.ok(res.warnings.includes('299 - "unknown field \\"bogus\\""'), `warnings: ${JSON.stringify(res.warnings)}`);
    assert.equal(res.body.bogus, undefined);
  });

  it('rejects an invalid object with 422 Invalid and its causes', t('rejects an invalid object with 422 Invalid and its causes'), async () => {
    const { object, causes } = fixture.invalid('invalid', ns);
    const res = await api('POST', collection, object);
    expectFailure(res, 422, 'Invalid');
    expectDetails(res.body, 'invalid', def.group, def.kind);
    // A message is compared where the fixture states one.
    const actual = (res.body.details?.causes ?? []).map((c, i) => ({
      field: c.field,
      reason: c.reason,
      ...(causes[i]?.message === undefined ? {} : { message: c.message }),
    }));
    assert.deepEqual(actual, causes);
    if (causes.every((c) => c.message !== undefined)) {
      const texts = causes.map((c) => `${c.field}: ${c.message ?? ''}`);
      const aggregate = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
      assert.equal(res.body.message, `${qualifiedKind(def)} "invalid" is invalid: ${aggregate}`);
    }
    await expectGone('invalid');
  });

  it('deletes an object', t('deletes an object'), async () => {
    const created = await create('delete');
    const res = await api('DELETE', item('delete'));
    expectCode(res, 200);
    if (fixture.finalize) {
      assert.equal(res.body.kind, def.kind);
      assert.ok(res.body.metadata?.deletionTimestamp, 'the answer shows the object marked for deletion');
      await finish('delete');
    } else if (fixture.deleteReturnsObject) {
      assert.equal(res.body.kind, def.kind);
      assert.equal(res.body.apiVersion, apiVersionOf(def));
      assert.equal(res.body.metadata?.name, 'delete');
      assert.equal(res.body.metadata?.uid, created.metadata.uid);
    } else {
      assert.equal(res.body.kind, 'Status');
      assert.equal(res.body.status, 'Success');
      expectDetails(res.body, 'delete', def.group, def.plural);
      assert.equal(res.body.details?.uid, created.metadata.uid);
    }
    await expectGone('delete');
    const again = await api('DELETE', item('delete'));
    expectFailure(again, 404, 'NotFound', `${qr} "delete" not found`);
  });

  if (!fixture.deleteReturnsObject) {
    it("answers DELETE with exactly upstream's Status", t("answers DELETE with exactly upstream's Status"), async () => {
      const created = await create('delete-status');
      const res = await api('DELETE', item('delete-status'));
      assert.deepEqual(res.body, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name: 'delete-status', ...(def.group ? { group: def.group } : {}), kind: def.plural, uid: created.metadata.uid },
      });
    });
  }

  it('keeps an object with finalizers until they are removed', t('keeps an object with finalizers until they are removed'), async () => {
    const obj = make('final');
    obj.metadata.finalizers = ['example.com/f'];
    const res = await api('POST', collection, obj);
    expectCode(res, 201);
    const deleted = await api('DELETE', item('final'));
    expectCode(deleted, 200);
    assert.equal(deleted.body.kind, def.kind, 'a DELETE that only marks the object answers with the object');
    assert.ok(deleted.body.metadata?.deletionTimestamp);
    const marked = await get('final');
    expectCode(marked, 200);
    assert.ok(marked.body.metadata?.deletionTimestamp, 'still there, marked for deletion');
    assert.deepEqual(marked.body.metadata?.finalizers, ['example.com/f']);
    expectCode(await api('PATCH', item('final'), { metadata: { finalizers: null } }, mergePatch), 200);
    await finish('final');
    await expectGone('final');
  });

  if (has('deletecollection')) {
    it('deletes a collection by label selector', t('deletes a collection by label selector'), async () => {
      await create('dc-1', { dc: 'yes' });
      await create('dc-2', { dc: 'yes' });
      await create('dc-keep', { dc: 'no' });
      const res = await api('DELETE', `${collection}?labelSelector=${encodeURIComponent('dc=yes')}`);
      expectCode(res, 200);
      const left = await api('GET', `${collection}?labelSelector=dc`);
      assert.deepEqual(names(left.body), ['dc-keep']);
    });

    // The spec's operation table answers deletecollection with a Status (upstream sends the deleted list).
    it('answers deletecollection with a Success Status', async () => {
      await create('dcl-1', { dcl: 'yes' });
      await create('dcl-2', { dcl: 'yes' });
      const res = await api('DELETE', `${collection}?labelSelector=${encodeURIComponent('dcl=yes')}`);
      expectCode(res, 200);
      assert.equal(res.body.kind, 'Status');
      assert.equal(res.body.status, 'Success');
    });
  }

  if (has('watch')) {
    it('watches an object being created, updated and deleted', t('watches an object being created, updated and deleted'), async () => {
      const selector = `fieldSelector=${encodeURIComponent('metadata.name=watched')}`;
      const listed = await api('GET', `${collection}?${selector}`);
      expectCode(listed, 200);
      const watch = await openWatch(server.url, watchTls, `${collection}?watch=1&${selector}&resourceVersion=${listed.body.metadata?.resourceVersion ?? ''}`);
      try {
        assert.equal(watch.status, 200, watch.text);
        const created = await create('watched');
        const changed = structuredClone(created);
        fixture.mutate(changed);
        const updated = await api('PUT', item('watched'), changed);
        expectCode(updated, 200);
        const deleted = await api('DELETE', item('watched'));
        expectCode(deleted, 200);
        await finish('watched');
        await watch.waitFor((events) => events.some((e) => e.type === 'DELETED'), 'the DELETED event');
        const summary = (e: WatchEvent): [string, string | undefined, string | undefined] => [e.type, e.object.metadata?.name, e.object.metadata?.uid];
        const uid = created.metadata.uid;
        // A kind that finalizes its own deletion (Namespace) is first marked: one more MODIFIED.
        const expected: [string, string, string | undefined][] = [
          ['ADDED', 'watched', uid],
          ['MODIFIED', 'watched', uid],
        ];
        if (fixture.finalize) expected.push(['MODIFIED', 'watched', uid]);
        expected.push(['DELETED', 'watched', uid]);
        assert.deepEqual(watch.events.map(summary), expected);
        const [added, modified] = watch.events;
        assert.deepEqual(added?.object, created);
        assert.deepEqual(modified?.object, asObject(updated.body));
        for (const event of watch.events) {
          assert.equal(event.object.kind, def.kind);
          assert.equal(event.object.apiVersion, apiVersionOf(def));
        }
        const revisions = watch.events.map(revisionOf);
        assert.deepEqual(
          revisions,
          [...revisions].sort((a, b) => a - b),
          'events come in revision order',
        );
        assert.ok((revisions.at(-1) ?? 0) > (revisions.at(-2) ?? 0), 'DELETED carries the revision of the deletion');
      } finally {
        watch.close();
      }
    });
  }

  refusedVerbTests(key, fixture.verbs, collection, item('create'));

  const status = fixture.status;
  if (status) {
    it('reads the status subresource', t('reads the status subresource'), async () => {
      const created = await create('status-get');
      const res = await api('GET', item('status-get', 'status'));
      expectCode(res, 200);
      assert.deepEqual(res.body, created);
    });

    it('changes only status through a PUT of status', t('changes only status through a PUT of status'), async () => {
      const created = await create('status-put');
      const changed = structuredClone(created);
      status.mutate(changed);
      fixture.mutate(changed);
      const res = await api('PUT', item('status-put', 'status'), changed);
      expectCode(res, 200);
      const updated = asObject(res.body);
      assertSubset(updated.status, changed.status);
      assert.deepEqual(ownFields(updated), ownFields(created));
      assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion);
      assert.deepEqual((await get('status-put')).body, updated);
    });

    it('changes only status through a PATCH of status', t('changes only status through a PATCH of status'), async () => {
      const created = await create('status-patch');
      const changed = structuredClone(created);
      status.mutate(changed);
      fixture.mutate(changed);
      const res = await api('PATCH', item('status-patch', 'status'), { ...ownFields(changed), status: changed.status }, mergePatch);
      expectCode(res, 200);
      const updated = asObject(res.body);
      assertSubset(updated.status, changed.status);
      assert.deepEqual(ownFields(updated), ownFields(created));
    });

    it('keeps metadata.generation on a status write', t('keeps metadata.generation on a status write'), async () => {
      const created = await create('status-gen');
      const changed = structuredClone(created);
      status.mutate(changed);
      const res = await api('PUT', item('status-gen', 'status'), changed);
      expectCode(res, 200);
      assert.notEqual(res.body.metadata?.resourceVersion, created.metadata.resourceVersion);
      assert.equal(res.body.metadata?.generation, created.metadata.generation);
    });

    if (status.mainUpdateKeepsStatus) {
      it('keeps status on a PUT of the main resource', t('keeps status on a PUT of the main resource'), async () => {
        const created = await create('status-main');
        const changed = structuredClone(created);
        status.mutate(changed);
        changed.metadata.annotations = { ...changed.metadata.annotations, main: 'true' };
        const res = await api('PUT', item('status-main'), changed);
        expectCode(res, 200);
        assert.equal(res.body.metadata?.annotations?.main, 'true');
        assert.deepEqual(res.body.status, created.status);
      });
    }
  }

  if (def.namespaced) {
    it('is listed across namespaces and only read inside one', t('is listed across namespaces and only read inside one'), async () => {
      await create('scope');
      const res = await api('GET', `${collectionPath(def, '')}?fieldSelector=${encodeURIComponent(`metadata.namespace=${ns},metadata.name=scope`)}`);
      expectCode(res, 200);
      assert.deepEqual(
        res.body.items?.map((i) => [i.metadata.namespace, i.metadata.name]),
        [[ns, 'scope']],
      );
      expectFailure(await api('GET', `${collectionPath(def, '')}/scope`), 404, 'NotFound', pathNotFoundMessage);
    });

    it('rejects a body namespace that differs from the path', t('rejects a body namespace that differs from the path'), async () => {
      const obj = make('ns-mismatch');
      obj.metadata.namespace = 'default';
      const res = await api('POST', collection, obj);
      expectFailure(res, 400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
    });
  } else {
    if (def.plural !== 'namespaces') {
      it('is not served under a namespace', t('is not served under a namespace'), async () => {
        await create('scope');
        expectFailure(await api('GET', `${groupRoot(def)}/namespaces/default/${def.plural}/scope`), 404, 'NotFound', pathNotFoundMessage);
      });
    }

    it('drops a namespace sent in the body', t('drops a namespace sent in the body'), async () => {
      const obj = make('cluster-ns');
      obj.metadata.namespace = 'default';
      const res = await api('POST', collection, obj);
      expectCode(res, 201);
      assert.equal(res.body.metadata?.namespace, undefined);
    });
  }
}

for (const { definition } of server.registry.resources) {
  const key = fixtureKey(definition);
  const fixture = fixtures[key];
  const review = reviewFixtures[key];
  describe(key, () => {
    if (review) {
      reviewKindTests(definition, review, key);
      return;
    }
    if (!fixture) {
      it('has a conformance fixture', () => {
        assert.fail(`${key} is served but has no fixture: add one to apiserver/registry/conformance-fixtures.ts`);
      });
      return;
    }
    if (fixture.readOnly) readOnlyKindTests(definition, fixture, key);
    else storedKindTests(definition, fixture, key);
  });
}

describe('fixtures of kinds this build does not serve', () => {
  const served = new Set(server.registry.resources.map(({ definition }) => fixtureKey(definition)));
  for (const key of [...Object.keys(fixtures), ...Object.keys(reviewFixtures)].filter((k) => !served.has(k))) {
    it(key, { skip: 'not served' }, () => {});
  }
});
