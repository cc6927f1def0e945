/**
 * Lease (coordination.k8s.io/v1): a named lock with a holder and a renewal time, used for node
 * heartbeats and leader election. A PUT may create one. `strategy` and `preferredHolder` belong to
 * coordinated leader election, an alpha feature that is off in upstream 1.32: they are dropped on
 * write unless the stored lease already has them.
 */
import { FieldPath, forbidden, invalid, notSupported, type FieldError } from '../../../shared/api/field.ts';
import { describe, int32, kindSchema, microTime, named, object, pb, string, type Schema } from '../../../shared/api/schema.ts';
import type { KubeObject } from '../../../shared/api/types.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { age, ageColumn, nameColumn } from '../table.ts';
import { validateQualifiedName } from '../../../shared/validation/qualified-name.ts';
import { append } from '../../../shared/api/append.ts';

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  /** MicroTime: RFC 3339 with microseconds. */
  acquireTime?: string;
  /** MicroTime: RFC 3339 with microseconds. */
  renewTime?: string;
  leaseTransitions?: number;
  strategy?: string;
  preferredHolder?: string;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

const leaseStrategies = ['OldestEmulationVersion'];
const specPath = FieldPath.root('spec');

/**
 * A strategy without a '/' must be a built-in one; a prefixed one must be a qualified name.
 * Upstream appends `strategy` to a path that already ends in it, hence `spec.strategy.strategy`.
 */
function validateStrategy(strategy: string): FieldError[] {
  const path = specPath.child('strategy', 'strategy');
  if (!strategy.includes('/')) return leaseStrategies.includes(strategy) ? [] : [notSupported(path, strategy, leaseStrategies)];
  return validateQualifiedName(strategy, path);
}

function validateLeaseSpec(spec: LeaseSpec): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds <= 0) {
    errs.push(invalid(specPath.child('leaseDurationSeconds'), spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions < 0) {
    errs.push(invalid(specPath.child('leaseTransitions'), spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  if (spec.strategy !== undefined) append(errs, validateStrategy(spec.strategy));
  if (spec.preferredHolder && !spec.strategy) {
    errs.push(forbidden(specPath.child('preferredHolder'), 'may only be specified if `strategy` is defined'));
  }
  return errs;
}

const leaseSpec = (): Schema =>
  named(
    'io.k8s.api.coordination.v1.LeaseSpec',
    'Who holds a lease, since when, and for how long it stays valid without renewal.',
    object({
      holderIdentity: pb(1, string('Identity of the current holder, such as a node or a leader candidate; empty when free.'), 'optional'),
      leaseDurationSeconds: pb(
        2,
        int32('Seconds after renewTime during which the lease stays held; other candidates may take it over once they pass.'),
        'optional',
      ),
      acquireTime: pb(3, microTime('When the current holder acquired the lease.'), 'optional'),
      renewTime: pb(4, microTime('When the current holder last renewed the lease.'), 'optional'),
      leaseTransitions: pb(5, int32('How many times the lease has changed holders.'), 'optional'),
      strategy: pb(
        6,
        string('How the next holder is chosen in coordinated leader election, such as OldestEmulationVersion. Alpha; dropped unless already set.'),
        'optional',
      ),
      preferredHolder: pb(
        7,
        string(
          'Candidate coordinated leader election wants to take over; the current holder should release the lease to it. Alpha; dropped unless already set.',
        ),
        'optional',
      ),
    }),
  );

export const leaseDefinition = defineResource<Lease>({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  singular: 'lease',
  namespaced: true,
  verbs: allVerbs,
  schema: describe(
    kindSchema({ spec: pb(2, describe(leaseSpec(), 'The holder of the lease and its timing.')) }),
    'A named lock with a holder and a renewal time, for node heartbeats and leader election.',
  ),
  strategy: {
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: false,
    prepareForCreate(obj) {
      if (!obj.spec) return;
      delete obj.spec.strategy;
      delete obj.spec.preferredHolder;
    },
    validate(obj) {
      return validateLeaseSpec(obj.spec ?? {});
    },
    prepareForUpdate(obj, old) {
      if (!obj.spec) return;
      if (old.spec?.strategy === undefined) delete obj.spec.strategy;
      if (old.spec?.preferredHolder === undefined) delete obj.spec.preferredHolder;
    },
  },
  table: {
    columns: [
      nameColumn,
      {
        name: 'Holder',
        type: 'string',
        description:
          'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
      },
      ageColumn,
    ],
    cells: (lease, now) => [lease.metadata.name, lease.spec?.holderIdentity ?? '', age(lease, now)],
  },
});
