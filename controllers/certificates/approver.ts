/**
 * csrapproving (upstream's sarApprover): approves the kubelet client certificates of
 * kubernetes.io/kube-apiserver-client-kubelet when the requester may have them, as a
 * SubjectAccessReview for the request's own user decides:
 * - selfnodeclient: a node renewing its own certificate (the requester's user name is the CN);
 * - nodeclient: a bootstrap identity asking for a node's first certificate.
 * The request must be a kubelet client request exactly (kubelet-requests.ts). An approval is an
 * Approved condition with reason AutoApproved written through `approval`. Requests already
 * issued, approved or denied are left alone; so are requests recognised for no rule, and requests
 * whose PKCS#10 does not parse (spec.request never changes, so they never could be recognised).
 * A recognised request whose reviews all say no is retried with back-off (permissions may be
 * granted later), as upstream's ignorable error is.
 */
import { isStatusError } from '../../shared/api/errors.ts';
import { deepCopy } from '../../shared/api/types.ts';
import type { SubjectAccessReview } from '../../apiserver/registry/authorization/schema.ts';
import type { ControllerContext, ReconcileResult } from '../framework/controller.ts';
import type { Informer } from '../../shared/client/informer.ts';
import type { RegisteredController } from '../registry.ts';
import { csrInformer, runCSRWorkers } from './csr-controller.ts';
import {
  approvalState,
  certificateControllerServiceAccount,
  csrPath,
  isIssued,
  kubeAPIServerClientKubeletSignerName,
  type CertificateSigningRequest,
} from './csr.ts';
import { kubeletClientError } from './kubelet-requests.ts';
import { CSRParseError, parseCertificateRequest, type CertificateRequest } from './request.ts';
import { WrittenVersions } from './written-versions.ts';

/** Upstream runs csrapproving with five workers. */
const WORKERS = 5;

const subjectAccessReviewsPath = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

interface Recognizer {
  /** The subresource of certificatesigningrequests the requester needs `create` on. */
  subresource: 'selfnodeclient' | 'nodeclient';
  recognize(csr: CertificateSigningRequest, req: CertificateRequest): boolean;
  successMessage: string;
}

const isNodeClientCert = (csr: CertificateSigningRequest, req: CertificateRequest): boolean =>
  csr.spec?.signerName === kubeAPIServerClientKubeletSignerName && kubeletClientError(req, csr.spec.usages ?? []) === null;

/** Tried in this order; the first allowed approves. */
const recognizers: readonly Recognizer[] = [
  {
    subresource: 'selfnodeclient',
    recognize: (csr, req) => (csr.spec?.username ?? '') === req.subject.commonName && isNodeClientCert(csr, req),
    successMessage: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
  },
  {
    subresource: 'nodeclient',
    recognize: isNodeClientCert,
    successMessage: 'Auto approving kubelet client certificate after SubjectAccessReview.',
  },
];

export class CSRApprover {
  private readonly written = new WrittenVersions();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly informer: Informer<CertificateSigningRequest>,
  ) {}

  async reconcile(key: string): Promise<ReconcileResult> {
    const csr = this.informer.get(key);
    if (!csr) return this.written.forget(key);
    const { approved, denied } = approvalState(csr);
    if (isIssued(csr) || approved || denied || this.written.handled(csr)) return;
    // Every rule is for this signer: others' requests need not even be parsed.
    if (csr.spec?.signerName !== kubeAPIServerClientKubeletSignerName) return;
    const name = csr.metadata.name ?? '';
    let req: CertificateRequest;
    try {
      req = parseCertificateRequest(csr.spec?.request);
    } catch (err) {
      if (!(err instanceof CSRParseError)) throw err;
      this.ctx.logger.info({ csr: name, err: err.message }, 'unable to parse csr; not auto-approving it');
      return;
    }
    const tried: string[] = [];
    for (const recognizer of recognizers) {
      if (!recognizer.recognize(csr, req)) continue;
      tried.push(recognizer.subresource);
      if (await this.authorize(csr, recognizer.subresource)) return this.approve(csr, recognizer.successMessage);
    }
    if (tried.length > 0) throw new Error(`recognized csr "${name}" as [${tried.join(' ')}] but subject access review was not approved`);
  }

  /** Whether the request's user may create certificatesigningrequests/<subresource>. */
  private async authorize(csr: CertificateSigningRequest, subresource: string): Promise<boolean> {
    const spec = csr.spec ?? {};
    const review: SubjectAccessReview = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: {
        user: spec.username ?? '',
        ...(spec.uid ? { uid: spec.uid } : {}),
        ...(spec.groups?.length ? { groups: spec.groups } : {}),
        ...(spec.extra && Object.keys(spec.extra).length > 0 ? { extra: spec.extra } : {}),
        resourceAttributes: { verb: 'create', group: 'certificates.k8s.io', resource: 'certificatesigningrequests', subresource },
      },
    };
    const answer = await this.ctx.api.create<SubjectAccessReview>(subjectAccessReviewsPath, review);
    return answer.status?.allowed === true;
  }

  private async approve(csr: CertificateSigningRequest, message: string): Promise<void> {
    const approvedCSR = deepCopy(csr);
    approvedCSR.status = {
      ...approvedCSR.status,
      conditions: [...(approvedCSR.status?.conditions ?? []), { type: 'Approved', status: 'True', reason: 'AutoApproved', message }],
    };
    try {
      await this.ctx.api.update(csrPath(csr.metadata.name ?? '', 'approval'), approvedCSR);
    } catch (err) {
      if (isStatusError(err, 'NotFound')) return;
      throw new Error(`error updating approval for csr: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.written.record(csr);
  }
}

export const csrApprovingController: RegisteredController = {
  name: 'certificatesigningrequest-approving-controller',
  aliases: ['csrapproving'],
  enabledByDefault: true,
  serviceAccount: certificateControllerServiceAccount,
  start(ctx) {
    const informer = csrInformer(ctx);
    const approver = new CSRApprover(ctx, informer);
    runCSRWorkers(ctx, informer, 'csrapproving', WORKERS, (key) => approver.reconcile(key));
  },
};
