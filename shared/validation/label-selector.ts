/**
 * Upstream's metav1 ValidateLabelSelector, and the operator rule that label and node selector
 * requirements share (node-selector.ts adds Gt and Lt).
 */
import { forbidden, invalid, required, type FieldError, type FieldPath } from '../api/field.ts';
import { append } from '../api/append.ts';
import type { LabelSelectorObject } from '../selectors/labels.ts';
import { isValidLabelValue } from './names.ts';
import { validateLabels } from './objectmeta.ts';
import { validateQualifiedName } from './qualified-name.ts';

/**
 * The operator of the requirement at `path` and the number of values it takes: In and NotIn at
 * least one, Exists and DoesNotExist none and, where `withGtLt` (node selectors), Gt and Lt exactly one.
 */
export function validateOperatorValues(operator: string | undefined, values: readonly string[], path: FieldPath, withGtLt = false): FieldError[] {
  switch (operator) {
    case 'In':
    case 'NotIn':
      return values.length === 0 ? [required(path.child('values'), "must be specified when `operator` is 'In' or 'NotIn'")] : [];
    case 'Exists':
    case 'DoesNotExist':
      return values.length > 0 ? [forbidden(path.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")] : [];
    case 'Gt':
    case 'Lt':
      if (withGtLt) return values.length !== 1 ? [required(path.child('values'), "must be specified single value when `operator` is 'Lt' or 'Gt'")] : [];
  }
  return [invalid(path.child('operator'), operator ?? '', 'not a valid selector operator')];
}

/**
 * upstream's metav1 ValidateLabelSelector. Values of match expressions are checked as label
 * values unless `allowInvalidValues` (an update whose stored selector already holds invalid ones,
 * see hasInvalidLabelValue).
 */
export function validateLabelSelector(selector: LabelSelectorObject | null | undefined, allowInvalidValues: boolean, path: FieldPath): FieldError[] {
  if (!selector) return [];
  const errs = validateLabels(selector.matchLabels ?? undefined, path.child('matchLabels'));
  (selector.matchExpressions ?? []).forEach((req, i) => {
    const reqPath = path.child('matchExpressions').index(i);
    const values = req.values ?? [];
    append(errs, validateOperatorValues(req.operator, values, reqPath));
    append(errs, validateQualifiedName(req.key ?? '', reqPath.child('key')));
    if (!allowInvalidValues) {
      values.forEach((value, j) => {
        for (const msg of isValidLabelValue(value)) errs.push(invalid(reqPath.child('values').index(j), value, msg));
      });
    }
  });
  return errs;
}

/** Whether a match expression of the selector holds a value that is no label value (upstream's hasInvalidLabelValueInLabelSelector). */
export function hasInvalidLabelValue(selector: LabelSelectorObject | null | undefined): boolean {
  return (selector?.matchExpressions ?? []).some((req) => (req.values ?? []).some((v) => isValidLabelValue(v).length > 0));
}
