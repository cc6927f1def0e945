/**
 * Upstream's validateTopologySpreadConstraints: maxSkew positive, a topologyKey, whenUnsatisfiable
 * DoNotSchedule or ScheduleAnyway, each (topologyKey, whenUnsatisfiable) pair once, minDomains
 * positive and only with DoNotSchedule, the node inclusion policies Honor or Ignore, matchLabelKeys
 * qualified names absent from the label selector, and the label selector itself.
 */
import { append } from '../api/append.ts';
import { duplicate, forbidden, invalid, notSupported, required, type FieldError, type FieldPath } from '../api/field.ts';
import type { TopologySpreadConstraint } from '../api/pod.ts';
import type { LabelSelectorObject } from '../selectors/labels.ts';
import { validateLabelSelector } from './label-selector.ts';
import { validateQualifiedName } from './qualified-name.ts';

const notPositive = 'must be greater than zero';
const actions = ['DoNotSchedule', 'ScheduleAnyway'];
const inclusionPolicies = ['Honor', 'Ignore'];
const inclusionPolicyFields = ['nodeAffinityPolicy', 'nodeTaintsPolicy'] as const satisfies readonly (keyof TopologySpreadConstraint)[];

/** validateMatchLabelKeysInTopologySpread. */
function validateMatchLabelKeys(keys: readonly string[], selector: LabelSelectorObject | undefined, path: FieldPath): FieldError[] {
  if (keys.length === 0) return [];
  const errors: FieldError[] = [];
  const selectorKeys = new Set<string>();
  if (selector) {
    for (const key of Object.keys(selector.matchLabels ?? {})) selectorKeys.add(key);
    for (const expression of selector.matchExpressions ?? []) selectorKeys.add(expression.key ?? '');
  } else {
    errors.push(forbidden(path, 'must not be specified when labelSelector is not set'));
  }
  keys.forEach((key, i) => {
    append(errors, validateQualifiedName(key, path.index(i)));
    if (selectorKeys.has(key)) errors.push(invalid(path.index(i), key, 'exists in both matchLabelKeys and labelSelector'));
  });
  return errors;
}

/** validateTopologySpreadConstraints, at `spec.topologySpreadConstraints`. */
export function validateTopologySpreadConstraints(constraints: readonly TopologySpreadConstraint[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  constraints.forEach((constraint, i) => {
    const at = path.index(i);
    const maxSkew = constraint.maxSkew ?? 0;
    if (maxSkew <= 0) errors.push(invalid(at.child('maxSkew'), maxSkew, notPositive));
    const topologyKey = constraint.topologyKey ?? '';
    if (!topologyKey) errors.push(required(at.child('topologyKey'), 'can not be empty'));
    const action = constraint.whenUnsatisfiable ?? '';
    if (!actions.includes(action)) errors.push(notSupported(at.child('whenUnsatisfiable'), action, actions));
    const repeated = constraints.slice(i + 1).some((other) => (other.topologyKey ?? '') === topologyKey && (other.whenUnsatisfiable ?? '') === action);
    if (repeated) errors.push(duplicate(at.child('{topologyKey, whenUnsatisfiable}'), `{${topologyKey}, ${action}}`));
    const minDomains = constraint.minDomains;
    if (minDomains !== undefined) {
      if (minDomains <= 0) errors.push(invalid(at.child('minDomains'), minDomains, notPositive));
      if (action !== 'DoNotSchedule')
        errors.push(invalid(at.child('minDomains'), minDomains, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${action}`));
    }
    for (const key of inclusionPolicyFields) {
      const policy = constraint[key];
      if (policy !== undefined && !inclusionPolicies.includes(policy)) errors.push(notSupported(at.child(key), policy, inclusionPolicies));
    }
    append(errors, validateMatchLabelKeys(constraint.matchLabelKeys ?? [], constraint.labelSelector, at.child('matchLabelKeys')));
    append(errors, validateLabelSelector(constraint.labelSelector, false, at.child('labelSelector')));
  });
  return errors;
}
