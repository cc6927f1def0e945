import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../shared/api/errors.ts';
import { FakeClock } from '../../shared/client/clock.ts';
import { RecordingApiClient, type ApiAction } from '../../shared/client/testing.ts';
import { SubjectAccessReviewAuthorizer, subjectAccessReviewPath } from './authorization.ts';
import { nodeRequestAttributes } from './request-attributes.ts';
import type { UserInfo } from '../../shared/delegated-auth/user.ts';

const second = 1000;

/** Allows `get` on nodes/metrics and nothing else; denies explicitly for user mallory. */
function reviewer(): RecordingApiClient {
  const api = new RecordingApiClient();
  api.react((action: ApiAction) => {
    if (action.verb !== 'create' || action.path !== subjectAccessReviewPath) return undefined;
    const review = action.body as { spec: { user: string; resourceAttributes: { verb: string; subresource: string } } };
    const { verb, subresource } = review.spec.resourceAttributes;
    if (review.spec.user === 'mallory') return { ...review, status: { allowed: false, denied: true, reason: 'no' } };
    return { ...review, status: { allowed: verb === 'get' && subresource === 'metrics' } };
  });
  return api;
}

const alice: UserInfo = { username: 'alice', uid: 'u1', groups: ['devs', 'system:authenticated'] };
const attrs = (path: string, method = 'GET', user = alice) => nodeRequestAttributes(user, method, path, 'node-a', false)[0]!;

describe('SubjectAccessReviewAuthorizer', () => {
  it('asks for the node subresource in upstream shape', async () => {
    const api = reviewer();
    const authz = new SubjectAccessReviewAuthorizer({ api, clock: new FakeClock(), allowedTtlMs: 0, deniedTtlMs: 0 });
    assert.deepEqual(await authz.authorize(attrs('/metrics')), { decision: 'allow', reason: '' });
    assert.deepEqual(api.actions[0]?.body, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: {
        resourceAttributes: { verb: 'get', version: 'v1', resource: 'nodes', subresource: 'metrics', name: 'node-a' },
        user: 'alice',
        groups: ['devs', 'system:authenticated'],
        uid: 'u1',
      },
    });
  });

  it('answers no opinion when not allowed, deny when denied', async () => {
    const authz = new SubjectAccessReviewAuthorizer({ api: reviewer(), clock: new FakeClock(), allowedTtlMs: 0, deniedTtlMs: 0 });
    assert.equal((await authz.authorize(attrs('/pods'))).decision, 'noOpinion');
    assert.deepEqual(await authz.authorize(attrs('/metrics', 'GET', { username: 'mallory', groups: [] })), { decision: 'deny', reason: 'no' });
  });

  it('caches allowed answers for cacheAuthorizedTTL and others for cacheUnauthorizedTTL', async () => {
    const api = reviewer();
    const clock = new FakeClock();
    const authz = new SubjectAccessReviewAuthorizer({ api, clock, allowedTtlMs: 300 * second, deniedTtlMs: 30 * second });
    const ask = async (): Promise<void> => {
      await authz.authorize(attrs('/metrics'));
      await authz.authorize(attrs('/pods'));
    };
    await ask();
    assert.equal(api.actions.length, 2);
    clock.step(30 * second - 1);
    await ask();
    assert.equal(api.actions.length, 2);
    clock.step(1);
    await ask();
    assert.deepEqual(
      api.actions.map((a) => (a.body as { spec: { resourceAttributes: { subresource: string } } }).spec.resourceAttributes.subresource),
      ['metrics', 'proxy', 'proxy'],
    );
    clock.step(300 * second);
    await ask();
    assert.equal(api.actions.length, 5);
  });

  it('keys the cache by the whole spec: another verb or user is another review', async () => {
    const api = reviewer();
    const authz = new SubjectAccessReviewAuthorizer({ api, clock: new FakeClock(), allowedTtlMs: 300 * second, deniedTtlMs: 30 * second });
    await authz.authorize(attrs('/metrics'));
    await authz.authorize(attrs('/metrics', 'POST'));
    await authz.authorize(attrs('/metrics', 'GET', { username: 'bob', groups: [] }));
    assert.equal(api.actions.length, 3);
  });

  it('rejects when the review fails, and does not cache it', async () => {
    const api = new RecordingApiClient();
    api.react(() => {
      throw new StatusError({ code: 500, reason: 'InternalError', message: 'boom' });
    });
    const authz = new SubjectAccessReviewAuthorizer({ api, clock: new FakeClock(), allowedTtlMs: 300 * second, deniedTtlMs: 30 * second });
    await assert.rejects(authz.authorize(attrs('/metrics')), /boom/);
    await assert.rejects(authz.authorize(attrs('/metrics')), /boom/);
    assert.equal(api.actions.length, 2);
  });
});
