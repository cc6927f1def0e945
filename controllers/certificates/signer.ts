/**
 * csrsigning (upstream's CSRSigningController, one per built-in signer there, one controller for
 * the four here): signs approved requests of the built-in signers with the CA files configured
 * for each (--cluster-signing-cert-file and -key-file, or the per-signer flags).
 *
 * A request is left alone unless it is approved and not denied, not Failed, not yet issued, and
 * names a built-in signer that has a CA. Its certificate is written through `status`. A request
 * the signer's rules refuse, or whose PKCS#10 does not parse (upstream retries these forever;
 * spec.request cannot change, so a retry could never succeed), gets a Failed condition with reason
 * SignerValidationFailure instead. A CA that cannot be loaded or has expired fails the attempt,
 * which is retried with back-off until the files are fixed.
 */
import { isStatusError } from '../../shared/api/errors.ts';
import { deepCopy } from '../../shared/api/types.ts';
import { formatTimeOf } from '../../shared/go/time.ts';
import { signingFilesFor, type ControllerManagerConfig } from '../config.ts';
import type { ControllerContext, ReconcileResult } from '../framework/controller.ts';
import type { Informer } from '../../shared/client/informer.ts';
import type { RegisteredController } from '../registry.ts';
import { csrInformer, runCSRWorkers } from './csr-controller.ts';
import {
  builtInSignerNames,
  certificateControllerServiceAccount,
  csrPath,
  hasTrueCondition,
  isApproved,
  isIssued,
  type CertificateSigningRequest,
} from './csr.ts';
import { issueCertificate } from './issue.ts';
import { CSRParseError, parseCertificateRequest, type CertificateRequest } from './request.ts';
import { SigningCA } from './signing-ca.ts';
import { certificateUsages, SigningPolicyError, type CertificateUsages } from './signing-policy.ts';
import { signerRules, signerValidationFailure } from './signer-rules.ts';
import { WrittenVersions } from './written-versions.ts';

/** Upstream runs csrsigning with five workers. */
const WORKERS = 5;

export class CSRSigner {
  private readonly cas = new Map<string, SigningCA>();
  private readonly written = new WrittenVersions();

  constructor(
    private readonly ctx: ControllerContext<ControllerManagerConfig>,
    private readonly informer: Informer<CertificateSigningRequest>,
  ) {
    const unconfigured: string[] = [];
    for (const signerName of builtInSignerNames) {
      const files = signingFilesFor(ctx.config, signerName);
      if (files) this.cas.set(signerName, new SigningCA(signerName, files, ctx.clock, ctx.logger));
      else unconfigured.push(signerName);
    }
    if (unconfigured.length > 0) {
      ctx.logger.info(
        { signers: unconfigured },
        'no signing CA given for these signers (--cluster-signing-cert-file/--cluster-signing-key-file); their requests stay unsigned',
      );
    }
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const csr = this.informer.get(key);
    if (!csr) return this.written.forget(key);
    if (isIssued(csr) || !isApproved(csr) || hasTrueCondition(csr, 'Failed')) return;
    const signerName = csr.spec?.signerName ?? '';
    const rule = signerRules[signerName];
    const ca = this.cas.get(signerName);
    if (!rule || !ca || this.written.handled(csr)) return;

    const name = csr.metadata.name ?? '';
    const usages = csr.spec?.usages ?? [];
    let req: CertificateRequest;
    let certificateUsagesOf: CertificateUsages;
    try {
      req = parseCertificateRequest(csr.spec?.request);
    } catch (err) {
      if (!(err instanceof CSRParseError)) throw err;
      return this.fail(csr, `unable to parse csr "${name}": ${err.message}`);
    }
    const refusal = rule(req, usages);
    if (refusal !== null) return this.fail(csr, refusal);
    try {
      certificateUsagesOf = certificateUsages(usages);
    } catch (err) {
      if (!(err instanceof SigningPolicyError)) throw err;
      return this.fail(csr, err.message);
    }

    let pem: string;
    try {
      pem = await issueCertificate(await ca.current(), req, {
        usages: certificateUsagesOf,
        expirationSeconds: csr.spec?.expirationSeconds,
        maxDurationMs: this.ctx.config.clusterSigningDurationMs,
        nowMs: this.ctx.clock.now(),
      });
    } catch (err) {
      throw new Error(`error auto signing csr: ${err instanceof Error ? err.message : String(err)}`);
    }
    const signed = deepCopy(csr);
    signed.status = { ...signed.status, certificate: Buffer.from(pem).toString('base64') };
    await this.writeStatus(csr, signed, 'error updating signature for csr');
  }

  /** Adds the Failed condition with `message`, as upstream's signer words its refusals. */
  private async fail(csr: CertificateSigningRequest, message: string): Promise<void> {
    const failed = deepCopy(csr);
    failed.status = {
      ...failed.status,
      conditions: [
        ...(failed.status?.conditions ?? []),
        { type: 'Failed', status: 'True', reason: signerValidationFailure, message, lastUpdateTime: formatTimeOf(new Date(this.ctx.clock.now())) },
      ],
    };
    await this.writeStatus(csr, failed, 'error adding failure condition for csr');
  }

  /** PUT status; a request deleted meanwhile needs nothing more, any other failure is retried. */
  private async writeStatus(csr: CertificateSigningRequest, body: CertificateSigningRequest, failure: string): Promise<void> {
    try {
      await this.ctx.api.update(csrPath(csr.metadata.name ?? '', 'status'), body);
    } catch (err) {
      if (isStatusError(err, 'NotFound')) return;
      throw new Error(`${failure}: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.written.record(csr);
  }
}

export const csrSigningController: RegisteredController = {
  name: 'certificatesigningrequest-signing-controller',
  aliases: ['csrsigning'],
  enabledByDefault: true,
  serviceAccount: certificateControllerServiceAccount,
  start(ctx) {
    const informer = csrInformer(ctx);
    const signer = new CSRSigner(ctx, informer);
    runCSRWorkers(ctx, informer, 'csrsigning', WORKERS, (key) => signer.reconcile(key));
  },
};
