import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { conflict, notFound } from '../../shared/api/errors.ts';
import { formatTimeOf } from '../../shared/go/time.ts';
import { certifyClientKey, generateKeyPair } from '../../shared/pki/certificates.ts';
import { waitFor } from '../../apiserver/testing/wait-for.ts';
import type { ControllerManagerConfig } from '../config.ts';
import { settle, testContext, type TestContext } from '../framework/testing.ts';
import { CSRCleaner, cleanupDeadline, csrCleanerController } from './cleaner.ts';
import type { CertificateSigningRequest, CertificateSigningRequestCondition } from './csr.ts';
import { approvedCondition, caFiles, csrObject, managerConfig, type CAFiles } from './testing.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const path = (name: string): string => `/apis/certificates.k8s.io/v1/certificatesigningrequests/${name}`;

let files: CAFiles;
before(async () => {
  files = await caFiles();
});
after(() => files.remove());

/** The tests' clock starts here; requests are made relative to it. */
const start = Date.parse('2026-01-01T00:00:00Z');
const at = (offsetMs: number): string => formatTimeOf(new Date(start + offsetMs));
const condition = (type: string, offsetMs: number): CertificateSigningRequestCondition => ({ type, status: 'True', lastUpdateTime: at(offsetMs) });

/** A client certificate valid from the start for `validityMs`. */
const certificate = async (validityMs: number): Promise<string> =>
  certifyClientKey(files.ca, (await generateKeyPair()).publicKey, { commonName: 'u', now: new Date(start), validityMs });

interface Fixture {
  ctx: TestContext<ControllerManagerConfig>;
  cleaner: CSRCleaner;
  add: (csr: CertificateSigningRequest) => void;
}

function fixture(): Fixture {
  const ctx = testContext(managerConfig());
  const informer = ctx.informers.of<CertificateSigningRequest>('certificatesigningrequests');
  return { ctx, cleaner: new CSRCleaner(ctx, informer), add: (csr) => informer.set(csr) };
}

const request = (
  name: string,
  opts: { conditions?: CertificateSigningRequestCondition[]; certificate?: string; createdAt?: number } = {},
): CertificateSigningRequest =>
  csrObject(name, {
    request: 'unused',
    creationTimestamp: at(opts.createdAt ?? 0),
    ...(opts.conditions ? { conditions: opts.conditions } : {}),
    ...(opts.certificate ? { certificate: opts.certificate } : {}),
  });

describe('csrcleaner', () => {
  describe('deadlines', () => {
    const cases: { name: string; csr: () => Promise<CertificateSigningRequest>; deadlineMs: number | undefined }[] = [
      { name: 'pending: 24 hours after creation', csr: async () => request('p', { createdAt: 10 * MINUTE }), deadlineMs: 10 * MINUTE + 24 * HOUR },
      {
        name: 'denied: an hour after the denial',
        csr: async () => request('d', { conditions: [condition('Denied', 5 * MINUTE)] }),
        deadlineMs: 5 * MINUTE + HOUR,
      },
      {
        name: 'failed: an hour after the failure',
        csr: async () => request('f', { conditions: [condition('Approved', 0), condition('Failed', 7 * MINUTE)] }),
        deadlineMs: 7 * MINUTE + HOUR,
      },
      {
        name: 'issued: an hour after the approval',
        csr: async () => request('i', { conditions: [condition('Approved', 2 * MINUTE)], certificate: await certificate(365 * 24 * HOUR) }),
        deadlineMs: 2 * MINUTE + HOUR,
      },
      {
        name: 'issued: when the certificate expires, if sooner',
        csr: async () => request('e', { conditions: [condition('Approved', 0)], certificate: await certificate(20 * MINUTE) }),
        deadlineMs: 20 * MINUTE,
      },
      {
        name: 'issued with a certificate that does not parse: an hour after the approval',
        csr: async () =>
          request('g', { conditions: [condition('Approved', 0)], certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' }),
        deadlineMs: HOUR,
      },
      { name: 'approved, not yet issued: never', csr: async () => request('a', { conditions: [condition('Approved', 0)] }), deadlineMs: undefined },
      {
        name: 'a condition without its time: never',
        csr: async () => request('t', { conditions: [{ type: 'Denied', status: 'True' }] }),
        deadlineMs: undefined,
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const deadline = cleanupDeadline(await c.csr());
        assert.equal(deadline === undefined ? undefined : deadline.atMs - start, c.deadlineMs);
      });
    }
  });

  it('waits for a deadline on the clock and deletes once it has passed, with the UID as precondition', async () => {
    const { ctx, cleaner, add } = fixture();
    add(request('d', { conditions: [condition('Denied', 0)] }));
    assert.deepEqual(await cleaner.reconcile('d'), { requeueAfterMs: HOUR + 1 });
    ctx.clock.step(HOUR);
    assert.deepEqual(await cleaner.reconcile('d'), { requeueAfterMs: 1 });
    assert.deepEqual(ctx.api.actions, []);
    ctx.clock.step(1);
    assert.equal(await cleaner.reconcile('d'), undefined);
    assert.deepEqual(ctx.api.actions, [{ verb: 'delete', path: path('d'), body: { preconditions: { uid: 'uid-d' } }, query: undefined }]);
  });

  it('a request already gone, or replaced under its name, needs nothing more; other failures are retried', async () => {
    const { ctx, cleaner, add } = fixture();
    ctx.clock.step(2 * HOUR);
    add(request('gone', { conditions: [condition('Denied', 0)] }));
    add(request('replaced', { conditions: [condition('Denied', 0)] }));
    add(request('broken', { conditions: [condition('Denied', 0)] }));
    const gr = { group: 'certificates.k8s.io', resource: 'certificatesigningrequests' };
    ctx.api.react((action) => {
      if (action.path === path('gone')) throw notFound(gr, 'gone');
      if (action.path === path('replaced')) throw conflict(gr, 'replaced', 'Precondition failed: UID in precondition: uid-replaced, UID in object meta: other');
      if (action.path === path('broken')) throw new Error('connection reset');
      return undefined;
    });
    assert.equal(await cleaner.reconcile('gone'), undefined);
    assert.equal(await cleaner.reconcile('replaced'), undefined);
    await assert.rejects(cleaner.reconcile('broken'), { message: 'unable to delete CSR "broken": connection reset' });
  });

  it('runs level-based: each request is requeued for its own deadline, no polling', async () => {
    const { ctx } = fixture();
    const informer = ctx.informers.of<CertificateSigningRequest>('certificatesigningrequests');
    informer.set(request('denied', { conditions: [condition('Denied', 0)] }));
    informer.set(request('pending', { createdAt: 0 }));
    informer.set(request('approved', { conditions: [approvedCondition(at(0))] }));
    await csrCleanerController.start(ctx);
    await waitFor('both deadlines scheduled', () => ctx.clock.pending === 2);
    assert.deepEqual(ctx.api.actions, []);

    ctx.clock.step(HOUR + 1);
    await waitFor('the denied request deleted', () => ctx.api.writes().length === 1);
    assert.deepEqual(ctx.api.writes(), [`DELETE ${path('denied')}`]);
    informer.remove('denied');

    // The approved request is issued now: its hour runs from the approval, which is past.
    informer.set(request('approved', { conditions: [approvedCondition(at(0))], certificate: await certificate(365 * 24 * HOUR) }));
    await waitFor('the issued request deleted', () => ctx.api.writes().length === 2);
    assert.equal(ctx.api.writes()[1], `DELETE ${path('approved')}`);

    ctx.clock.step(23 * HOUR);
    await waitFor('the pending request deleted', () => ctx.api.writes().length === 3);
    assert.equal(ctx.api.writes()[2], `DELETE ${path('pending')}`);
    await settle();
    assert.equal(ctx.clock.pending, 0, 'nothing left scheduled');
    ctx.stop();
  });
});
