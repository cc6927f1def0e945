import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openApiHash, openApiJson, openApiV2Document, openApiV3Index } from './documents.ts';
import { serveOpenApi } from './serve.ts';
import { registry, sha512, v3 } from './test-fixtures.ts';
import { openApiV2Protobuf } from './v2-protobuf.ts';

test('serveOpenApi negotiates, tags and redirects as upstream handlers do', () => {
  const at = (path: string): URL => new URL(path, 'https://corral');
  const index = serveOpenApi(registry, at('/openapi/v3'), { accept: 'application/json, */*' });
  assert.ok(index);
  assert.equal(index.status, 200);
  assert.equal(index.headers['content-type'], 'application/json');
  const indexBody = JSON.parse(String(index.body)) as { paths: Record<string, { serverRelativeURL: string }> };
  assert.deepEqual(indexBody, openApiV3Index(registry));
  assert.equal(index.headers.etag, `"${sha512(String(index.body))}"`);
  assert.equal(serveOpenApi(registry, at('/openapi/v3'), { ifNoneMatch: index.headers.etag })?.status, 304);

  const url = indexBody.paths['api/v1']?.serverRelativeURL ?? '';
  const doc = serveOpenApi(registry, at(url), { accept: 'application/json' });
  assert.ok(doc);
  assert.equal(doc.status, 200);
  assert.equal(doc.body, openApiJson(v3('api/v1')));
  assert.equal(doc.headers['cache-control'], 'public, immutable');
  assert.ok(doc.headers.expires);
  assert.equal(doc.headers.etag, `"${openApiHash(v3('api/v1'))}"`);
  const unhashed = serveOpenApi(registry, at('/openapi/v3/api/v1'), {});
  assert.equal(unhashed?.status, 200);
  assert.equal(unhashed?.headers['cache-control'], undefined);

  const stale = serveOpenApi(registry, at('/openapi/v3/api/v1?hash=ABC'), { accept: 'application/json' });
  assert.equal(stale?.status, 301);
  assert.equal(stale?.headers.location, url);
  assert.equal(serveOpenApi(registry, at('/openapi/v3/api/v1'), { accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' })?.status, 406);
  assert.equal(serveOpenApi(registry, at('/openapi/v3/apis/apps/v1'), {}), undefined);
  assert.equal(serveOpenApi(registry, at('/api/v1'), {}), undefined);

  const v2pb = serveOpenApi(registry, at('/openapi/v2'), { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
  assert.equal(v2pb?.status, 200);
  assert.equal(v2pb?.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  assert.deepEqual(v2pb?.body, openApiV2Protobuf(openApiV2Document(registry)));
  assert.equal(v2pb?.headers.etag, `"${openApiHash(openApiV2Document(registry))}"`);
  const v2json = serveOpenApi(registry, at('/openapi/v2'), { accept: 'application/json;q=0.9,application/com.github.proto-openapi.spec.v2.v1.0+protobuf' });
  assert.equal(v2json?.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  assert.equal(serveOpenApi(registry, at('/openapi/v2'), {})?.headers['content-type'], 'application/json');
  assert.equal(serveOpenApi(registry, at('/openapi/v2'), { accept: 'text/plain' })?.status, 406);
});
