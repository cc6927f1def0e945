import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InflightLimiter, isLongRunning, requestDeadlineMs, requestKind, requestTimeoutError, tooManyRequestsBody } from './limits.ts';
import { parseRequestInfo } from './requestinfo.ts';

const bob = { username: 'bob', groups: ['system:authenticated'] };
const admin = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };
const info = (method: string, path: string) => parseRequestInfo(method, new URL(path, 'https://x').pathname, new URL(path, 'https://x').searchParams);

describe('InflightLimiter', () => {
  it('admits up to the limit of each kind, then refuses until a seat is released', () => {
    const limiter = new InflightLimiter(2, 1);
    assert.equal(limiter.admit('readOnly', bob), true);
    assert.equal(limiter.admit('readOnly', bob), true);
    assert.equal(limiter.admit('readOnly', bob), false);
    assert.equal(limiter.admit('mutating', bob), true);
    assert.equal(limiter.admit('mutating', bob), false);
    limiter.release('readOnly');
    assert.equal(limiter.admit('readOnly', bob), true);
    assert.deepEqual(limiter.inFlight, { readOnly: 2, mutating: 1 });
  });

  it('never turns away system:masters', () => {
    const limiter = new InflightLimiter(1, 1);
    assert.equal(limiter.admit('mutating', bob), true);
    assert.equal(limiter.admit('mutating', admin), true);
    assert.equal(limiter.admit('mutating', bob), false);
  });

  it('treats 0 as no limit', () => {
    const limiter = new InflightLimiter(0, 0);
    for (let i = 0; i < 1000; i++) assert.equal(limiter.admit('readOnly', bob), true);
  });

  it('reports the highest count since the last reading, then the current one', () => {
    const limiter = new InflightLimiter(10, 10);
    limiter.admit('readOnly', bob);
    limiter.admit('readOnly', bob);
    limiter.admit('readOnly', bob);
    limiter.release('readOnly');
    limiter.release('readOnly');
    assert.deepEqual(limiter.takeWatermarks(), { readOnly: 3, mutating: 0 });
    assert.deepEqual(limiter.takeWatermarks(), { readOnly: 1, mutating: 0 });
  });
});

describe('request classes', () => {
  it('treats watches and streaming subresources as long-running', () => {
    assert.equal(isLongRunning(info('GET', '/api/v1/configmaps?watch=true')), true);
    assert.equal(isLongRunning(info('GET', '/api/v1/namespaces/a/pods/p/log')), true);
    assert.equal(isLongRunning(info('POST', '/api/v1/namespaces/a/pods/p/exec')), true);
    assert.equal(isLongRunning(info('GET', '/api/v1/configmaps')), false);
    assert.equal(isLongRunning(info('GET', '/logs')), false);
  });

  it('counts get, list and watch as read-only and everything else as mutating', () => {
    assert.equal(requestKind(info('GET', '/api/v1/namespaces/a/configmaps/b')), 'readOnly');
    assert.equal(requestKind(info('GET', '/api/v1/configmaps')), 'readOnly');
    assert.equal(requestKind(info('GET', '/metrics')), 'readOnly');
    assert.equal(requestKind(info('POST', '/api/v1/namespaces/a/configmaps')), 'mutating');
    assert.equal(requestKind(info('DELETE', '/api/v1/namespaces/a/configmaps')), 'mutating');
    assert.equal(requestKind(info('PATCH', '/api/v1/namespaces/a/configmaps/b')), 'mutating');
  });
});

describe('request deadline', () => {
  const q = (s: string) => new URLSearchParams(s);

  it('is the request timeout, shortened by a smaller positive timeout parameter', () => {
    assert.equal(requestDeadlineMs(q(''), 60_000), 60_000);
    assert.equal(requestDeadlineMs(q('timeout=5s'), 60_000), 5000);
    assert.equal(requestDeadlineMs(q('timeout=2m'), 60_000), 60_000);
    assert.equal(requestDeadlineMs(q('timeout=0s'), 60_000), 60_000);
  });

  it('rejects a malformed timeout parameter with upstream 400 message', () => {
    assert.throws(
      () => requestDeadlineMs(q('timeout=5'), 60_000),
      (err: { code: number; message: string }) => {
        assert.equal(err.code, 400);
        assert.equal(err.message, 'invalid timeout specified in the request URL - time: missing unit in duration "5"');
        return true;
      },
    );
  });

  it('times out with upstream 504 Status', () => {
    const err = requestTimeoutError();
    assert.equal(err.code, 504);
    assert.deepEqual(err.status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Timeout: request did not complete within the allotted timeout',
      reason: 'Timeout',
      details: {},
      code: 504,
    });
    assert.equal(err.retryAfterSeconds, undefined);
    assert.equal(tooManyRequestsBody, 'Too many requests, please try again later.\n');
  });
});
