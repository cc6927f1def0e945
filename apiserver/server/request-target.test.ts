import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../shared/api/errors.ts';
import { parseRequestTarget } from './request-target.ts';

test('a target starting with / is a path, never a host: the reproducers of issue 10 parse', () => {
  for (const [target, pathname] of [
    ['//a:99999/', '//a:99999/'],
    ['/\\a:99999/', '//a:99999/'],
    ['//[::1/x', '//[::1/x'],
    ['//%41/', '//%41/'],
  ] as const) {
    const url = parseRequestTarget(target);
    assert.equal(url.pathname, pathname, target);
    assert.equal(url.host, 'corral', target);
  }
});

test("a % that starts no escape is Go's 400, in the path only", () => {
  assert.throws(() => parseRequestTarget('//%zz/'), { message: 'invalid URL escape "%zz"' });
  assert.equal(parseRequestTarget('/api?x=%zz').searchParams.get('x'), '%zz');
});

test('paths keep their query', () => {
  const url = parseRequestTarget('/api/v1/namespaces/a/configmaps?watch=1&labelSelector=a%3Db');
  assert.equal(url.pathname, '/api/v1/namespaces/a/configmaps');
  assert.equal(url.searchParams.get('labelSelector'), 'a=b');
});

test('an absolute URL contributes its path and query, whatever its port, as Go reads it', () => {
  assert.equal(parseRequestTarget('https://a:99999/api').pathname, '/api');
  const url = parseRequestTarget('http://user@[::1]:80/apis?x=1');
  assert.equal(url.pathname, '/apis');
  assert.equal(url.search, '?x=1');
  assert.equal(parseRequestTarget('http://host').pathname, '/');
});

test('targets that are no URL are 400s', () => {
  for (const target of ['http://[/', 'http://[::1/', '*', 'javascript:alert(1)', 'a b', '//%zz/', '/api/%4', 'http://h/%g0']) {
    assert.throws(
      () => parseRequestTarget(target),
      (err: unknown) => isStatusError(err, 'BadRequest') && err.code === 400,
      target,
    );
  }
});
