/**
 * csrcleaner (upstream's CSRCleanerController): deletes requests nobody needs any more, so that
 * automatically created and approved requests do not pile up:
 * - approved and issued, one hour after the approval;
 * - denied, or failed, one hour after that condition was written;
 * - pending (no condition at all), 24 hours after creation;
 * - issued, once the certificate has expired, however recent the approval.
 * An approved request that is neither issued nor failed stays (its signer may still act).
 *
 * Level-based where upstream polls hourly: each request is reconciled when it changes, deleted
 * once a deadline has passed, and otherwise queued again for its earliest deadline on the
 * injected clock. The delete carries the request's UID, so a newer request of the same name is
 * never deleted for an older one's deadlines.
 */
import { isStatusError } from '../../shared/api/errors.ts';
import { formatGoDuration } from '../../shared/go/duration.ts';
import { decodePem } from '../../shared/go/pem.ts';
import { tryParseTime } from '../../shared/go/time.ts';
import { parseCertificates } from '../../shared/go/x509.ts';
import type { ControllerContext, ReconcileResult } from '../framework/controller.ts';
import type { Informer } from '../../shared/client/informer.ts';
import type { RegisteredController } from '../registry.ts';
import { csrInformer, runCSRWorkers } from './csr-controller.ts';
import { certificateControllerServiceAccount, csrPath, isIssued, type CertificateSigningRequest } from './csr.ts';

const HOUR_MS = 60 * 60 * 1000;
export const APPROVED_EXPIRATION_MS = HOUR_MS;
export const DENIED_EXPIRATION_MS = HOUR_MS;
/** Upstream applies the denied window to failed requests. */
export const FAILED_EXPIRATION_MS = DENIED_EXPIRATION_MS;
export const PENDING_EXPIRATION_MS = 24 * HOUR_MS;

/** Upstream runs the cleaner with one worker. */
const WORKERS = 1;

/** The moment after which a request is garbage, and why (upstream's log message). */
export interface CleanupDeadline {
  atMs: number;
  reason: string;
}

/** A metav1.Time in milliseconds; undefined for an absent or unreadable time (Go's zero time). */
function timeMs(text: string | undefined): number | undefined {
  const instant = text ? tryParseTime(text) : null;
  return instant ? instant.seconds * 1000 + Math.floor(instant.nanos / 1e6) : undefined;
}

/** notAfter of the first certificate of status.certificate; undefined when it does not parse, as upstream ignores it then. */
function certificateNotAfterMs(csr: CertificateSigningRequest): number | undefined {
  const block = decodePem(Buffer.from(csr.status?.certificate ?? '', 'base64')).block;
  if (!block) return undefined;
  try {
    return parseCertificates(block.bytes)[0]?.notAfter.getTime();
  } catch {
    return undefined;
  }
}

/** The earliest deadline of upstream's rules that apply to the request as it is now; undefined when none ever will. */
export function cleanupDeadline(csr: CertificateSigningRequest): CleanupDeadline | undefined {
  const candidates: CleanupDeadline[] = [];
  const add = (fromMs: number | undefined, windowMs: number, reason: string): void => {
    if (fromMs !== undefined) candidates.push({ atMs: fromMs + windowMs, reason });
  };
  const conditions = csr.status?.conditions ?? [];
  const issued = isIssued(csr);
  for (const c of conditions) {
    const updated = timeMs(c.lastUpdateTime);
    if (c.type === 'Approved' && issued) {
      add(updated, APPROVED_EXPIRATION_MS, `it is more than ${formatGoDuration(APPROVED_EXPIRATION_MS)} old and approved`);
      add(certificateNotAfterMs(csr), 0, 'the associated certificate is expired');
    } else if (c.type === 'Denied') {
      add(updated, DENIED_EXPIRATION_MS, `it is more than ${formatGoDuration(DENIED_EXPIRATION_MS)} old and denied`);
    } else if (c.type === 'Failed') {
      add(updated, FAILED_EXPIRATION_MS, `it is more than ${formatGoDuration(FAILED_EXPIRATION_MS)} old and failed`);
    }
  }
  if (conditions.length === 0) {
    add(timeMs(csr.metadata.creationTimestamp), PENDING_EXPIRATION_MS, `it is more than ${formatGoDuration(PENDING_EXPIRATION_MS)} old and unhandled`);
  }
  return candidates.reduce<CleanupDeadline | undefined>((earliest, c) => (earliest === undefined || c.atMs < earliest.atMs ? c : earliest), undefined);
}

export class CSRCleaner {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly informer: Informer<CertificateSigningRequest>,
  ) {}

  async reconcile(key: string): Promise<ReconcileResult> {
    const csr = this.informer.get(key);
    if (!csr) return;
    const deadline = cleanupDeadline(csr);
    if (!deadline) return;
    const now = this.ctx.clock.now();
    // Upstream deletes once the deadline has strictly passed; a millisecond more gets there.
    if (now <= deadline.atMs) return { requeueAfterMs: deadline.atMs - now + 1 };
    const name = csr.metadata.name ?? '';
    this.ctx.logger.info({ csr: name }, `Cleaning CSR as ${deadline.reason}.`);
    try {
      await this.ctx.api.delete(csrPath(name), csr.metadata.uid ? { preconditions: { uid: csr.metadata.uid } } : undefined);
    } catch (err) {
      // Gone already, or replaced by a newer request of the same name: nothing of this one is left to delete.
      if (isStatusError(err, 'NotFound') || isStatusError(err, 'Conflict')) return;
      throw new Error(`unable to delete CSR "${name}": ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

export const csrCleanerController: RegisteredController = {
  name: 'certificatesigningrequest-cleaner-controller',
  aliases: ['csrcleaner'],
  enabledByDefault: true,
  serviceAccount: certificateControllerServiceAccount,
  start(ctx) {
    const informer = csrInformer(ctx);
    const cleaner = new CSRCleaner(ctx, informer);
    runCSRWorkers(ctx, informer, 'csrcleaner', WORKERS, (key) => cleaner.reconcile(key));
  },
};
