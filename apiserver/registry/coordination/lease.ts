/**
 * Lease (coordination.k8s.io/v1): a named lock with a holder and a renewal time, used for node
 * heartbeats and leader election. A PUT may create one. `strategy` and `preferredHolder` belong to
 * coordinated leader election, an alpha feature that is off in upstream 1.32: they are dropped on
 * write unless the stored lease already has them.
 */
import { FieldPath, forbidden, invalid, notSupported, type FieldError } from '../../../shared/api/field.ts';
import { leaseSchema, type Lease, type LeaseSpec } from '../../../shared/api/lease.ts';
import { allVerbs, defineResource } from '../definition.ts';
import { age, ageColumn, nameColumn } from '../table.ts';
import { validateQualifiedName } from '../../../shared/validation/qualified-name.ts';
import { append } from '../../../shared/api/append.ts';

export type { Lease, LeaseSpec };

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

export const leaseDefinition = defineResource<Lease>({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  singular: 'lease',
  namespaced: true,
  verbs: allVerbs,
  schema: leaseSchema(),
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
