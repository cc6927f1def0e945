/**
 * Upstream's ValidateNodeSelector (core validation) with 1.28's rules, the last release that
 * served ClusterCIDR: keys of match expressions are qualified names and their values are not
 * checked as label values; match fields may only name metadata.name.
 */
import { invalid, required, type FieldError, type FieldPath } from '../api/field.ts';
import { append } from '../api/append.ts';
import type { NodeSelector, NodeSelectorRequirement } from '../api/node-selector.ts';
import { validateOperatorValues } from './label-selector.ts';
import { isDNS1123Subdomain } from './names.ts';
import { validateQualifiedName } from './qualified-name.ts';

function validateNodeSelectorRequirement(req: NodeSelectorRequirement, path: FieldPath): FieldError[] {
  const errs = validateOperatorValues(req.operator, req.values ?? [], path, true);
  append(errs, validateQualifiedName(req.key ?? '', path.child('key')));
  return errs;
}

/** Node field selectors may only match metadata.name, with exactly one node name for In and NotIn. */
function validateNodeFieldSelectorRequirement(req: NodeSelectorRequirement, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const values = req.values ?? [];
  if (req.operator === 'In' || req.operator === 'NotIn') {
    if (values.length !== 1) {
      errs.push(required(path.child('values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    }
  } else {
    errs.push(invalid(path.child('operator'), req.operator ?? '', 'not a valid selector operator'));
  }
  if (req.key !== 'metadata.name') {
    errs.push(invalid(path.child('key'), req.key ?? '', 'not a valid field selector key'));
  } else {
    values.forEach((value, i) => {
      for (const msg of isDNS1123Subdomain(value)) errs.push(invalid(path.child('values').index(i), value, msg));
    });
  }
  return errs;
}

/** At least one term; the errors of every requirement of every term, in order. */
export function validateNodeSelector(selector: NodeSelector, path: FieldPath): FieldError[] {
  const termsPath = path.child('nodeSelectorTerms');
  const terms = selector.nodeSelectorTerms ?? [];
  if (terms.length === 0) return [required(termsPath, 'must have at least one node selector term')];
  return terms.flatMap((term, i) => {
    const termPath = termsPath.index(i);
    return [
      ...(term.matchExpressions ?? []).flatMap((req, j) => validateNodeSelectorRequirement(req, termPath.child('matchExpressions').index(j))),
      ...(term.matchFields ?? []).flatMap((req, j) => validateNodeFieldSelectorRequirement(req, termPath.child('matchFields').index(j))),
    ];
  });
}
