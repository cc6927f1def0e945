/**
 * Upstream's validateAffinity: node affinity (the required node selector through
 * ValidateNodeSelector, preferred terms weighted 1–100) and pod (anti-)affinity terms (label and
 * namespace selectors, namespaces as DNS labels reported at `namespace`, matchLabelKeys and
 * mismatchLabelKeys, a qualified topologyKey). The API server does not merge matchLabelKeys into
 * the selector here, so "exists in both matchLabelKeys and labelSelector" only fires for a key the
 * selector itself names twice, as upstream's check reads it.
 */
import { append } from '../api/append.ts';
import { forbidden, invalid, required, type FieldError, type FieldPath } from '../api/field.ts';
import type { NodeSelectorTerm } from '../api/node-selector.ts';
import type { Affinity, PodAffinityTerm, WeightedPodAffinityTerm } from '../api/pod-scheduling.ts';
import type { LabelSelectorObject } from '../selectors/labels.ts';
import { validateLabelSelector } from './label-selector.ts';
import { isDNS1123Label } from './names.ts';
import { validateNodeSelector } from './node-selector.ts';
import { validateQualifiedName } from './qualified-name.ts';

const weightMessage = 'must be in the range 1-100';

/** ValidateNodeSelectorTerm at `path`: validateNodeSelector on a one-term selector, its paths moved to the term. */
function validateNodeSelectorTerm(term: NodeSelectorTerm, path: FieldPath): FieldError[] {
  const prefix = `${path.toString()}.nodeSelectorTerms[0]`;
  return validateNodeSelector({ nodeSelectorTerms: [term] }, path).map((e) =>
    e.field.startsWith(prefix) ? { ...e, field: path.toString() + e.field.slice(prefix.length) } : e,
  );
}

function validateNodeAffinity(affinity: NonNullable<Affinity['nodeAffinity']>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const requiredTerms = affinity.requiredDuringSchedulingIgnoredDuringExecution;
  if (requiredTerms) append(errors, validateNodeSelector(requiredTerms, path.child('requiredDuringSchedulingIgnoredDuringExecution')));
  (affinity.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((term, i) => {
    const at = path.child('preferredDuringSchedulingIgnoredDuringExecution').index(i);
    const weight = term.weight ?? 0;
    if (weight <= 0 || weight > 100) errors.push(invalid(at.child('weight'), weight, weightMessage));
    append(errors, validateNodeSelectorTerm(term.preference ?? {}, at.child('preference')));
  });
  return errors;
}

/** validateLabelKeys: qualified names, only next to a label selector. */
function validateLabelKeys(keys: readonly string[], selector: LabelSelectorObject | undefined, path: FieldPath): FieldError[] {
  if (keys.length === 0) return [];
  if (!selector) return [forbidden(path, 'must not be specified when labelSelector is not set')];
  return keys.flatMap((key, i) => validateQualifiedName(key, path.index(i)));
}

/** validateMatchLabelKeysAndMismatchLabelKeys, for the term at `path`. */
function validateMatchLabelKeys(term: PodAffinityTerm, path: FieldPath): FieldError[] {
  const matchKeys = term.matchLabelKeys ?? [];
  const mismatchKeys = term.mismatchLabelKeys ?? [];
  const selector = term.labelSelector ?? undefined;
  const errors = validateLabelKeys(matchKeys, selector, path.child('matchLabelKeys'));
  append(errors, validateLabelKeys(mismatchKeys, selector, path.child('mismatchLabelKeys')));
  if (selector) {
    const index = new Map(matchKeys.map((key, i) => [key, i]));
    const selectorKeys = new Set(Object.keys(selector.matchLabels ?? {}));
    for (const expression of selector.matchExpressions ?? []) {
      const key = expression.key ?? '';
      const i = index.get(key);
      // Upstream reports this at the term's index, not under matchLabelKeys.
      if (i !== undefined && selectorKeys.has(key)) errors.push(invalid(path.index(i), key, 'exists in both matchLabelKeys and labelSelector'));
      selectorKeys.add(key);
    }
  }
  const mismatch = new Set(mismatchKeys);
  matchKeys.forEach((key, i) => {
    if (mismatch.has(key)) errors.push(invalid(path.child('matchLabelKeys').index(i), key, 'exists in both matchLabelKeys and mismatchLabelKeys'));
  });
  return errors;
}

function validatePodAffinityTerm(term: PodAffinityTerm, path: FieldPath): FieldError[] {
  const errors = validateLabelSelector(term.labelSelector, false, path.child('labelSelector'));
  append(errors, validateLabelSelector(term.namespaceSelector, false, path.child('namespaceSelector')));
  for (const namespace of term.namespaces ?? []) for (const msg of isDNS1123Label(namespace)) errors.push(invalid(path.child('namespace'), namespace, msg));
  append(errors, validateMatchLabelKeys(term, path));
  const topologyKey = term.topologyKey ?? '';
  if (!topologyKey) errors.push(required(path.child('topologyKey'), 'can not be empty'));
  append(errors, validateQualifiedName(topologyKey, path.child('topologyKey')));
  return errors;
}

function validatePodAffinityTerms(terms: { required?: PodAffinityTerm[]; preferred?: WeightedPodAffinityTerm[] }, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  (terms.required ?? []).forEach((term, i) =>
    append(errors, validatePodAffinityTerm(term, path.child('requiredDuringSchedulingIgnoredDuringExecution').index(i))),
  );
  (terms.preferred ?? []).forEach((weighted, i) => {
    const at = path.child('preferredDuringSchedulingIgnoredDuringExecution').index(i);
    const weight = weighted.weight ?? 0;
    if (weight <= 0 || weight > 100) errors.push(invalid(at.child('weight'), weight, weightMessage));
    append(errors, validatePodAffinityTerm(weighted.podAffinityTerm ?? {}, at.child('podAffinityTerm')));
  });
  return errors;
}

/** validateAffinity, at `spec.affinity`. */
export function validateAffinity(affinity: Affinity | undefined, path: FieldPath): FieldError[] {
  if (!affinity) return [];
  const errors: FieldError[] = [];
  if (affinity.nodeAffinity) append(errors, validateNodeAffinity(affinity.nodeAffinity, path.child('nodeAffinity')));
  for (const kind of ['podAffinity', 'podAntiAffinity'] as const) {
    const terms = affinity[kind];
    if (!terms) continue;
    append(
      errors,
      validatePodAffinityTerms(
        { required: terms.requiredDuringSchedulingIgnoredDuringExecution, preferred: terms.preferredDuringSchedulingIgnoredDuringExecution },
        path.child(kind),
      ),
    );
  }
  return errors;
}
