/**
 * CertificateSigningRequest's conditions as the writes through `approval` and `status` treat them
 * (upstream's approval and status strategies): the server stamps their times, `approval` changes
 * nothing but the conditions, and `status` cannot alter the Approved and Denied decisions that
 * `approval` recorded.
 */
import { formatTimeOf } from '../../../../shared/go/time.ts';
import type { RequestContext } from '../../definition.ts';
import { keepSpec } from '../../status-subresource.ts';
import type {
  CertificateSigningRequest,
  CertificateSigningRequestCondition,
  CertificateSigningRequestStatus,
} from '../../../../shared/api/certificate-signing-request.ts';

export const conditionsOf = (csr: CertificateSigningRequest | undefined): CertificateSigningRequestCondition[] => csr?.status?.conditions ?? [];

export const conditionsOfType = (csr: CertificateSigningRequest, type: string): CertificateSigningRequestCondition[] =>
  conditionsOf(csr).filter((c) => (c.type ?? '') === type);

/** Fills lastUpdateTime with now, and lastTransitionTime from a stored condition of the same type and status, else now. */
function populateConditionTimestamps(csr: CertificateSigningRequest, old: CertificateSigningRequest, ctx: RequestContext): void {
  const now = formatTimeOf(ctx.now);
  for (const c of conditionsOf(csr)) {
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) {
      const previous = conditionsOf(old).find((o) => o.type === c.type && o.status === c.status && o.lastTransitionTime);
      c.lastTransitionTime = previous?.lastTransitionTime ?? now;
    }
  }
}

/**
 * Through /status, existing Approved and Denied conditions keep their stored content when their
 * count is unchanged; adding or removing them is left for validation to reject.
 */
function preserveConditionInstances(csr: CertificateSigningRequest, old: CertificateSigningRequest, type: string): void {
  const conditions = conditionsOf(csr);
  const newIndices = conditions.flatMap((c, i) => ((c.type ?? '') === type ? [i] : []));
  const oldConditions = conditionsOfType(old, type);
  if (newIndices.length !== oldConditions.length) return;
  newIndices.forEach((index, i) => {
    conditions[index] = structuredClone(oldConditions[i] ?? {});
  });
}

/** A write through `approval`: the client's conditions, their times stamped; spec and the rest of status as stored. */
export function prepareApproval(csr: CertificateSigningRequest, old: CertificateSigningRequest, ctx: RequestContext): void {
  populateConditionTimestamps(csr, old, ctx);
  const conditions = csr.status?.conditions;
  keepSpec(csr, old);
  const status: CertificateSigningRequestStatus = structuredClone(old.status ?? {});
  if (conditions === undefined) delete status.conditions;
  else status.conditions = conditions;
  csr.status = status;
}

/** A write through `status`, once its spec is kept: Approved and Denied as stored, the times of every condition stamped. */
export function prepareStatusConditions(csr: CertificateSigningRequest, old: CertificateSigningRequest, ctx: RequestContext): void {
  preserveConditionInstances(csr, old, 'Approved');
  preserveConditionInstances(csr, old, 'Denied');
  populateConditionTimestamps(csr, old, ctx);
}
