import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forbidden } from '../../shared/api/errors.ts';
import { waitFor } from '../../apiserver/testing/wait-for.ts';
import type { SubjectAccessReview } from '../../apiserver/registry/authorization/schema.ts';
import type { ControllerManagerConfig } from '../config.ts';
import { testContext, type ApiAction, type TestContext } from '../framework/testing.ts';
import { CSRApprover, csrApprovingController } from './approver.ts';
import type { CertificateSigningRequest } from './csr.ts';
import { approvedCondition, certificateRequest, csrObject, managerConfig, type CSROptions } from './testing.ts';

const sarPath = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
const approvalPath = (name: string): string => `/apis/certificates.k8s.io/v1/certificatesigningrequests/${name}/approval`;
const kubeletSigner = 'kubernetes.io/kube-apiserver-client-kubelet';

interface Fixture {
  ctx: TestContext<ControllerManagerConfig>;
  approver: CSRApprover;
  add: (csr: CertificateSigningRequest) => void;
  /** The subresources the reviews asked about, in order. */
  reviewed: () => string[];
}

/** A context whose SubjectAccessReviews allow exactly the subresources in `allowed`. */
function fixture(allowed: string[]): Fixture {
  const ctx = testContext(managerConfig());
  ctx.api.react((action: ApiAction) => {
    if (action.verb !== 'create' || action.path !== sarPath) return undefined;
    const review = action.body as SubjectAccessReview;
    return { ...review, status: { allowed: allowed.includes(review.spec?.resourceAttributes?.subresource ?? '') } };
  });
  const informer = ctx.informers.of<CertificateSigningRequest>('certificatesigningrequests');
  return {
    ctx,
    approver: new CSRApprover(ctx, informer),
    add: (csr) => informer.set(csr),
    reviewed: () => ctx.api.actions.filter((a) => a.path === sarPath).map((a) => (a.body as SubjectAccessReview).spec?.resourceAttributes?.subresource ?? ''),
  };
}

/** A kubelet client request of node `node`, made by `username`. */
async function kubeletRequest(
  node: string,
  username: string,
  opts: Partial<CSROptions> & { subject?: string; dnsNames?: string[] } = {},
): Promise<CertificateSigningRequest> {
  const request = await certificateRequest({
    subject: opts.subject ?? `O=system:nodes,CN=system:node:${node}`,
    ...(opts.dnsNames ? { dnsNames: opts.dnsNames } : {}),
  });
  return csrObject('k', { request, signerName: kubeletSigner, usages: ['digital signature', 'client auth'], username, ...opts });
}

describe('csrapproving', () => {
  it('approves a bootstrap request for a node client certificate after a nodeclient review of the requester', async () => {
    const { ctx, approver, add, reviewed } = fixture(['nodeclient']);
    add(await kubeletRequest('n1', 'system:bootstrap:abcdef', { groups: ['system:bootstrappers', 'system:authenticated'] }));
    await approver.reconcile('k');

    assert.deepEqual(ctx.api.writes(), [`CREATE ${sarPath}`, `UPDATE ${approvalPath('k')}`]);
    assert.deepEqual(ctx.api.actions[0]?.body, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: {
        user: 'system:bootstrap:abcdef',
        groups: ['system:bootstrappers', 'system:authenticated'],
        resourceAttributes: { verb: 'create', group: 'certificates.k8s.io', resource: 'certificatesigningrequests', subresource: 'nodeclient' },
      },
    });
    assert.deepEqual(reviewed(), ['nodeclient']);
    const written = ctx.api.actions[1]?.body as CertificateSigningRequest;
    assert.equal(written.metadata.resourceVersion, '10');
    assert.deepEqual(written.status?.conditions, [
      { type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' },
    ]);
  });

  it('approves a node renewing its own certificate after a selfnodeclient review', async () => {
    const { ctx, approver, add, reviewed } = fixture(['selfnodeclient']);
    add(await kubeletRequest('n1', 'system:node:n1', { groups: ['system:nodes'] }));
    await approver.reconcile('k');
    assert.deepEqual(reviewed(), ['selfnodeclient']);
    const written = ctx.api.actions.at(-1)?.body as CertificateSigningRequest;
    assert.equal(written.status?.conditions?.[0]?.message, 'Auto approving self kubelet client certificate after SubjectAccessReview.');
  });

  it('a node asking for another node is no self request; a denied review is retried', async () => {
    const { ctx, approver, add, reviewed } = fixture(['selfnodeclient']);
    add(await kubeletRequest('n2', 'system:node:n1'));
    await assert.rejects(approver.reconcile('k'), { message: 'recognized csr "k" as [nodeclient] but subject access review was not approved' });
    assert.deepEqual(reviewed(), ['nodeclient']);
    assert.deepEqual(ctx.api.writes(), [`CREATE ${sarPath}`]);
  });

  it('a self request tries both reviews before giving up', async () => {
    const { approver, add, reviewed } = fixture([]);
    add(await kubeletRequest('n1', 'system:node:n1'));
    await assert.rejects(approver.reconcile('k'), { message: 'recognized csr "k" as [selfnodeclient nodeclient] but subject access review was not approved' });
    assert.deepEqual(reviewed(), ['selfnodeclient', 'nodeclient']);
  });

  it('a failed review is retried', async () => {
    const { ctx, approver, add } = fixture(['nodeclient']);
    ctx.api.react((action) => {
      if (action.path === sarPath) throw forbidden({ group: 'authorization.k8s.io', resource: 'subjectaccessreviews' }, '', 'no');
      return undefined;
    });
    add(await kubeletRequest('n1', 'system:bootstrap:abcdef'));
    await assert.rejects(approver.reconcile('k'), { reason: 'Forbidden' });
    assert.deepEqual(ctx.api.writes(), [`CREATE ${sarPath}`]);
  });

  describe('does not recognise, and so neither reviews nor approves', () => {
    const cases: { name: string; csr: () => Promise<CertificateSigningRequest> }[] = [
      { name: 'another signer', csr: () => kubeletRequest('n1', 'system:node:n1', { signerName: 'kubernetes.io/kube-apiserver-client' }) },
      { name: 'an organization other than system:nodes', csr: () => kubeletRequest('n1', 'system:node:n1', { subject: 'O=system:masters,CN=system:node:n1' }) },
      { name: 'two organizations', csr: () => kubeletRequest('n1', 'system:node:n1', { subject: 'O=system:nodes,O=extra,CN=system:node:n1' }) },
      { name: 'a common name outside system:node:', csr: () => kubeletRequest('n1', 'alice', { subject: 'O=system:nodes,CN=alice' }) },
      { name: 'subjectAltNames', csr: () => kubeletRequest('n1', 'system:node:n1', { dnsNames: ['n1.example'] }) },
      { name: 'server auth usage', csr: () => kubeletRequest('n1', 'system:node:n1', { usages: ['digital signature', 'server auth'] }) },
      { name: 'missing digital signature', csr: () => kubeletRequest('n1', 'system:node:n1', { usages: ['client auth'] }) },
      {
        name: 'unparsable PKCS#10',
        csr: async () =>
          csrObject('k', { request: Buffer.from('not pem').toString('base64'), signerName: kubeletSigner, usages: ['digital signature', 'client auth'] }),
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const { ctx, approver, add } = fixture(['nodeclient', 'selfnodeclient']);
        add(await c.csr());
        await approver.reconcile('k');
        assert.deepEqual(ctx.api.actions, []);
      });
    }
  });

  it('accepts the RSA usage set (with key encipherment)', async () => {
    const { ctx, approver, add } = fixture(['nodeclient']);
    add(await kubeletRequest('n1', 'system:bootstrap:x', { usages: ['key encipherment', 'digital signature', 'client auth'] }));
    await approver.reconcile('k');
    assert.deepEqual(ctx.api.writes(), [`CREATE ${sarPath}`, `UPDATE ${approvalPath('k')}`]);
  });

  describe('leaves alone requests already decided', () => {
    const decided: { name: string; opts: Partial<CSROptions> }[] = [
      { name: 'approved', opts: { conditions: [approvedCondition()] } },
      { name: 'denied', opts: { conditions: [{ type: 'Denied', status: 'True', reason: 'Nope' }] } },
      { name: 'issued', opts: { certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' } },
    ];
    for (const d of decided) {
      it(d.name, async () => {
        const { ctx, approver, add } = fixture(['nodeclient', 'selfnodeclient']);
        add(await kubeletRequest('n1', 'system:node:n1', d.opts));
        await approver.reconcile('k');
        assert.deepEqual(ctx.api.actions, []);
      });
    }
  });

  it('approves a version once while the cache catches up', async () => {
    const { ctx, approver, add } = fixture(['nodeclient']);
    add(await kubeletRequest('n1', 'system:bootstrap:x'));
    await approver.reconcile('k');
    await approver.reconcile('k');
    assert.deepEqual(ctx.api.writes(), [`CREATE ${sarPath}`, `UPDATE ${approvalPath('k')}`]);
  });

  it('runs as a controller on the shared CSR informer', async () => {
    const { ctx } = fixture(['nodeclient']);
    const informer = ctx.informers.of<CertificateSigningRequest>('certificatesigningrequests');
    await csrApprovingController.start(ctx);
    informer.set(await kubeletRequest('n1', 'system:bootstrap:x'));
    await waitFor('the request approved', () => ctx.api.writes().includes(`UPDATE ${approvalPath('k')}`));
    ctx.stop();
  });
});
