import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conflict, notFound } from '../../shared/api/errors.ts';
import { settle, testContext, type TestContext } from '../framework/testing.ts';
import { startTokenCleaner } from './tokencleaner.ts';
import type { Secret } from './token-secret.ts';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const path = (name: string): string => `/api/v1/namespaces/kube-system/secrets/${name}`;

function tokenSecret(id: string, data: Record<string, string>, type = 'bootstrap.kubernetes.io/token'): Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system', uid: `uid-${id}`, resourceVersion: '7' },
    type,
    data: Object.fromEntries(Object.entries({ 'token-id': id, 'token-secret': '0123456789abcdef', ...data }).map(([k, v]) => [k, b64(v)])),
  };
}

function started(...secrets: Secret[]): TestContext<unknown> {
  const ctx = testContext<unknown>({});
  const informer = ctx.informers.of<Secret>('secrets', 'kube-system');
  for (const secret of secrets) informer.set(secret);
  startTokenCleaner(ctx);
  return ctx;
}

describe('token cleaner', () => {
  it('deletes an expired token with a UID precondition', async (t) => {
    const ctx = started(tokenSecret('abcdef', { expiration: '2025-12-31T23:59:59Z' }));
    t.after(() => ctx.stop());
    await settle();
    assert.deepEqual(ctx.api.writes(), [`DELETE ${path('bootstrap-token-abcdef')}`]);
    assert.deepEqual(ctx.api.actions[0]?.body, { preconditions: { uid: 'uid-abcdef' } });
  });

  it('leaves a token without expiration alone', async (t) => {
    const ctx = started(tokenSecret('abcdef', {}));
    t.after(() => ctx.stop());
    await settle();
    ctx.clock.step(365 * 24 * 3600 * 1000);
    await settle();
    assert.deepEqual(ctx.api.writes(), []);
  });

  it('waits for the expiration on the clock, then deletes', async (t) => {
    // The fake clock starts at 2026-01-01T00:00:00Z.
    const ctx = started(tokenSecret('abcdef', { expiration: '2026-01-01T00:10:00Z' }));
    t.after(() => ctx.stop());
    await settle();
    assert.deepEqual(ctx.api.writes(), []);
    ctx.clock.step(10 * 60 * 1000 - 1);
    await settle();
    assert.deepEqual(ctx.api.writes(), []);
    ctx.clock.step(1);
    await settle();
    assert.deepEqual(ctx.api.writes(), [`DELETE ${path('bootstrap-token-abcdef')}`]);
  });

  it('re-checks a far expiration daily instead of arming a timer Node.js cannot hold', async (t) => {
    // 59 days and one second after the fake clock's start.
    const ctx = started(tokenSecret('abcdef', { expiration: '2026-03-01T00:00:01Z' }));
    t.after(() => ctx.stop());
    await settle();
    for (let day = 0; day < 59; day++) {
      assert.equal(ctx.clock.pending, 1);
      ctx.clock.step(24 * 3600 * 1000);
      await settle();
    }
    assert.deepEqual(ctx.api.writes(), []);
    ctx.clock.step(1000);
    await settle();
    assert.deepEqual(ctx.api.writes(), [`DELETE ${path('bootstrap-token-abcdef')}`]);
  });

  it('treats a malformed expiration as expired, with one Warning event saying why', async (t) => {
    const ctx = started(tokenSecret('abcdef', { expiration: 'tomorrow' }));
    t.after(() => ctx.stop());
    let calls = 0;
    ctx.api.react((action) => {
      if (action.verb === 'delete' && ++calls === 1) throw new Error('connection reset');
      return undefined;
    });
    await settle();
    // The first delete failed; the retry comes after the queue's back-off.
    ctx.clock.step(1000);
    await settle();
    assert.deepEqual(ctx.api.writes(), [`DELETE ${path('bootstrap-token-abcdef')}`, `DELETE ${path('bootstrap-token-abcdef')}`]);
    assert.deepEqual(ctx.events.events, [
      {
        key: 'kube-system/bootstrap-token-abcdef',
        type: 'Warning',
        reason: 'InvalidExpiration',
        message:
          'Unparseable expiration time (tomorrow) in kube-system/bootstrap-token-abcdef Secret: parsing time "tomorrow" as "2006-01-02T15:04:05Z07:00": cannot parse "tomorrow" as "2006". Treating as expired.',
      },
    ]);
  });

  it('counts NotFound and a failed UID precondition as done', async (t) => {
    const ctx = started(tokenSecret('aaaaaa', { expiration: '2020-01-01T00:00:00Z' }), tokenSecret('bbbbbb', { expiration: '2020-01-01T00:00:00Z' }));
    t.after(() => ctx.stop());
    ctx.api.react((action) => {
      if (action.path.endsWith('aaaaaa')) throw notFound({ group: '', resource: 'secrets' }, 'bootstrap-token-aaaaaa');
      if (action.path.endsWith('bbbbbb'))
        throw conflict(
          { group: '', resource: 'secrets' },
          'bootstrap-token-bbbbbb',
          'Precondition failed: UID in precondition: uid-bbbbbb, UID in object meta: other',
        );
      return undefined;
    });
    await settle();
    ctx.clock.step(60_000);
    await settle();
    assert.deepEqual(ctx.api.writes().sort(), [`DELETE ${path('bootstrap-token-aaaaaa')}`, `DELETE ${path('bootstrap-token-bbbbbb')}`]);
  });

  it('ignores Secrets of other types that reach its cache', async (t) => {
    const ctx = started(tokenSecret('abcdef', { expiration: '2020-01-01T00:00:00Z' }, 'Opaque'));
    t.after(() => ctx.stop());
    await settle();
    assert.deepEqual(ctx.api.writes(), []);
  });

  it('deletes a token whose expiration is moved into the past by an update', async (t) => {
    const ctx = started(tokenSecret('abcdef', { expiration: '2027-01-01T00:00:00Z' }));
    t.after(() => ctx.stop());
    await settle();
    assert.deepEqual(ctx.api.writes(), []);
    ctx.informers.of<Secret>('secrets', 'kube-system').set(tokenSecret('abcdef', { expiration: '2025-01-01T00:00:00Z' }));
    await settle();
    assert.deepEqual(ctx.api.writes(), [`DELETE ${path('bootstrap-token-abcdef')}`]);
  });
});
