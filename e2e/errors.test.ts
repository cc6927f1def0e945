/**
 * Bad input never yields a 500: raw HTTPS requests (node:https, the admin client certificate) with
 * malformed bodies, wrong types, oversized bodies, unknown paths, unsupported methods and media
 * types, bad query values and missing credentials. Each answer must be a Status with upstream's code
 * and reason (and, where upstream's text is known exactly, its message), and nothing may have been
 * created or changed. Also the public health and version endpoints.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startCluster, type Cluster, type HttpRequest, type HttpResponse } from './harness.ts';

const NS = 'errors';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const JSON_HEADERS = { 'content-type': 'application/json' };

interface Status {
  kind?: string;
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: Record<string, unknown>;
}

interface Case {
  title: string;
  request: HttpRequest;
  code: number;
  reason: string;
  /** Upstream's message, exactly (string) or by pattern. */
  message?: string | RegExp;
  /** Set when the server's message differs from upstream's: the message is then checked in a todo test. */
  messageTodo?: string;
  /** Set when the server's answer is a known (reported) bug: the whole case is a todo test. */
  todo?: string;
}

const cm = (name: string, extra: Record<string, unknown> = {}): string => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...extra });

function parseStatus(res: HttpResponse): Status {
  assert.match(String(res.headers['content-type']), /^application\/json/, `a Status is JSON: ${res.status} ${res.text}`);
  const body = res.json() as Status;
  assert.equal(body.kind, 'Status', res.text);
  assert.equal(body.apiVersion, 'v1', res.text);
  assert.equal(body.status, 'Failure', res.text);
  return body;
}

function checkStatus(res: HttpResponse, c: Pick<Case, 'code' | 'reason'>): Status {
  assert.ok(res.status < 500, `no 5xx: ${res.status} ${res.text}`);
  assert.equal(res.status, c.code, res.text);
  const body = parseStatus(res);
  assert.equal(body.code, c.code, res.text);
  assert.equal(body.reason, c.reason, res.text);
  return body;
}

function checkMessage(body: Status, expected: string | RegExp): void {
  if (typeof expected === 'string') assert.equal(body.message, expected);
  else assert.match(body.message ?? '', expected);
}

const fourMiB = 4 * 1024 * 1024;
const bigBody = cm('huge', { data: { blob: 'x'.repeat(fourMiB) } });

const cases: Case[] = [
  // Bodies.
  {
    title: 'malformed JSON',
    request: { method: 'POST', path: CM, headers: JSON_HEADERS, body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"' },
    code: 400,
    reason: 'BadRequest',
    message:
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1","kind":"Con ...)',
  },
  {
    title: 'a JSON array body',
    request: { method: 'POST', path: CM, headers: JSON_HEADERS, body: '[]' },
    code: 400,
    reason: 'BadRequest',
  },
  {
    title: 'an empty body',
    request: { method: 'POST', path: CM, headers: JSON_HEADERS, body: '' },
    code: 400,
    reason: 'BadRequest',
  },
  {
    title: 'a number where a string belongs (data value)',
    request: { method: 'POST', path: CM, headers: JSON_HEADERS, body: cm('x', { data: { a: 1 } }) },
    code: 400,
    reason: 'BadRequest',
    message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
  },
  {
    title: 'a number where a string belongs inside a nested struct (a label): Go names that struct, ObjectMeta',
    request: {
      method: 'POST',
      path: CM,
      headers: JSON_HEADERS,
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: 1 } } }),
    },
    code: 400,
    reason: 'BadRequest',
    message:
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
  },
  {
    title: 'a string where an object belongs (metadata)',
    request: { method: 'POST', path: CM, headers: JSON_HEADERS, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: 'x' }) },
    code: 400,
    reason: 'BadRequest',
    message: /^ConfigMap in version "v1" cannot be handled as a ConfigMap: /,
  },
  {
    title: 'an object where a boolean belongs (immutable)',
    request: { method: 'POST', path: CM, headers: JSON_HEADERS, body: cm('x', { immutable: { yes: true } }) },
    code: 400,
    reason: 'BadRequest',
    message: /^ConfigMap in version "v1" cannot be handled as a ConfigMap: /,
  },
  {
    title: 'another kind posted to configmaps',
    request: { method: 'POST', path: CM, headers: JSON_HEADERS, body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }) },
    code: 400,
    reason: 'BadRequest',
    message: /cannot be handled as a ConfigMap/,
  },
  {
    title: 'an unknown apiVersion',
    request: { method: 'POST', path: CM, headers: JSON_HEADERS, body: JSON.stringify({ apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'x' } }) },
    code: 400,
    reason: 'BadRequest',
  },
  {
    title: 'a namespace in the body that differs from the URL',
    request: {
      method: 'POST',
      path: CM,
      headers: JSON_HEADERS,
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' } }),
    },
    code: 400,
    reason: 'BadRequest',
    message: 'the namespace of the provided object does not match the namespace sent on the request',
  },
  {
    title: 'a name in the body that differs from the URL (PUT)',
    request: { method: 'PUT', path: `${CM}/existing`, headers: JSON_HEADERS, body: cm('other', { data: { changed: 'yes' } }) },
    code: 400,
    reason: 'BadRequest',
    message: 'the name of the object (other) does not match the name on the URL (existing)',
  },
  {
    title: 'a 4 MiB body',
    request: { method: 'POST', path: CM, headers: JSON_HEADERS, body: bigBody },
    code: 413,
    reason: 'RequestEntityTooLarge',
    message: 'Request entity too large: limit is 3145728',
  },
  {
    title: 'a 4 MiB body sent chunked (no Content-Length)',
    request: { method: 'POST', path: CM, headers: { ...JSON_HEADERS, 'transfer-encoding': 'chunked' }, body: bigBody },
    code: 413,
    reason: 'RequestEntityTooLarge',
    message: 'Request entity too large: limit is 3145728',
  },
  {
    title: 'a malformed merge patch',
    request: { method: 'PATCH', path: `${CM}/existing`, headers: { 'content-type': 'application/merge-patch+json' }, body: '{"data":' },
    code: 400,
    reason: 'BadRequest',
  },
  {
    title: 'a JSON patch that is not a list of operations',
    request: { method: 'PATCH', path: `${CM}/existing`, headers: { 'content-type': 'application/json-patch+json' }, body: '{"op":"add"}' },
    code: 400,
    reason: 'BadRequest',
  },
  {
    title: 'a malformed DeleteOptions body',
    request: { method: 'DELETE', path: `${CM}/existing`, headers: JSON_HEADERS, body: '{"kind":' },
    code: 400,
    reason: 'BadRequest',
  },

  // Paths and methods.
  {
    title: 'an unknown top-level path',
    request: { path: '/no/such/path' },
    code: 404,
    reason: 'NotFound',
    message: 'the server could not find the requested resource',
  },
  {
    title: 'an unknown resource in a served group version',
    request: { path: '/api/v1/bogus' },
    code: 404,
    reason: 'NotFound',
    message: 'the server could not find the requested resource',
  },
  {
    title: 'an unknown group',
    request: { path: '/apis/bogus.example.com/v1/things' },
    code: 404,
    reason: 'NotFound',
    message: 'the server could not find the requested resource',
  },
  {
    title: 'an alpha version not enabled by --runtime-config (ClusterCIDR)',
    request: { path: '/apis/networking.k8s.io/v1alpha1/clustercidrs' },
    code: 404,
    reason: 'NotFound',
    message: 'the server could not find the requested resource',
  },
  {
    title: 'an unknown subresource',
    request: { path: `${CM}/existing/bogus` },
    code: 404,
    reason: 'NotFound',
    message: 'the server could not find the requested resource',
  },
  {
    title: 'a missing object',
    request: { path: `${CM}/missing` },
    code: 404,
    reason: 'NotFound',
    message: 'configmaps "missing" not found',
  },
  {
    title: 'POST to a named object',
    request: { method: 'POST', path: `${CM}/existing`, headers: JSON_HEADERS, body: cm('existing') },
    code: 405,
    reason: 'MethodNotAllowed',
    message: 'the server does not allow this method on the requested resource',
  },
  {
    title: 'PUT to a collection',
    request: { method: 'PUT', path: CM, headers: JSON_HEADERS, body: cm('x') },
    code: 405,
    reason: 'MethodNotAllowed',
    message: 'the server does not allow this method on the requested resource',
  },
  {
    title: 'PATCH to a collection',
    request: { method: 'PATCH', path: CM, headers: { 'content-type': 'application/merge-patch+json' }, body: '{}' },
    code: 405,
    reason: 'MethodNotAllowed',
    message: 'the server does not allow this method on the requested resource',
  },
  {
    title: 'POST to a read-only kind (componentstatuses)',
    request: {
      method: 'POST',
      path: '/api/v1/componentstatuses',
      headers: JSON_HEADERS,
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'x' } }),
    },
    code: 405,
    reason: 'MethodNotAllowed',
    message: 'the server does not allow this method on the requested resource',
  },
  {
    title: 'DELETE of a read-only kind (componentstatuses)',
    request: { method: 'DELETE', path: '/api/v1/componentstatuses/etcd-0' },
    code: 405,
    reason: 'MethodNotAllowed',
    message: 'the server does not allow this method on the requested resource',
  },

  // Media types.
  {
    title: 'Accept: application/xml',
    request: { path: CM, headers: { accept: 'application/xml' } },
    code: 406,
    reason: 'NotAcceptable',
    message: /^only the following media types are accepted: application\/json, application\/yaml/,
  },
  {
    title: 'Accept: application/xml on a create',
    request: { method: 'POST', path: CM, headers: { ...JSON_HEADERS, accept: 'application/xml' }, body: cm('x') },
    code: 406,
    reason: 'NotAcceptable',
    message: /^only the following media types are accepted: application\/json, application\/yaml/,
  },
  {
    title: 'Accept: application/xml on an update',
    request: {
      method: 'PUT',
      path: `${CM}/existing`,
      headers: { ...JSON_HEADERS, accept: 'application/xml' },
      body: cm('existing', { data: { changed: 'yes' } }),
    },
    code: 406,
    reason: 'NotAcceptable',
    message: /^only the following media types are accepted: application\/json, application\/yaml/,
  },
  {
    title: 'Accept: application/xml on a patch',
    request: {
      method: 'PATCH',
      path: `${CM}/existing`,
      headers: { 'content-type': 'application/merge-patch+json', accept: 'application/xml' },
      body: '{"data":{"changed":"yes"}}',
    },
    code: 406,
    reason: 'NotAcceptable',
    message: /^only the following media types are accepted: application\/json, application\/yaml/,
  },
  {
    title: 'Accept: application/xml on a delete',
    request: { method: 'DELETE', path: `${CM}/existing`, headers: { accept: 'application/xml' } },
    code: 406,
    reason: 'NotAcceptable',
    message: /^only the following media types are accepted: application\/json, application\/yaml/,
  },
  {
    title: 'Content-Type: text/plain',
    request: { method: 'POST', path: CM, headers: { 'content-type': 'text/plain' }, body: cm('x') },
    code: 415,
    reason: 'UnsupportedMediaType',
    message: /^the body of the request was in an unknown format - accepted media types include: application\/json, application\/yaml/,
  },
  {
    title: 'PATCH with Content-Type: application/json',
    request: { method: 'PATCH', path: `${CM}/existing`, headers: JSON_HEADERS, body: '{"data":{"changed":"yes"}}' },
    code: 415,
    reason: 'UnsupportedMediaType',
    message: /^the body of the request was in an unknown format - accepted media types include: /,
  },

  // Query values.
  {
    title: 'limit=abc',
    request: { path: `${CM}?limit=abc` },
    code: 400,
    reason: 'BadRequest',
    message: 'strconv.ParseInt: parsing "abc": invalid syntax',
  },
  {
    title: 'fieldValidation=Bogus',
    request: { method: 'POST', path: `${CM}?fieldValidation=Bogus`, headers: JSON_HEADERS, body: cm('x') },
    code: 422,
    reason: 'Invalid',
    message: 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"',
  },
  {
    title: 'dryRun=Foo',
    request: { method: 'POST', path: `${CM}?dryRun=Foo`, headers: JSON_HEADERS, body: cm('x') },
    code: 422,
    reason: 'Invalid',
    message: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Foo"}: supported values: "All"',
  },
  {
    title: "labelSelector='a in ('",
    request: { path: `${CM}?labelSelector=${encodeURIComponent('a in (')}` },
    code: 400,
    reason: 'BadRequest',
    message: /^unable to parse requirement: /,
  },
  {
    title: 'fieldSelector=bogus=1',
    request: { path: `${CM}?fieldSelector=${encodeURIComponent('bogus=1')}` },
    code: 400,
    reason: 'BadRequest',
    message: '"bogus" is not a known field selector: only "metadata.name", "metadata.namespace"',
  },
  {
    title: 'propagationPolicy=Sideways',
    request: { method: 'DELETE', path: `${CM}/existing?propagationPolicy=Sideways` },
    code: 422,
    reason: 'Invalid',
    message: /^DeleteOptions\.meta\.k8s\.io "" is invalid: propagationPolicy: Unsupported value: "Sideways"/,
  },

  // Credentials.
  // Anonymous requests are system:anonymous, whom the default policy lets read only health and version.
  {
    title: 'a list without credentials',
    request: { path: CM, authenticate: false },
    code: 403,
    reason: 'Forbidden',
    message: 'configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "errors"',
  },
  {
    title: 'a create without credentials',
    request: { method: 'POST', path: CM, headers: JSON_HEADERS, body: cm('x'), authenticate: false },
    code: 403,
    reason: 'Forbidden',
    message: 'configmaps is forbidden: User "system:anonymous" cannot create resource "configmaps" in API group "" in the namespace "errors"',
  },
  {
    title: 'an unknown bearer token',
    request: { path: CM, headers: { authorization: 'Bearer not-a-token' }, authenticate: false },
    code: 401,
    reason: 'Unauthorized',
    message: 'Unauthorized',
  },
  {
    title: 'discovery without credentials',
    request: { path: '/api', authenticate: false },
    code: 403,
    reason: 'Forbidden',
    message: 'forbidden: User "system:anonymous" cannot get path "/api"',
  },
];

describe('one replica', () => {
  let cluster: Cluster;
  before(
    async () => {
      cluster = await startCluster();
    },
    { timeout: 120_000 },
  );
  after(async () => {
    await cluster?.stop();
  });
  /** The health check of the cluster's storage: upstream's `etcd`, or `embedded-storage`. */
  const storageCheck = (): string => (cluster.storage === 'etcd' ? 'etcd' : 'embedded-storage');

  describe('bad requests', () => {
    let fixtureVersion = '';

    /** The names in the test namespace and the fixture's resourceVersion: what no bad request may change. */
    const snapshot = async (): Promise<{ names: string[]; version: string }> => {
      const list = await cluster.request({ path: CM });
      assert.equal(list.status, 200, list.text);
      const items = (list.json() as { items: { metadata: { name: string; resourceVersion: string } }[] }).items;
      return { names: items.map((i) => i.metadata.name).sort(), version: items.find((i) => i.metadata.name === 'existing')?.metadata.resourceVersion ?? '' };
    };

    const createFixture = async (): Promise<void> => {
      const fixture = await cluster.request({ method: 'POST', path: CM, headers: JSON_HEADERS, body: cm('existing', { data: { original: 'yes' } }) });
      assert.equal(fixture.status, 201, fixture.text);
      fixtureVersion = (fixture.json() as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    };
    const nothingChanged = async (): Promise<void> => {
      assert.deepEqual(await snapshot(), { names: ['existing'], version: fixtureVersion }, 'nothing was created or changed');
    };

    before(async () => {
      const ns = await cluster.request({
        method: 'POST',
        path: '/api/v1/namespaces',
        headers: JSON_HEADERS,
        body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }),
      });
      assert.equal(ns.status, 201, ns.text);
      await createFixture();
    });
    // A test that failed because something was created or changed must not fail the ones after it.
    afterEach(async () => {
      const { names, version } = await snapshot();
      for (const name of names.filter((n) => n !== 'existing')) await cluster.request({ method: 'DELETE', path: `${CM}/${name}` });
      if (version !== fixtureVersion) {
        if (version) await cluster.request({ method: 'DELETE', path: `${CM}/existing` });
        await createFixture();
      }
    });

    for (const c of cases) {
      it(`${c.title} → ${c.code} ${c.reason}`, c.todo === undefined ? {} : { todo: c.todo }, async () => {
        const body = checkStatus(await cluster.request(c.request), c);
        await nothingChanged();
        if (c.message !== undefined && c.messageTodo === undefined) checkMessage(body, c.message);
      });
      if (c.message !== undefined && c.messageTodo !== undefined) {
        const expected = c.message;
        it(`${c.title}: upstream's message`, { todo: c.messageTodo }, async () => {
          checkMessage(parseStatus(await cluster.request(c.request)), expected);
        });
      }
    }

    it("the 401 body is exactly upstream's", async () => {
      const res = await cluster.request({ path: CM, headers: { authorization: 'Bearer not-a-token' }, authenticate: false });
      assert.deepEqual(res.json(), {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    });

    it('an error asked for as YAML is a YAML Status', async () => {
      const res = await cluster.request({ path: `${CM}/missing`, headers: { accept: 'application/yaml' } });
      assert.equal(res.status, 404);
      assert.match(String(res.headers['content-type']), /^application\/yaml/);
      assert.match(res.text, /^kind: Status$/m);
      assert.match(res.text, /^reason: NotFound$/m);
    });

    it('the requests above left the server healthy', async () => {
      const res = await cluster.request({ path: '/readyz', authenticate: false });
      assert.equal(res.status, 200);
      assert.equal(res.text, 'ok');
    });
  });

  describe('public endpoints', () => {
    for (const endpoint of ['livez', 'readyz', 'healthz']) {
      it(`/${endpoint} answers ok without credentials`, async () => {
        const res = await cluster.request({ path: `/${endpoint}`, authenticate: false });
        assert.equal(res.status, 200);
        assert.equal(res.text, 'ok');
        assert.match(String(res.headers['content-type']), /^text\/plain; charset=utf-8$/);
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
      });

      it(`/${endpoint}?verbose lists every check and ends with "${endpoint} check passed"`, async () => {
        const res = await cluster.request({ path: `/${endpoint}?verbose`, authenticate: false });
        assert.equal(res.status, 200);
        const lines = res.text.split('\n');
        assert.equal(lines.pop(), '', 'ends with a newline');
        assert.equal(lines.pop(), `${endpoint} check passed`);
        for (const check of ['ping', 'log', storageCheck()]) assert.ok(lines.includes(`[+]${check} ok`), res.text);
        for (const line of lines) assert.match(line, /^\[\+\][\w/.:-]+ ok$/);
      });

      it(`/${endpoint}?verbose&exclude=<the storage check> marks it excluded`, async () => {
        const res = await cluster.request({ path: `/${endpoint}?verbose&exclude=${storageCheck()}`, authenticate: false });
        assert.equal(res.status, 200);
        const lines = res.text.trimEnd().split('\n');
        assert.ok(lines.includes(`[+]${storageCheck()} excluded: ok`), res.text);
        assert.ok(!lines.includes(`[+]${storageCheck()} ok`), res.text);
        assert.ok(lines.includes('[+]ping ok'), res.text);
        assert.equal(lines.at(-1), `${endpoint} check passed`);
      });
    }

    it('/readyz?verbose&exclude=bogus warns about the unknown check', async () => {
      const res = await cluster.request({ path: '/readyz?verbose&exclude=bogus', authenticate: false });
      assert.equal(res.status, 200);
      const lines = res.text.trimEnd().split('\n');
      assert.equal(lines.at(-2), 'warn: some health checks cannot be excluded: no matches for "bogus"');
      assert.equal(lines.at(-1), 'readyz check passed');
    });

    it('/livez/<the storage check> checks one check (for the authenticated: the default policy shows anonymous only /livez itself)', async () => {
      assert.equal((await cluster.request({ path: `/livez/${storageCheck()}`, authenticate: false })).status, 403);
      const res = await cluster.request({ path: `/livez/${storageCheck()}` });
      assert.equal(res.status, 200);
      assert.equal(res.text, 'ok');
    });

    it('/livez/bogus is 404', async () => {
      const res = await cluster.request({ path: '/livez/bogus' });
      assert.equal(res.status, 404);
    });

    it('/version answers without credentials', async () => {
      const res = await cluster.request({ path: '/version', authenticate: false });
      assert.equal(res.status, 200);
      const version = res.json() as Record<string, unknown>;
      assert.equal(version.major, '1');
      assert.equal(version.minor, '32');
      assert.match(String(version.gitVersion), /^v1\.32\./);
      for (const key of ['gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform']) assert.equal(typeof version[key], 'string', key);
    });
  });
});
